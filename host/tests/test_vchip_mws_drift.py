"""MWS takes a selected WL's drifted Vth from the array's drift cache (a strobe search
senses the same WLs again and again): its bits equal those of a twin array without the
cache, sensing after sensing, across repeats, new WL sets, a bake and a program of the
block (each changes the WL's drift and must not be served stale).

Both paths compute the drifted Vth with the same kernel, so the bits are equal exactly,
not up to rounding."""

from __future__ import annotations

import numpy as np

from nandlab.profiles import load_profile
from nandlab.vchip import CellArray

BLOCKS = (2, 4, 6, 8)  # one plane: MWS across blocks shares the bitlines
WLS = 12


def _twins() -> tuple[CellArray, CellArray]:
    p = load_profile("tlc-48l")
    n = p.geometry.page_bytes + p.geometry.spare_bytes
    cached, plain = CellArray(p, seed=5), CellArray(p, seed=5)
    plain.sense_cache = False
    for arr in (cached, plain):
        rng = np.random.default_rng(3)
        for b in BLOCKS:
            arr.add_wear(b, 2000)
            for wl in range(WLS):
                data = {0: rng.integers(0, 256, n, dtype=np.uint8)}
                assert arr.program(b, wl, data, slc=True).ok
        arr.elapse(500.0)
    return cached, plain


def test_mws_on_kept_drift_equals_mws_without_the_cache() -> None:
    cached, plain = _twins()
    ref = cached.profile.physics.slc_verify_mV
    strobes = (25.0, 40.0, 60.0)
    sets = [[(BLOCKS[0], [1])], [(b, [3]) for b in BLOCKS], [(BLOCKS[1], [5, 9])]]
    discharged = []

    def both(groups: list[tuple[int, list[int]]], strobe: float) -> None:
        a = cached.sense_mws(groups, ref, strobe)
        b = plain.sense_mws(groups, ref, strobe)
        assert np.array_equal(a, b), (groups, strobe)
        discharged.append(np.unpackbits(a).mean())

    for groups in sets:
        for strobe in strobes:  # the same WLs again: served from the kept drift
            both(groups, strobe)
        rows = {(b, wl) for b, wls in groups for wl in wls}
        assert rows <= set(cached._drift.entries), f"MWS rows {rows} not kept"
    for arr in (cached, plain):
        arr.bake(85.0, 20.0)
    both(sets[1], 40.0)
    n = cached.profile.geometry.page_bytes + cached.profile.geometry.spare_bytes
    for arr in (cached, plain):
        assert arr.program(BLOCKS[2], WLS, {0: np.zeros(n, np.uint8)}, slc=True).ok
    both(sets[1], 40.0)
    # no sensing was one answer for every bitline (a reference or strobe outside the
    # states), and the one-WL ones split the bitlines (four blocks OR to mostly 1s)
    assert min(discharged) > 0.0 and max(discharged) < 1.0
    assert min(discharged) < 0.8
