"""Page-sense cost of the virtual die against the memory-bound floor.

Programs one WL of mlc-64l (16 KiB + spare page), then times, in this run:
(a) CellArray.sense() of that WL with the full physics (retention, read
disturb, RTN) at one reference, computed from scratch every time (the drift
cache off), and (b) the floor: packing a plain comparison of the same WL's
stored int16 Vth with the reference. Prints the ratio, and on a separate line
the cached path (drift cache on: what a sweep of one WL pays per sensing after
its first; fresh RTN every sensing).

    python bench/page_sense.py [--repeats N]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from nandlab.profiles import load_profile
from nandlab.vchip import CellArray

PROFILE = "mlc-64l"
BLOCK = 1
WL = 0


def best_us(fn: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1e6


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
    stored = array._blocks[BLOCK].wls[WL].vth
    ref_i16 = np.int16(ref)

    array.sense_cache = False
    array.sense(BLOCK, WL, ref, slc=False)  # JIT / cache load, RTN table
    full = best_us(lambda: array.sense(BLOCK, WL, ref, slc=False), args.repeats)
    array.sense_cache = True
    array.sense(BLOCK, WL, ref, slc=False)  # fills the drift cache
    cached = best_us(lambda: array.sense(BLOCK, WL, ref, slc=False), args.repeats)
    floor = best_us(
        lambda: np.packbits(stored < ref_i16, bitorder="little"), args.repeats
    )
    print(f"cells_per_wl: {g.cells_per_wl}")
    print(f"page_sense_full_us: {full:.1f}")
    print(f"page_sense_floor_us: {floor:.1f}")
    print(f"page_sense_ratio: {full / floor:.2f} (lower is better, goal <= 10)")
    print(f"page_sense_cached_us: {cached:.1f} (ratio {cached / floor:.2f}, drift cache hit)")


if __name__ == "__main__":
    main()
