"""What a sensing needs beyond the stored cells: the read noise and the drift cache.

`ReadNoise`: random telegraph noise, a Laplacian fresh for every sensing. Its body
(|RTN| <= physics.RTN_TAIL_UNITS) is a slice of a table of the body's quantiles, shuffled,
at a random offset; its tail, the cells of the sensing beyond that (e^-7 of them), is drawn
cell by cell by the kernels from a 64-bit key (kernel._rtn_tail), so the tail is exact and
not capped by the table's largest entry. The offsets and keys come from a generator seeded
by (seed, chip) whose state is saved with the die image.

`DriftCache`: the deterministic part of a WL's effective Vth (x - retention + rise
+ read disturb, float32, what `kernel.drift_kernel` computes), kept for the last
few WLs sensed while their key holds, so a sweep of one WL pays it once. The array
keeps each string's MWS pass resistance in a second one (any float32 row per cell
under a key works).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import NamedTuple

import numpy as np

from nandlab.vchip import physics as ph

RTN_TABLE_SIZE = 1 << 21
DRIFT_CACHE_WLS = 4


class NoiseDraw(NamedTuple):
    """One sensing's read noise: the body table's slice at `offset`, the tail from `key`."""

    offset: int
    key: np.uint64


class ReadNoise:
    def __init__(self, seed: int, chip: int, cells: int) -> None:
        self.generator = np.random.Generator(
            np.random.PCG64(np.random.SeedSequence([seed, chip, ph.Stream.READ_NOISE]))
        )
        self._seed, self._chip, self._cells = seed, chip, cells
        self._size = max(RTN_TABLE_SIZE, 2 * cells)
        self._span = np.uint64(self._size - self._cells + 1)
        self._table: np.ndarray | None = None

    def draw(self) -> NoiseDraw:
        """The noise of one WL's sensing: a table offset and a tail key."""
        raw = self.generator.bit_generator.random_raw(2)
        return NoiseDraw(int(raw[0] % self._span), raw[1])

    @property
    def table(self) -> np.ndarray:
        if self._table is None:
            self._table = ph.laplace_body_table(self._seed, self._chip, self._size)
        return self._table


class DriftCache:
    def __init__(self, cells: int, capacity: int = DRIFT_CACHE_WLS) -> None:
        self._cells = cells
        self._capacity = capacity
        # (block, wl) -> (key, drifted Vth float32), oldest first
        self.entries: dict[tuple[int, int], tuple[Hashable, np.ndarray]] = {}

    def get(
        self, where: tuple[int, int], key: Hashable, fill: Callable[[np.ndarray], None]
    ) -> np.ndarray:
        """The drifted Vth of WL `where` for `key`; on a miss `fill` computes it into a
        buffer (the WL's stale one, else the oldest entry's, else a new one)."""
        hit = self.entries.get(where)
        if hit is not None and hit[0] == key:
            return hit[1]
        if hit is not None:
            del self.entries[where]
            out = hit[1]
        elif len(self.entries) >= self._capacity:
            out = self.entries.pop(next(iter(self.entries)))[1]  # the oldest entry
        else:
            out = np.empty(self._cells, dtype=np.float32)
        fill(out)
        self.entries[where] = (key, out)
        return out

    def clear(self) -> None:
        self.entries.clear()
