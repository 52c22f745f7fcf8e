"""The extended parameter page: layout, damage, and how the host and Linux's rules read it."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from linux_onfi import detect

from nandlab.onfi.identify import identify_target
from nandlab.onfi_spec import ext_parampage as ep
from nandlab.onfi_spec import parampage as pp
from nandlab.profiles import load_profile
from nandlab.vchip import identity

ECC = ep.EccInfo(
    bits=72, codeword_bytes=1024, max_bad_blocks=17, endurance_value=3, endurance_multiplier=3
)
UID = bytes(16) + bytes([0xFF] * 16)


@dataclass
class Stream:
    """READ PARAMETER PAGE as a part streams it: copies, then extended page copies."""

    data: bytes
    ce: int = 0

    def read_id(self, address: int, n: int) -> bytes:
        return (b"ONFI" if address == 0x20 else b"\xfa\x48\x08")[:n]

    def read_parameter_pages(self, copies: int) -> bytes:
        return (self.data * 2)[: copies * 256]

    def read_unique_id_raw(self, copies: int) -> bytes:
        return UID * copies


def test_round_trip_and_layout() -> None:
    raw = ep.build(ECC)
    assert len(raw) == 48 and raw[2:6] == b"EPPS"
    assert raw[16:18] == bytes([2, 1])  # one ECC section, 16 bytes
    assert raw[32:34] == bytes([72, 10])  # 72 bits, 2^10-byte codeword
    assert ep.parse(raw) == ECC


@pytest.mark.parametrize(
    ("offset", "mask", "match"),
    [(40, 0x01, "CRC"), (16, 0x02, "CRC"), (0, 0x01, "CRC")],
)
def test_damage_is_named(offset: int, mask: int, match: str) -> None:
    raw = bytearray(ep.build(ECC))
    raw[offset] ^= mask
    with pytest.raises(ep.ExtendedPageError, match=match):
        ep.parse(bytes(raw))


def test_no_ecc_section_and_small_codeword_are_refused() -> None:
    def resealed(raw: bytearray) -> bytes:
        raw[0:2] = ep.crc16(raw[2:]).to_bytes(2, "little")
        return bytes(raw)

    no_section = bytearray(ep.build(ECC))
    no_section[16] = 0
    with pytest.raises(ep.ExtendedPageError, match="no ECC section"):
        ep.parse(resealed(no_section))
    small = bytearray(ep.build(ECC))
    small[33] = 8
    with pytest.raises(ep.ExtendedPageError, match="at least 512"):
        ep.parse(resealed(small))


def test_host_reads_the_next_copy_when_one_is_damaged() -> None:
    stream = bytearray(identity.parameter_pages(load_profile("tlc-48l"), 3))
    stream[3 * 256 + 40] ^= 0x01  # first extended copy
    ident, _ = identify_target(Stream(bytes(stream)), None)
    assert (ident.fields["ecc_strength"], ident.fields["ecc_step_bytes"]) == (72, 1024)
    assert ident.fields["conformance"] == []
    linux = detect(b"ONFI", bytes(stream))  # Linux reads only the first copy
    assert (linux.ecc_strength, linux.ecc_step) == (None, None)


def test_every_copy_damaged_leaves_the_ecc_unknown_with_a_note() -> None:
    stream = bytearray(identity.parameter_pages(load_profile("tlc-48l"), 3))
    for k in range(3):
        stream[3 * 256 + k * 48 + 3] ^= 0x20  # signature bytes
    ident, _ = identify_target(Stream(bytes(stream)), None)
    assert ident.fields["ecc_strength"] is None and ident.fields["ecc_step_bytes"] is None
    assert ident.fields["conformance"] == [
        "extended parameter page: no copy readable (the extended parameter page fails its "
        "CRC-16; the extended parameter page fails its CRC-16; the extended parameter page "
        "fails its CRC-16): ECC unknown"
    ]


def test_an_implausible_length_is_not_read() -> None:
    profile = load_profile("tlc-48l")
    values = {**identity.parameter_page_values(profile), "ext_param_page_length": 0xFFFF}
    stream = pp.build(values) * 3
    ident, _ = identify_target(Stream(stream), None)
    assert ident.fields["ecc_strength"] is None
    assert ident.fields["conformance"] == [
        "extended parameter page: 1048560 bytes long (bytes 12-13), more than any part's "
        "1024: not read, ECC unknown"
    ]
