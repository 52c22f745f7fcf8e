"""The ONFI extended parameter page (ONFI 2.1 and later): its layout and the ECC section.

A part whose ECC requirement does not fit byte 112 (a codeword other than 512
bytes) sets byte 112 to FFh, features bit 7, the page's length in 16-byte
units at bytes 12-13, and streams the extended page after its parameter page
copies (READ PARAMETER PAGE keeps going). Layout: bytes 0-1 CRC-16 (as the
parameter page's, over bytes 2 to the end), 2-5 "EPPS", 6-15 reserved, 16-31
eight section descriptors (type, length in 16-byte units), sections from 32.
Section type 2 is the ECC information: bits correctable, codeword size as a
power of two, bad blocks maximum per LUN (2 bytes), block endurance (value,
multiplier), 10 reserved bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from nandlab.errors import NandlabError
from nandlab.onfi_spec.parampage import crc16

SIGNATURE = b"EPPS"
HEADER_BYTES = 32
SECTION_SLOTS = 8
SECTION_ECC = 2
ECC_SECTION_BYTES = 16
UNIT = 16  # lengths count 16-byte units
MIN_CODEWORD_EXP = 9  # Linux refuses a codeword under 512 bytes


@dataclass(frozen=True)
class EccInfo:
    bits: int
    codeword_bytes: int
    max_bad_blocks: int
    endurance_value: int
    endurance_multiplier: int


class ExtendedPageError(NandlabError):
    """The extended parameter page is missing, damaged or has no usable ECC section."""


def build(ecc: EccInfo) -> bytes:
    """An extended parameter page holding one ECC section (48 bytes)."""
    exp = ecc.codeword_bytes.bit_length() - 1
    if 1 << exp != ecc.codeword_bytes:
        raise ValueError(f"an ECC codeword is a power of two bytes, not {ecc.codeword_bytes}")
    page = bytearray(HEADER_BYTES + ECC_SECTION_BYTES)
    page[2:6] = SIGNATURE
    page[16:18] = bytes([SECTION_ECC, ECC_SECTION_BYTES // UNIT])
    section = bytes([ecc.bits, exp]) + ecc.max_bad_blocks.to_bytes(2, "little")
    section += bytes([ecc.endurance_value, ecc.endurance_multiplier])
    page[HEADER_BYTES : HEADER_BYTES + len(section)] = section
    page[0:2] = crc16(page[2:]).to_bytes(2, "little")
    return bytes(page)


def parse(raw: bytes) -> EccInfo:
    """The ECC section of one extended parameter page copy; ExtendedPageError says what is wrong."""
    if len(raw) < HEADER_BYTES + ECC_SECTION_BYTES:
        raise ExtendedPageError(f"{len(raw)} bytes are too few for an extended parameter page")
    if crc16(raw[2:]) != int.from_bytes(raw[0:2], "little"):
        raise ExtendedPageError("the extended parameter page fails its CRC-16")
    if raw[2:6] != SIGNATURE:
        raise ExtendedPageError(
            f"the extended parameter page signature is {raw[2:6]!r}, not 'EPPS'"
        )
    cursor = HEADER_BYTES
    for slot in range(SECTION_SLOTS):
        kind, units = raw[16 + 2 * slot], raw[17 + 2 * slot]
        if kind == SECTION_ECC:
            s = raw[cursor : cursor + ECC_SECTION_BYTES]
            if len(s) < 6:
                raise ExtendedPageError("the ECC section runs past the extended parameter page")
            if s[1] < MIN_CODEWORD_EXP:
                raise ExtendedPageError(f"ECC codeword of 2^{s[1]} bytes: at least 512 needed")
            return EccInfo(s[0], 1 << s[1], int.from_bytes(s[2:4], "little"), s[4], s[5])
        cursor += units * UNIT
    raise ExtendedPageError("the extended parameter page has no ECC section (type 2)")
