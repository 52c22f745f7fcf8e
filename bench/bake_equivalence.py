"""Bake equivalence as a measured result: a 1.1 eV (JEDEC) bake at 85 C against the year at
30 C it stands for, per thermally activated mechanism of every built-in virtual profile.

Each mechanism of the virtual die keeps its own Arrhenius clock (physics.Clock). For each
profile this prints, per mechanism, its activation energy, the effective age the bake gives
it against the 8760 h of a real year, and the error of the quantity the mechanism's shift
is proportional to (its dose: ln(1 + t/t0) for the slow charge loss and the erased-state
shift, 1 - exp(-t/tau) for the fast de-trapping). Then, measured through sensing on a
10K P/E block, the median Vth of erased and of top-state WLs after the bake and after the
real year (the erased state moves by the erased-state shift, the top state by charge loss).

    .venv/bin/python bench/bake_equivalence.py [--profiles a,b]
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from nandlab.profiles import builtin_names, load_profile
from nandlab.profiles.model import Profile
from nandlab.vchip import CellArray
from nandlab.vchip import physics as ph

YEAR_H = 8760.0
USE_C, BAKE_C, JEDEC_EV = 30.0, 85.0, 1.1


def _dose(prof: Profile, clock: ph.Clock, age_h: float) -> float | None:
    phys = prof.physics
    if clock is ph.Clock.FAST_DETRAP:
        fast = phys.fast_charge_loss
        return None if fast is None else -math.expm1(-age_h / fast.tau_h)
    if clock is ph.Clock.ERASED_SHIFT and phys.erased_shift is None:
        return None
    return math.log1p(age_h / phys.retention_t0_h)


def _aged(prof: Profile, bake_h: float | None) -> CellArray:
    """A 10K P/E block with erased (all ones) and top-state (all zeros) WLs, aged a year."""
    a = CellArray(prof, seed=7)
    a.add_wear(2, 10_000)
    a.erase(2)
    nbytes = prof.geometry.page_bytes + prof.geometry.spare_bytes
    bits = prof.geometry.bits_per_cell
    for k, wl in enumerate(WLS):
        fill = 0xFF if k % 2 == 0 else 0x00
        a.program(2, wl * prof.geometry.sub_blocks,
                  {p: np.full(nbytes, fill, np.uint8) for p in range(bits)}, slc=False)
    if bake_h is None:
        a.elapse(YEAR_H, USE_C)
    else:
        a.bake(BAKE_C, bake_h)
    return a


WLS = range(4)  # WL x sub_blocks: erased, top, erased, top


def _median_mV(a: CellArray, prof: Profile, state: int, lo: float, hi: float) -> float:
    """Median Vth (mV) of the WLs holding `state` (0 erased, 1 top), from a fixed sweep
    of references (the same reads on every array, so read disturb is the same)."""
    wls = [w * prof.geometry.sub_blocks for k, w in enumerate(WLS) if k % 2 == state]
    n = prof.geometry.cells_per_wl * len(wls)
    refs = np.arange(lo, hi, 10.0)
    conducting = [sum(int(np.unpackbits(a.sense(2, wl, r, False)).sum()) for wl in wls)
                  for r in refs]
    return float(np.interp(n / 2, conducting, refs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profiles", default=",".join(builtin_names()))
    args = ap.parse_args()
    bake_h = YEAR_H / ph.acceleration(JEDEC_EV, USE_C, BAKE_C)
    print(f"# 1 year at {USE_C:g} C vs {bake_h:.2f} h at {BAKE_C:g} C (planned with "
          f"{JEDEC_EV} eV), per mechanism")
    print("(dose error also for 1 day at 30 C and its bake, where a fast mechanism has not "
          "saturated)")
    print(f"{'profile':<11} {'mechanism':<13} {'Ea eV':>6} {'age h':>9} {'dose err':>9}"
          f" {'1 day':>9}")
    for name in args.profiles.split(","):
        prof = load_profile(name)
        errs: dict[ph.Clock, list[str]] = {c: [] for c in ph.Clock}
        ages: dict[ph.Clock, float] = {}
        for use_h in (YEAR_H, 24.0):
            baked = ph.advance(prof.physics, (0.0, 0.0, 0.0), BAKE_C, use_h * bake_h / YEAR_H)
            for clock in ph.Clock:
                real, bake = _dose(prof, clock, use_h), _dose(prof, clock, baked[clock])
                if real is not None and bake is not None:
                    errs[clock].append(f"{100.0 * (bake / real - 1.0):+8.2f}%")
                    ages.setdefault(clock, baked[clock])
        for clock, ea in zip(ph.Clock, ph.clock_energies(prof.physics), strict=True):
            if errs[clock]:
                print(f"{name:<11} {clock.name.lower():<13} {ea:6.2f} {ages[clock]:9.0f} "
                      + " ".join(errs[clock]))
        phys = prof.physics
        top = phys.verify_mV[-1]
        windows = ((0, "erased", phys.erased_mean_mV - 1500, phys.erased_mean_mV + 1500),
                   (1, "top state", top - 1200, top + 400))
        arrays = {"real": _aged(prof, None), "bake": _aged(prof, bake_h)}
        for state, label, lo, hi in windows:
            real, bake = (_median_mV(arrays[k], prof, state, lo, hi) for k in ("real", "bake"))
            print(f"{name:<11} {'median ' + label:<20} real {real:8.1f} mV  bake {bake:8.1f}"
                  f" mV  bake - real {bake - real:+6.1f} mV")

if __name__ == "__main__":
    main()
