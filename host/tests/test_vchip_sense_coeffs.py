"""CellArray keeps the last sensing's coefficients (retention, read disturb, RTN scale) for
the next sensing of the same WL with the same history (the sensings of one multi-reference
page read): a sensing that reuses them is bit for bit the one that computes them afresh,
across the events that change them (bake, reads of other WLs, program, erase, wear).

Two arrays of the same seed run the same operations; one forgets the kept coefficients
before every sensing. Same kernels, same noise stream: equal bits, not merely close.
"""

from __future__ import annotations

import numpy as np
import pytest

from nandlab.profiles import Profile, load_profile
from nandlab.vchip import CellArray

BLOCK = 7
REFS_MV = (850.0, 1900.0, 3000.0)  # inside states, so stale coefficients move many cells


@pytest.fixture(scope="module")
def mlc() -> Profile:
    return load_profile("mlc-64l")


def program_wls(a: CellArray, p: Profile, wls: range, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = p.geometry.page_bytes + p.geometry.spare_bytes
    for wl in wls:
        data = {t: rng.integers(0, 256, n, dtype=np.uint8) for t in range(p.geometry.bits_per_cell)}
        assert a.program(BLOCK, wl, data, slc=False).ok


def page_reads(a: CellArray, wls: list[int], forget: bool) -> list[np.ndarray]:
    out = []
    for wl in wls:
        for ref in REFS_MV:
            if forget:
                a._coeffs = None
            out.append(a.sense(BLOCK, wl, ref, False))
    return out


def test_kept_coefficients_sense_as_fresh_ones_across_history(mlc: Profile) -> None:
    kept, fresh = CellArray(mlc, seed=5), CellArray(mlc, seed=5)
    got: list[np.ndarray] = []
    want: list[np.ndarray] = []

    def both(step: str, *args: object) -> None:
        for a in (kept, fresh):
            getattr(a, step)(*args)

    def read(wls: list[int]) -> None:
        got.extend(page_reads(kept, wls, forget=False))
        want.extend(page_reads(fresh, wls, forget=True))

    both("add_wear", BLOCK, 3000)
    for a in (kept, fresh):
        program_wls(a, mlc, range(6), seed=1)
    read([4, 4, 2, 4])
    both("elapse", 2000.0)  # retention age: new coefficients
    read([4, 4, 5])
    for a in (kept, fresh):
        program_wls(a, mlc, range(6, 8), seed=2)
    read([7, 4])
    both("erase", BLOCK)
    both("add_wear", BLOCK, 500)
    for a in (kept, fresh):
        program_wls(a, mlc, range(3), seed=3)
    read([1, 1, 2])
    assert len(got) == len(want) == 12 * len(REFS_MV)
    for g, w in zip(got, want, strict=True):
        assert np.array_equal(g, w)
    assert kept._coeffs is not None  # the kept path did keep them
