"""Property tests: any parameter page a chip (or a broken bus) can return is decoded or
refused with a typed error, never a crash; the CRC and the majority agree with the
independent Linux-rule implementation."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from linux_onfi import NotOnfi, crc16, detect

from nandlab.errors import NandlabError
from nandlab.onfi.identify import identify_target
from nandlab.onfi_spec import parampage as pp
from nandlab.profiles import load_profile
from nandlab.vchip import identity

FLIP = st.tuples(st.integers(0, 2), st.integers(0, 255), st.integers(1, 255))  # copy, byte, mask
GOOD = pp.build(identity.parameter_page_values(load_profile("mlc-64l")))


class Wire:
    ce = 0

    def __init__(self, stream: bytes) -> None:
        self.stream = stream

    def read_id(self, address: int, n: int) -> bytes:
        return (b"ONFI" if address == 0x20 else b"\x2c\x00\x04\x00")[:n]

    def read_parameter_pages(self, copies: int) -> bytes:
        return (self.stream * (copies + 1))[: copies * 256]

    def read_unique_id_raw(self, copies: int) -> bytes:
        return (bytes(16) + bytes([0xFF] * 16)) * copies


def sealed(page: bytes) -> bytes:
    """`page` with a valid CRC, so decoding gets past the CRC."""
    return page[:254] + pp.crc16(page[:254]).to_bytes(2, "little")


@settings(max_examples=150, deadline=None)
@given(st.binary(min_size=256, max_size=256))
def test_any_sealed_page_is_decoded_or_refused_with_a_typed_error(raw: bytes) -> None:
    page = sealed(b"ONFI" + raw[4:])
    try:
        ident, geometry = identify_target(Wire(page * 3), None)
    except NandlabError:
        return
    assert geometry.page_bytes & (geometry.page_bytes - 1) == 0
    assert 1 <= geometry.bits_per_cell <= 4 and geometry.blocks >= 1
    try:
        linux = detect(b"ONFI", page * 3)
    except NotOnfi:
        return
    assert linux.bits_per_cell == geometry.bits_per_cell


@settings(max_examples=100, deadline=None)
@given(st.binary(min_size=254, max_size=254))
def test_crc_agrees_with_the_table_driven_one(data: bytes) -> None:
    assert pp.crc16(data) == crc16(data)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 255), st.integers(1, 255)), max_size=12)
)
def test_damage_to_fewer_than_two_copies_per_bit_is_recovered(
    flips: list[tuple[int, int, int]],
) -> None:
    copies = [bytearray(GOOD) for _ in range(3)]
    for k, offset, mask in flips:
        copies[k][offset] ^= mask
    damaged = b"".join(copies)
    # a bit is lost only when two copies flipped it; such draws are refused, not misread
    lost = any(
        ((copies[a][i] ^ GOOD[i]) & (copies[b][i] ^ GOOD[i]))
        for i in range(256)
        for a, b in ((0, 1), (0, 2), (1, 2))
    )
    try:
        ident, _ = identify_target(Wire(damaged), None)
    except NandlabError:
        assert lost
        return
    assert ident.parameter_page == GOOD or (lost and pp.crc_ok(ident.parameter_page))
