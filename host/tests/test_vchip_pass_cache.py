"""MWS keeps each string's pass resistance while the block's stored Vth holds:
the kept row is bit for bit a fresh sum, and programming or erasing the block replaces
it. Checked against an independent sum, k_pass / max(VPASS - Vth, min overdrive) over
the string's unselected WLs in float64, and against a twin array that never keeps it."""

from __future__ import annotations

import numpy as np

from nandlab.profiles import load_profile
from nandlab.vchip import CellArray

BLOCK = 3
SUB = 1


def _programmed(seed: int = 4) -> CellArray:
    p = load_profile("tlc-48l")
    arr = CellArray(p, seed=seed)
    n = p.geometry.page_bytes + p.geometry.spare_bytes
    rng = np.random.default_rng(2)
    for wl in range(SUB, 40, p.geometry.sub_blocks):
        assert arr.program(BLOCK, wl, {0: rng.integers(0, 256, n, dtype=np.uint8)}, slc=True).ok
    return arr


def _reference(arr: CellArray, skip: tuple[int, ...]) -> np.ndarray:
    phys = arr.profile.physics
    sens, vpass = phys.sensing, phys.vpass_mV
    kp = sens.k_pass_us_V * 1000.0
    blk = arr._blocks[BLOCK]
    total = np.zeros(arr.profile.geometry.cells_per_wl)
    for wl in range(SUB, arr.profile.geometry.wls_per_block, arr.profile.geometry.sub_blocks):
        if wl in skip:
            continue
        w = blk.wls.get(wl)
        vth = np.full(total.size, phys.erased_mean_mV) if w is None else w.vth.astype(float)
        floor = 1.0 if w is None else sens.min_overdrive_mV
        total += kp / np.maximum(vpass - vth, floor)
    return total


def test_kept_row_is_the_sum_and_program_replaces_it() -> None:
    arr = _programmed()
    first = arr.mws.pass_resistance(BLOCK, SUB, (SUB,))
    np.testing.assert_allclose(first, _reference(arr, (SUB,)), rtol=1e-4)
    assert arr.mws.pass_resistance(BLOCK, SUB, (SUB,)) is first  # kept, not recomputed
    other = arr.mws.pass_resistance(BLOCK, SUB, (SUB + 4,))  # other WL selected: a new sum
    np.testing.assert_allclose(other, _reference(arr, (SUB + 4,)), rtol=1e-4)
    n = arr.profile.geometry.page_bytes + arr.profile.geometry.spare_bytes
    before = _reference(arr, (SUB,))
    assert arr.program(BLOCK, 45, {0: np.zeros(n, np.uint8)}, slc=True).ok  # all cells up
    after = arr.mws.pass_resistance(BLOCK, SUB, (SUB,))
    np.testing.assert_allclose(after, _reference(arr, (SUB,)), rtol=1e-4)
    assert not np.allclose(after, before, rtol=1e-4)
    arr.erase(BLOCK)
    np.testing.assert_allclose(
        arr.mws.pass_resistance(BLOCK, SUB, (SUB,)), _reference(arr, (SUB,)), rtol=1e-4
    )


def test_mws_with_the_kept_rows_equals_fresh_sums() -> None:
    kept, fresh = _programmed(), _programmed()
    ref = kept.profile.physics.slc_verify_mV
    for wl in (SUB, SUB, SUB + 8, SUB):
        fresh.mws.clear()
        a = kept.sense_mws([(BLOCK, [wl])], ref, 40.0)
        b = fresh.sense_mws([(BLOCK, [wl])], ref, 40.0)
        assert np.array_equal(a, b)
