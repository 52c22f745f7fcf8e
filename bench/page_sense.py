"""Page-sense cost of the virtual die against the memory floor.

Programs one WL of mlc-64l (16 KiB + spare page), then times, in this run (CPU
time, best of N): (a) CellArray.sense() of that WL with the full physics
(retention, read disturb, RTN) at one reference, computed from scratch every time
(the drift cache off); (b) the floor of what that sensing must touch: one pass over
the cells' int16 Vth, int8 personality and int16 RTN slice, bits packed
(bench/sense_floor.py); (c) the narrower floor over the stored Vth alone. Prints
the ratios (goal: full within 1.5x of the floor), and the cached path (drift cache
on: what a sweep of one WL pays per sensing after its first; fresh RTN every
sensing).

    python bench/page_sense.py [--repeats N]
"""

from __future__ import annotations

import argparse

import numpy as np
from nandlab.profiles import load_profile
from nandlab.vchip import CellArray
from sense_floor import best_us, touch_floor_us, vth_floor_us

PROFILE = "mlc-64l"
BLOCK = 1
WL = 0
GOAL = 1.5


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=200)
    args = ap.parse_args()

    profile = load_profile(PROFILE)
    g = profile.geometry
    array = CellArray(profile, seed=1)
    rng = np.random.default_rng(1)
    nbytes = g.page_bytes + g.spare_bytes
    pages = {
        pt: rng.integers(0, 256, nbytes, dtype=np.uint8)
        for pt in range(g.bits_per_cell)
    }
    array.add_wear(BLOCK, 3000)
    assert array.program(BLOCK, WL, pages, slc=False).ok
    array.elapse(8760.0)  # retention and wear terms are live, not zero
    ref = profile.read_offsets.references[1].default_mV

    array.sense_cache = False
    array.sense(BLOCK, WL, ref, slc=False)  # JIT / cache load, RTN table
    full = best_us(lambda: array.sense(BLOCK, WL, ref, slc=False), args.repeats)
    array.sense_cache = True
    array.sense(BLOCK, WL, ref, slc=False)  # fills the drift cache
    cached = best_us(lambda: array.sense(BLOCK, WL, ref, slc=False), args.repeats)
    floor = touch_floor_us(g.cells_per_wl, args.repeats)
    vth_only = vth_floor_us(g.cells_per_wl, args.repeats)
    verdict = "ok" if full <= GOAL * floor else f"> {GOAL}"
    print(f"cells_per_wl: {g.cells_per_wl}")
    print(f"page_sense_full_us: {full:.1f}")
    print(f"page_sense_floor_us: {floor:.1f} (Vth + personality + RTN touched once, bits packed)")
    print(f"page_sense_ratio: {full / floor:.2f} (lower is better, goal <= {GOAL}: {verdict})")
    print(f"page_sense_cached_us: {cached:.1f} (ratio {cached / floor:.2f}, drift cache hit)")
    print(f"page_sense_vth_floor_us: {vth_only:.1f} (stored Vth alone; full / it "
          f"{full / vth_only:.2f})")


if __name__ == "__main__":
    main()
