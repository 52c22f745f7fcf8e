"""What a sensing needs beyond the stored cells: the read noise and the drift cache.

`ReadNoise`: random telegraph noise, fresh for every sensing, as a slice of a
pre-drawn Laplacian table (made on first use) at a random offset; the offsets come
from a generator seeded by (seed, chip) whose state is saved with the die image.

`DriftCache`: the deterministic part of a WL's effective Vth (x - retention + rise
+ read disturb, float32, what `kernel.drift_kernel` computes), kept for the last
few WLs sensed while their key holds, so a sweep of one WL pays it once. The array
keeps each string's MWS pass resistance in a second one (any float32 row per cell
under a key works).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import numpy as np

from nandlab.vchip import physics as ph

RTN_TABLE_SIZE = 1 << 21
DRIFT_CACHE_WLS = 4


class ReadNoise:
    def __init__(self, seed: int, chip: int, cells: int) -> None:
        self.generator = np.random.Generator(
            np.random.PCG64(np.random.SeedSequence([seed, chip, ph.Stream.READ_NOISE]))
        )
        self._seed, self._chip, self._cells = seed, chip, cells
        self._size = max(RTN_TABLE_SIZE, 2 * cells)
        self._table: np.ndarray | None = None

    def offset(self) -> int:
        """A fresh table offset for one WL's sensing."""
        return int(self.generator.integers(0, self._size - self._cells + 1))

    @property
    def table(self) -> np.ndarray:
        if self._table is None:
            self._table = ph.laplace_table(self._seed, self._chip, self._size)
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
