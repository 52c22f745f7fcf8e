"""The memory floor of one sensing of a WL, for bench/page_sense.py and bench/op_speed.py.

A sensing with the die's physics must read, per cell, the stored Vth (int16), the
cell's personality (int8: its retention and disturb spread) and a fresh RTN value
(an int16 slice of the noise table), and write one bit. The floor is one pass that
touches exactly that, with the least arithmetic that uses every input (an integer
sum compared with the reference), and packs the bits: what no sensing of this state
can beat. `vth_floor_us` is the narrower pass over the stored Vth alone (the floor of
a read that had no physics to apply).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from numba import njit


@njit(cache=True)
def _touch(vth: np.ndarray, pers: np.ndarray, rtn: np.ndarray, ref: int, out: np.ndarray) -> None:
    for i in range(vth.shape[0]):
        out[i] = np.int32(vth[i]) + np.int32(pers[i]) + np.int32(rtn[i]) < ref


def best_us(fn: Callable[[], object], repeats: int) -> float:
    """Best CPU time of `repeats` calls, in microseconds."""
    best = float("inf")
    for _ in range(repeats):
        c0 = time.process_time()
        fn()
        best = min(best, time.process_time() - c0)
    return best * 1e6


def _inputs(cells: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    vth = rng.integers(-2000, 6000, cells).astype(np.int16)
    pers = rng.integers(-128, 128, cells).astype(np.int8)
    table = rng.integers(-300, 300, max(1 << 21, 2 * cells)).astype(np.int16)
    off = int(rng.integers(0, table.size - cells))
    return vth, pers, table[off : off + cells]


def touch_floor_us(cells: int, repeats: int = 50) -> float:
    """CPU microseconds of the floor of one sensing of `cells` cells (best of `repeats`)."""
    vth, pers, rtn = _inputs(cells)
    out = np.empty(cells, dtype=np.bool_)

    def sense() -> None:
        _touch(vth, pers, rtn, 1200, out)
        np.packbits(out, bitorder="little")

    sense()  # compile / load
    return best_us(sense, repeats)


def vth_floor_us(cells: int, repeats: int = 50) -> float:
    """CPU microseconds of comparing the int16 Vth alone and packing the bits."""
    vth, _, _ = _inputs(cells)
    ref = np.int16(1200)
    return best_us(lambda: np.packbits(vth < ref, bitorder="little"), repeats)
