"""The blank check's byte-wise prediction of an unwritten upper page equals the bit-by-bit
rule: each cell sits in the lowest Gray-code state its lower-page bits allow."""

from __future__ import annotations

import numpy as np
import pytest

from nandlab.onfi.array import _expected_bytes, _unwritten_bit_table
from nandlab.profiles import builtin_names, load_profile


def _bit_by_bit(lowers: list[np.ndarray], gray_code: list[list[int]]) -> np.ndarray:
    """Reference: per cell, scan the states from the lowest for the first whose lower bits
    match, and take its bit of the next page type (numpy's big-endian bit order on both
    sides, as the check itself compares whole bytes)."""
    t = len(lowers)
    lower_bits = [np.unpackbits(lo) for lo in lowers]
    out = np.empty(lower_bits[0].size, dtype=np.uint8)
    for i in range(out.size):
        cell = [int(b[i]) for b in lower_bits]
        out[i] = next(s[t] for s in gray_code if list(s[:t]) == cell)
    return np.packbits(out)


@pytest.mark.parametrize("name", [n for n in builtin_names() if n != "slc-search"])
def test_expected_bytes_match_the_bit_rule(name: str) -> None:
    gray = load_profile(name).geometry.gray_code
    rng = np.random.default_rng(3)
    for page_type in range(1, len(gray[0])):
        lowers = [rng.integers(0, 256, 64, dtype=np.uint8) for _ in range(page_type)]
        got = _expected_bytes(lowers, _unwritten_bit_table(gray, page_type))
        assert np.array_equal(got, _bit_by_bit(lowers, gray)), (name, page_type)
