"""An ONFI detector that follows the rules of Linux's raw NAND ONFI detection.

Written for the tests from those rules (not from nandlab's parser, and
sharing no code with it) so the host and the virtual dies are checked
against a second reading of the specification:

- READ ID 20h must return "ONFI", else the part is not ONFI;
- of the 3 parameter page copies, the first whose CRC-16 (polynomial 8005h,
  seed 4F4Eh, over bytes 0-253, stored little-endian at 254) matches is used;
  if none, the bitwise majority of the 3, whose CRC must then match, else
  "ONFI parameter recovery failed";
- the revision word must have one of bits 5..1 (2.3, 2.2, 2.1, 2.0, 1.0), the
  highest of which is the version, else "unsupported ONFI version";
- MTD keeps pages per block and blocks per LUN only up to the largest power
  of two; planes = 2^byte 113; the best SDR mode is the highest bit of bytes
  129-130;
- ECC = byte 112 bits per 512 bytes; at FFh, from version 2.1 with features
  bit 7, the extended parameter page found after (byte 14) x 256 bytes,
  (bytes 12-13) x 16 long: its CRC (bytes 0-1, over the rest), "EPPS" at 2,
  section descriptors (type, length x 16) from 16, sections from 32; the
  first type 2 section gives bits and a codeword of 2^n bytes, n >= 9.
  Anything wrong there leaves the ECC unknown (Linux warns and goes on).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

# A CRC table for polynomial 8005h, MSB first: a different algorithm from the
# bit loop nandlab uses, so a slip in either shows.
_TABLE = []
for _n in range(256):
    _c = _n << 8
    for _ in range(8):
        _c = (_c << 1) ^ 0x8005 if _c & 0x8000 else _c << 1
    _TABLE.append(_c & 0xFFFF)

LINUX_VERSIONS = ((5, 23), (4, 22), (3, 21), (2, 20), (1, 10))  # revision bit -> version

# struct nand_onfi_params up to the vendor block: little-endian, packed.
_LAYOUT = struct.Struct(
    "<4sHHH2xHB17x"  # 0: sig, revision, features, opt_cmd, reserved, ext len, param pages
    "12s20sBH13x"  # 32: manufacturer, model, jedec id, date code
    "IHIHIIBBBHHBHBBBBB13x"  # 80: memory organisation
    "BHHHHHHBBBHHHBBHH8x"  # 128: electrical parameters
    "H88sH"  # 164: vendor revision, vendor, crc
)
assert _LAYOUT.size == 256


class NotOnfi(Exception):
    """Linux would not take the part as ONFI; the message is what it would log."""


@dataclass(frozen=True)
class LinuxOnfi:
    version: int
    manufacturer: str
    model: str
    page_bytes: int
    oob_bytes: int
    pages_per_block: int
    blocks_per_lun: int
    luns: int
    planes: int
    bits_per_cell: int
    ecc_strength: int | None
    ecc_step: int | None
    best_sdr_mode: int
    t_r_us: int
    t_prog_us: int
    t_bers_us: int
    t_ccs_ns: int
    set_get_features: bool
    truncated: bool  # pages per block or blocks per LUN were cut to a power of two
    copy_used: int | None  # None: the bitwise majority


def crc16(data: bytes) -> int:
    crc = 0x4F4E
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ _TABLE[((crc >> 8) ^ b) & 0xFF]
    return crc


def _crc_matches(page: bytes) -> bool:
    return crc16(page[:254]) == page[254] | page[255] << 8


def _vote(a: bytes, b: bytes, c: bytes) -> bytes:
    return bytes((x & y) | (y & z) | (x & z) for x, y, z in zip(a, b, c, strict=True))


def _sanitize(raw: bytes) -> str:
    return "".join(chr(b) if 0x20 <= b < 0x7F else "?" for b in raw).strip()


def _pow2_floor(n: int) -> int:
    return 1 << (n.bit_length() - 1) if n else 0


def _extended_ecc(stream: bytes, start: int, length: int) -> tuple[int, int] | None:
    ep = stream[start : start + length]
    if len(ep) < 32 or length < 32 or crc16(ep[2:]) != ep[0] | ep[1] << 8:
        return None
    if ep[2:6] != b"EPPS":
        return None
    cursor = 32
    for i in range(8):
        kind, units = ep[16 + 2 * i], ep[17 + 2 * i]
        if kind == 2:
            bits, exp = ep[cursor], ep[cursor + 1]
            return (bits, 1 << exp) if exp >= 9 else None
        cursor += units * 16
    return None


def detect(read_id_20h: bytes, param_bytes: bytes) -> LinuxOnfi:
    """What Linux's ONFI detection makes of READ ID 20h and the READ PARAMETER PAGE stream
    (at least 3 copies; more when the extended parameter page follows)."""
    if read_id_20h[:4] != b"ONFI":
        raise NotOnfi("no ONFI signature")
    copies = [param_bytes[i * 256 : (i + 1) * 256] for i in range(3)]
    used: int | None = next((i for i, p in enumerate(copies) if _crc_matches(p)), None)
    page = copies[used] if used is not None else _vote(*copies)
    if used is None and not _crc_matches(page):
        raise NotOnfi("ONFI parameter recovery failed, aborting")
    f = _LAYOUT.unpack(page)
    (_sig, revision, features, opt_cmd, ext_len, n_pages, manufacturer, model, _jedec,
     _date, page_bytes, oob, _ppb_data, _ppb_spare, ppb, bpl, luns, _addr, bits, _bb,
     _endurance, _good, _good_end, _ppp, _ppattr, ecc_bits, planes_bits, _ops,
     _io_cap, sdr_modes, _cache_modes, t_prog, t_bers, t_r, t_ccs, *_rest) = f
    version = next((v for bit, v in LINUX_VERSIONS if revision >> bit & 1), 0)
    if not version:
        raise NotOnfi(f"unsupported ONFI version: {revision}")
    strength: int | None
    step: int | None
    if ecc_bits != 0xFF:
        strength, step = ecc_bits, 512
    elif version >= 21 and features & 0x80:
        found = _extended_ecc(param_bytes, n_pages * 256, ext_len * 16)
        strength, step = found if found is not None else (None, None)
    else:
        strength = step = None
    return LinuxOnfi(
        version=version,
        manufacturer=_sanitize(manufacturer),
        model=_sanitize(model),
        page_bytes=page_bytes,
        oob_bytes=oob,
        pages_per_block=_pow2_floor(ppb),
        blocks_per_lun=_pow2_floor(bpl),
        luns=luns,
        planes=1 << planes_bits,
        bits_per_cell=bits,
        ecc_strength=strength,
        ecc_step=step,
        best_sdr_mode=sdr_modes.bit_length() - 1,
        t_r_us=t_r,
        t_prog_us=t_prog,
        t_bers_us=t_bers,
        t_ccs_ns=t_ccs,
        set_get_features=bool(opt_cmd & 0x04),
        truncated=_pow2_floor(ppb) != ppb or _pow2_floor(bpl) != bpl,
        copy_used=used,
    )
