"""Legacy READ ID (90h, address 00h) bytes, decoded as controllers without ONFI do.

Byte 0 is the JEDEC manufacturer code, byte 1 the device code. Byte 2 (the
"3rd ID byte" of Samsung / Hynix / Toshiba datasheets, which Linux's
full-ID detection also reads) packs: bits 1:0 internal chip number (1, 2, 4
or 8 dies), bits 3:2 cell type (00b 2 levels = SLC, 01b 4 = MLC, 10b 8 =
TLC, 11b 16 = QLC), bits 5:4 simultaneously programmed pages, bit 6
interleaved program between chips, bit 7 cache program. Bytes 3 and up are
vendor specific and not decoded here.
"""

from __future__ import annotations

from dataclasses import dataclass

CELL_TYPE_SHIFT = 2
CELL_TYPE_MASK = 0x0C


@dataclass(frozen=True)
class LegacyId:
    manufacturer: int
    device: int
    dies: int
    bits_per_cell: int
    interleaved_program: bool
    cache_program: bool


def cell_type_bits(bits_per_cell: int) -> int:
    """Byte 2 bits 3:2 for a part storing `bits_per_cell` bits (1..4)."""
    if not 1 <= bits_per_cell <= 4:
        raise ValueError(f"the legacy ID encodes 1..4 bits per cell, not {bits_per_cell}")
    return (bits_per_cell - 1) << CELL_TYPE_SHIFT


def decode(id_bytes: bytes) -> LegacyId | None:
    """The fields of the first three READ ID bytes, or None when fewer were read."""
    if len(id_bytes) < 3:
        return None
    b2 = id_bytes[2]
    return LegacyId(
        manufacturer=id_bytes[0],
        device=id_bytes[1],
        dies=1 << (b2 & 0x03),
        bits_per_cell=((b2 & CELL_TYPE_MASK) >> CELL_TYPE_SHIFT) + 1,
        interleaved_program=bool(b2 & 0x40),
        cache_program=bool(b2 & 0x80),
    )
