"""MWS keeps each string's pass resistance as an exact float64 sum over all its WLs and
subtracts the selected ones: the row it hands the sensing is the correctly rounded sum of
the unselected WLs' float32 terms, whichever WLs are selected, and programming or
erasing the block replaces the kept sum. Checked against an independent sum:
math.fsum (exact, then rounded once) of float32(k_pass / max(VPASS - Vth, floor)) over the
string's unselected WLs, computed here in numpy."""

from __future__ import annotations

import math

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


def _reference(arr: CellArray, skip: tuple[int, ...], cells: slice) -> np.ndarray:
    phys = arr.profile.physics
    sens, vpass = phys.sensing, phys.vpass_mV
    kp = np.float32(sens.k_pass_us_V * 1000.0)
    blk = arr._blocks[BLOCK]
    geo = arr.profile.geometry
    terms = []
    for wl in range(SUB, geo.wls_per_block, geo.sub_blocks):
        if wl in skip:
            continue
        w = blk.wls.get(wl)
        if w is None:
            erased = sens.k_pass_us_V * 1000.0 / max(vpass - phys.erased_mean_mV, 1.0)
            terms.append(np.full(geo.cells_per_wl, np.float32(erased))[cells])
        else:
            od = np.maximum(np.float32(vpass) - w.vth[cells].astype(np.float32),
                            np.float32(sens.min_overdrive_mV))
            terms.append(kp / od)
    stacked = np.stack(terms).astype(np.float64)
    return np.array([math.fsum(col) for col in stacked.T], dtype=np.float32)


CELLS = slice(0, 4000)  # fsum per cell is slow: a slice of the WL is enough


def test_row_is_the_exactly_rounded_sum_and_program_replaces_it() -> None:
    arr = _programmed()
    mws = arr.mws
    for skip in ((SUB,), (SUB + 4,), (SUB, SUB + 8, SUB + 44), ()):
        row = mws.pass_resistance(BLOCK, SUB, skip)
        assert np.array_equal(row[CELLS], _reference(arr, skip, CELLS)), skip
    before = mws.pass_resistance(BLOCK, SUB, (SUB,))
    n = arr.profile.geometry.page_bytes + arr.profile.geometry.spare_bytes
    assert arr.program(BLOCK, 45, {0: np.zeros(n, np.uint8)}, slc=True).ok  # all cells up
    after = mws.pass_resistance(BLOCK, SUB, (SUB,))
    assert np.array_equal(after[CELLS], _reference(arr, (SUB,), CELLS))
    assert not np.array_equal(after, before)
    arr.erase(BLOCK)
    assert np.array_equal(
        mws.pass_resistance(BLOCK, SUB, (SUB,))[CELLS], _reference(arr, (SUB,), CELLS)
    )


def test_mws_with_the_kept_sums_equals_fresh_sums() -> None:
    kept, fresh = _programmed(), _programmed()
    ref = kept.profile.physics.slc_verify_mV
    for wl in (SUB, SUB, SUB + 8, SUB):
        fresh.mws.clear()
        a = kept.sense_mws([(BLOCK, [wl])], ref, 40.0)
        b = fresh.sense_mws([(BLOCK, [wl])], ref, 40.0)
        assert np.array_equal(a, b)
