"""The on-board pattern generator: known vectors, the spec's definition, pattern words."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nandlab.errors import OpProgramError
from nandlab.ops import PRBS_DEFAULT_SEED, Pattern, PatternKind, pattern_bytes

patterns = st.one_of(
    st.builds(Pattern.constant, st.integers(0, 255), st.booleans()),
    st.builds(Pattern.checker, st.integers(0, 1), st.booleans()),
    st.builds(Pattern.prbs, st.booleans()),
)


def reference_prbs(seed: int, n: int) -> bytes:
    """The spec's PRBS definition, one word at a time."""
    x = seed or PRBS_DEFAULT_SEED
    out = b""
    while len(out) < n:
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out += x.to_bytes(4, "little")
    return out[:n]


def test_prbs_known_vectors_from_seed_1() -> None:
    # By hand, x = 1: x ^= x << 13 -> 0x2001; x ^= x >> 17 -> 0x2001; x ^= x << 5 -> 0x42021.
    # Marsaglia's xorshift32 from 1: 270369, 67634689, 2647435461.
    words = [0x00042021, 0x04080601, 0x9DCCA8C5]
    expected = b"".join(w.to_bytes(4, "little") for w in words)
    assert pattern_bytes(Pattern.prbs(), 1, 12) == expected
    assert pattern_bytes(Pattern.prbs(), 1, 6) == expected[:6]


def test_prbs_seed_zero_uses_the_default_seed() -> None:
    assert pattern_bytes(Pattern.prbs(), 0, 64) == pattern_bytes(
        Pattern.prbs(), PRBS_DEFAULT_SEED, 64
    )


def test_prbs_default_seed_first_word() -> None:
    # x = 0x6A09E667; x ^= x << 13 (0x3CCCE000) -> 0x56C50667; x ^= x >> 17 (0x2B62)
    # -> 0x56C52D05; x ^= x << 5 (0xD8A5A0A0) -> 0x8E608DA5.
    assert pattern_bytes(Pattern.prbs(), 0, 4) == (0x8E608DA5).to_bytes(4, "little")


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 5000), invert=st.booleans())
def test_prbs_matches_the_spec_definition(seed: int, n: int, invert: bool) -> None:
    expected = reference_prbs(seed, n)
    if invert:
        expected = bytes(b ^ 0xFF for b in expected)
    assert pattern_bytes(Pattern.prbs(invert), seed, n) == expected


def test_long_prbs_stream_matches_reference() -> None:
    assert pattern_bytes(Pattern.prbs(), 12345, 18592) == reference_prbs(12345, 18592)


def test_const_checker_and_invert() -> None:
    assert pattern_bytes(Pattern.constant(0x3C), 99, 5) == b"\x3c" * 5
    assert pattern_bytes(Pattern.constant(0x3C, invert=True), 0, 3) == b"\xc3" * 3
    assert pattern_bytes(Pattern.checker(0), 0, 4) == b"\x55" * 4
    assert pattern_bytes(Pattern.checker(1), 0, 4) == b"\xaa" * 4
    assert pattern_bytes(Pattern.checker(1, invert=True), 0, 2) == b"\x55" * 2
    assert pattern_bytes(Pattern.prbs(), 7, 0) == b""


@given(patterns)
def test_pattern_word_round_trip(pattern: Pattern) -> None:
    assert Pattern.from_word(pattern.word) == pattern


def test_pattern_word_layout() -> None:
    assert Pattern.constant(0xA5, invert=True).word == 0x00A50100
    assert Pattern.checker(1).word == 0x00010001
    assert Pattern.prbs().word == 0x00000002


@pytest.mark.parametrize(
    ("word", "match"),
    [
        (0x00000003, "pattern kind 3"),
        (0x00000200, "reserved bits"),
        (0x01000000, "reserved bits"),
        (0x00020001, "phase = 2"),
        (0x00010002, "phase = 1"),
    ],
)
def test_bad_pattern_words(word: int, match: str) -> None:
    with pytest.raises(OpProgramError, match=match):
        Pattern.from_word(word)


def test_bad_pattern_settings() -> None:
    with pytest.raises(OpProgramError, match="const = 256"):
        Pattern.constant(256)
    with pytest.raises(OpProgramError, match="const = 5"):
        Pattern(PatternKind.PRBS, const=5)
    with pytest.raises(OpProgramError, match="outside 0..16777215"):
        pattern_bytes(Pattern.prbs(), 0, 1 << 24)
    with pytest.raises(OpProgramError, match="seed"):
        pattern_bytes(Pattern.prbs(), -1, 4)
