"""CellArray's drift cache: a cached sensing is the uncached one, and every event that
changes a WL's deterministic Vth shift (bake, program, erase, wear, reads of other WLs)
invalidates it.

Each test runs two arrays of the same seed through the same operations, one with the
cache and one without. Their read noise streams are identical, so their sensings agree
bit for bit up to float32 rounding (the cached path computes the same terms in two
kernels); a stale cache would differ in hundreds of bits at a reference inside a state.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from nandlab.profiles import Profile, load_profile
from nandlab.vchip import CellArray

BLOCK = 7
WL = 4
# near the upper edge of L1 (verify 600 mV): a shift of the WL's Vth moves many cells across
REF_MV = 850.0
MAX_ROUNDING_BITS = 8


@pytest.fixture(scope="module")
def mlc() -> Profile:
    return load_profile("mlc-64l")


def pages(p: Profile, seed: int) -> dict[int, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = p.geometry.page_bytes + p.geometry.spare_bytes
    return {pt: rng.integers(0, 256, n, dtype=np.uint8) for pt in range(p.geometry.bits_per_cell)}


def twins(p: Profile, pec: int = 3000) -> tuple[CellArray, CellArray]:
    cached, plain = CellArray(p, seed=5), CellArray(p, seed=5)
    plain.sense_cache = False
    for a in (cached, plain):
        a.add_wear(BLOCK, pec)
        for wl in range(WL + 1):
            assert a.program(BLOCK, wl, pages(p, 100 + wl), slc=False).ok
        a.elapse(2000.0)
    return cached, plain


def differing_bits(a: np.ndarray, b: np.ndarray) -> int:
    return int(np.bitwise_count(a ^ b).sum())


def check_same(cached: CellArray, plain: CellArray, wl: int = WL, n: int = 3) -> None:
    for _ in range(n):
        got = cached.sense(BLOCK, wl, REF_MV, False)
        want = plain.sense(BLOCK, wl, REF_MV, False)
        assert differing_bits(got, want) <= MAX_ROUNDING_BITS


def drift_key(a: CellArray, wl: int = WL) -> tuple[object, ...]:
    return a._drift.entries[(BLOCK, wl)][0]


def test_cached_sense_matches_uncached(mlc: Profile) -> None:
    cached, plain = twins(mlc)
    check_same(cached, plain, n=20)
    assert (BLOCK, WL) in cached._drift.entries and not plain._drift.entries


def test_cached_sense_draws_fresh_noise(mlc: Profile) -> None:
    cached, _ = twins(mlc)
    reads = [cached.sense(BLOCK, WL, REF_MV, False) for _ in range(6)]
    assert any(differing_bits(reads[0], r) > 0 for r in reads[1:])  # RTN differs per sensing
    # statistically the same as the uncached path: mean conducting cells agree
    plain = CellArray(mlc, seed=9)
    plain.sense_cache = False
    other = CellArray(mlc, seed=9)
    for a in (plain, other):
        a.add_wear(BLOCK, 3000)
        assert a.program(BLOCK, WL, pages(mlc, 104), slc=False).ok
        a.elapse(2000.0)
    n = [int(np.bitwise_count(a.sense(BLOCK, WL, REF_MV, False)).sum()) for a in (plain, other)]
    assert abs(n[0] - n[1]) <= 0.002 * mlc.geometry.cells_per_wl


def test_stale_cache_would_be_caught(mlc: Profile) -> None:
    """The twin check is sharp: an out-of-date drift entry differs in many bits."""
    cached, plain = twins(mlc)
    check_same(cached, plain)
    stale = cached._drift.entries[(BLOCK, WL)]
    for a in (cached, plain):
        a.bake(85.0, 500.0)
    cached.sense(BLOCK, WL, REF_MV, False)
    cached._drift.entries[(BLOCK, WL)] = (drift_key(cached), stale[1].copy())  # force the old drift
    got, want = cached.sense(BLOCK, WL, REF_MV, False), plain.sense(BLOCK, WL, REF_MV, False)
    assert differing_bits(got, want) > 100 * MAX_ROUNDING_BITS


def _invalidated_by(mlc: Profile, event: Callable[[CellArray], object]) -> None:
    cached, plain = twins(mlc)
    check_same(cached, plain)
    before = drift_key(cached)
    event(cached)
    event(plain)
    check_same(cached, plain)
    assert drift_key(cached) != before


def test_bake_invalidates(mlc: Profile) -> None:
    _invalidated_by(mlc, lambda a: a.bake(85.0, 500.0))


def test_program_of_the_wl_invalidates(mlc: Profile) -> None:
    def program(a: CellArray) -> None:
        # an LSB-only WL first, sensed (cached), then its MSB page added
        assert a.program(BLOCK, WL + 1, {0: pages(mlc, 7)[0]}, slc=False).ok
        a.sense(BLOCK, WL + 1, REF_MV, False)
        assert a.program(BLOCK, WL + 1, {1: pages(mlc, 7)[1]}, slc=False).ok

    cached, plain = twins(mlc)
    program(cached)
    program(plain)
    before = drift_key(cached, WL + 1)
    check_same(cached, plain, wl=WL + 1)
    assert drift_key(cached, WL + 1) != before


def test_program_of_a_neighbour_invalidates(mlc: Profile) -> None:
    """Programming the WL above couples charge into this one (same string)."""
    sub = mlc.geometry.sub_blocks
    cached, plain = twins(mlc)
    check_same(cached, plain, wl=WL - sub + 1)
    before = drift_key(cached, WL - sub + 1)
    for a in (cached, plain):
        assert a.program(BLOCK, WL + 1, pages(mlc, 8), slc=False).ok
    check_same(cached, plain, wl=WL - sub + 1)
    assert drift_key(cached, WL - sub + 1) != before


def test_erase_invalidates(mlc: Profile) -> None:
    _invalidated_by(mlc, lambda a: a.erase(BLOCK))


def test_wear_invalidates(mlc: Profile) -> None:
    _invalidated_by(mlc, lambda a: a.add_wear(BLOCK, 2000))


def test_reads_of_other_wls_invalidate(mlc: Profile) -> None:
    def disturb(a: CellArray) -> None:
        for _ in range(300):
            a.sense(BLOCK, WL - 1, REF_MV, False)

    _invalidated_by(mlc, disturb)


def test_own_reads_keep_the_cache(mlc: Profile) -> None:
    """Reads of the WL itself disturb only the other WLs: the entry stays valid."""
    cached, plain = twins(mlc)
    check_same(cached, plain)
    entry = cached._drift.entries[(BLOCK, WL)]
    check_same(cached, plain, n=5)
    assert cached._drift.entries[(BLOCK, WL)] is entry


def test_erased_wl_cached(mlc: Profile) -> None:
    """A never-programmed WL (drawn on demand) is cached and matches too."""
    cached, plain = twins(mlc)
    for _ in range(3):
        got = cached.sense(BLOCK, 40, -1500.0, False)
        want = plain.sense(BLOCK, 40, -1500.0, False)
        assert differing_bits(got, want) <= MAX_ROUNDING_BITS
    assert (BLOCK, 40) in cached._drift.entries
