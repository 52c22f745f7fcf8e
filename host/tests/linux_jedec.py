"""A JEDEC detector that follows the rules of Linux's `nand_jedec_detect`.

Written for the tests from those rules and the layout of Linux's
`struct nand_jedec_params` (as a `struct` format, not from nandlab's field
table, and sharing no code with it), so the Toggle die and the host are
checked against a second reading:

- READ ID 40h must return the 5 bytes "JEDEC", else the part is not JEDEC;
- of 3 copies of the 512-byte page, the first whose CRC-16 (polynomial 8005h,
  seed 4F4Eh, over bytes 0-509, stored little-endian at 510) matches is used;
  with none, "Could not find valid JEDEC parameter page" (no majority);
- revision bit 2 gives version 1.0 (10), else bit 1 a vendor version (1),
  else "unsupported JEDEC version";
- MTD keeps pages per block and blocks per LUN only up to the largest power
  of two; planes = 2^byte 104; LUNs = byte 100;
- ECC from the first ECC block, only when its codeword (2^byte 212) is at
  least 2^9 bytes, else "Invalid codeword size" and the ECC stays unknown.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

_TABLE = []  # a table CRC, not nandlab's bit loop, so a slip in either shows
for _n in range(256):
    _c = _n << 8
    for _ in range(8):
        _c = (_c << 1) ^ 0x8005 if _c & 0x8000 else _c << 1
    _TABLE.append(_c & 0xFFFF)

# struct nand_jedec_params, packed, little-endian: field by field as jedec.h lists them
_LAYOUT = (
    "<4s H H 3s H B 18x"  # sig, revision, features, opt_cmd, sec_cmd, num_of_param_pages
    "12s 20s 6s 10x"  # manufacturer, model, jedec_id
    "I H 6x I I B B B B B B 38x"  # page, spare, ppb, blocks, luns, addr, bpc, ppp, mp, mp_attr
    "H H H B B B H H H H H H H H B H 36x"  # speed grades, features, tPROG..tADL
    "B H 32s 29x"  # guaranteed good blocks, their endurance, ecc_info[4]
    "148x H 88x H"  # reserved, vendor revision, vendor, crc
)
PAGE = struct.calcsize(_LAYOUT)
assert PAGE == 512


class NotJedec(Exception):
    """Linux would not take the part as JEDEC (the message is Linux's reason)."""


def crc16(data: bytes) -> int:
    crc = 0x4F4E
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ _TABLE[(crc >> 8) ^ b]
    return crc


@dataclass(frozen=True)
class LinuxJedec:
    copy_used: int
    version: int
    manufacturer: str
    model: str
    page_bytes: int
    oob_bytes: int
    pages_per_block: int
    blocks_per_lun: int
    planes: int
    luns: int
    bits_per_cell: int
    ecc_strength: int | None
    ecc_step: int | None
    bus16: bool


def _pow2_floor(n: int) -> int:
    return 1 << (n.bit_length() - 1)


def detect(id40: bytes, pages: bytes) -> LinuxJedec:
    """What Linux's JEDEC detection makes of READ ID 40h and 3 page copies."""
    if id40[:5] != b"JEDEC":
        raise NotJedec("no JEDEC signature at READ ID 40h")
    for i in range(3):
        copy = pages[i * PAGE : (i + 1) * PAGE]
        if len(copy) == PAGE and crc16(copy[:510]) == int.from_bytes(copy[510:], "little"):
            break
    else:
        raise NotJedec("Could not find valid JEDEC parameter page; aborting")
    v = struct.unpack(_LAYOUT, copy)
    revision, features = v[1], v[2]
    version = 10 if revision & 1 << 2 else 1 if revision & 1 << 1 else 0
    if not version:
        raise NotJedec(f"unsupported JEDEC version: {revision}")
    page, spare, ppb, blocks, luns, _, bpc, _, mp = v[9:18]
    ecc_info = v[37]
    ecc_bits, codeword = ecc_info[0], ecc_info[1]
    valid = codeword >= 9
    return LinuxJedec(
        copy_used=i,
        version=version,
        manufacturer=v[6].decode("ascii").strip(),
        model=v[7].decode("ascii").strip(),
        page_bytes=page,
        oob_bytes=spare,
        pages_per_block=_pow2_floor(ppb),
        blocks_per_lun=_pow2_floor(blocks),
        planes=1 << mp,
        luns=luns,
        bits_per_cell=bpc,
        ecc_strength=ecc_bits if valid else None,
        ecc_step=1 << codeword if valid else None,
        bus16=bool(features & 1),
    )
