"""Page data patterns and cell states."""

from __future__ import annotations

import numpy as np
import pytest

from nandlab.characterize.common import cell_states
from nandlab.errors import UsageError
from nandlab.ops.pattern import page_pattern
from nandlab.profiles import load_profile


def test_random_is_seeded_per_block_and_page():
    a = page_pattern("random", 4096, seed=1, block=2, page=3)
    assert a == page_pattern("random", 4096, seed=1, block=2, page=3)
    assert a != page_pattern("random", 4096, seed=2, block=2, page=3)
    assert a != page_pattern("random", 4096, seed=1, block=2, page=4)
    ones = np.unpackbits(np.frombuffer(a, np.uint8)).mean()
    assert 0.48 < ones < 0.52


def test_checker_alternates_per_wl_and_fixed_patterns():
    assert page_pattern("checker", 4, wl=0) == b"\x55" * 4
    assert page_pattern("checker", 4, wl=1) == b"\xaa" * 4
    assert page_pattern("zeros", 3) == b"\x00" * 3
    assert page_pattern("ones", 3) == b"\xff" * 3


def test_marker_column_stays_ff():
    data = page_pattern("zeros", 16, marker_column=8)
    assert data[8] == 0xFF and data.count(0) == 15


def test_unknown_pattern_names_the_choices():
    with pytest.raises(UsageError, match="random, checker, zeros, ones"):
        page_pattern("stripes", 16)


def test_cell_states_follow_the_gray_code():
    profile = load_profile("mlc-64l")  # L0 11, L1 10, L2 00, L3 01 (LSB, MSB)
    n = profile.geometry.page_bytes + profile.geometry.spare_bytes
    lsb = bytes([0b0011]) + bytes(n - 1)
    msb = bytes([0b1001]) + bytes(n - 1)
    states = cell_states(profile, {0: lsb, 1: msb})
    assert states[:4].tolist() == [0, 1, 2, 3]
    assert (states[8:] == 2).all()
