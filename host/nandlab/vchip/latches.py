"""Page buffer of a virtual die: per-plane registers and how sensings combine into them.

Each plane has two registers of page + spare bytes, as ONFI describes them:
the *data register* on the array side (sensing lands here, programming reads
from here) and the *cache register* on the I/O side (data in and data out
always go through it). A plain read copies data -> cache at the end of tR; a
cache read copies data -> cache and lets the array sense the next page into
the data register meanwhile.

Sensing composition (the latch logic): a page read starts from all ones and,
for every read reference of the page type, XORs in NOT(sense) (1 where the
cell did not conduct). With a Gray code whose erased state is all ones, each
reference crossed toggles the page's bit, so the result is the page bit of
the cell's state. A soft-bit read senses each reference at ref -/+ delta and
outputs 1 where the cell lies outside every band (XNOR of the two sensings,
AND over the references).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

# sense(ref_mV) -> packed uint8, bit = 1 where the cell conducts (Vth < ref)
SenseFn = Callable[[float], np.ndarray]


class PlaneRegisters:
    """Data and cache registers of one plane (page + spare bytes each)."""

    def __init__(self, nbytes: int) -> None:
        self.data = np.full(nbytes, 0xFF, dtype=np.uint8)
        self.cache = np.full(nbytes, 0xFF, dtype=np.uint8)

    def data_to_cache(self) -> None:
        self.cache[:] = self.data

    def cache_to_data(self) -> None:
        self.data[:] = self.cache

    def clear_cache(self) -> None:
        """PROGRAM (80h) clears the cache register: bytes not loaded stay FFh."""
        self.cache.fill(0xFF)

    def write(self, column: int, data: bytes) -> None:
        """Data in at `column`; bytes past the end of the register are dropped."""
        end = min(len(self.cache), column + len(data))
        if end > column:
            self.cache[column:end] = np.frombuffer(data[: end - column], dtype=np.uint8)

    def read(self, column: int, n: int) -> bytes:
        """Data out from `column`; bytes past the end of the register read FFh."""
        chunk = bytes(self.cache[column : column + n]) if column < len(self.cache) else b""
        return chunk + b"\xff" * (n - len(chunk))


def sense_page(sense: SenseFn, refs_mV: Sequence[float], nbytes: int) -> np.ndarray:
    """Page bits from one sensing per reference (Gray code: each crossing toggles)."""
    bits = np.full(nbytes, 0xFF, dtype=np.uint8)
    for ref in refs_mV:
        bits ^= ~sense(ref)
    return bits


def sense_soft_bits(
    sense: SenseFn, refs_mV: Sequence[float], delta_mV: float, nbytes: int
) -> np.ndarray:
    """1 where the cell is outside every band [ref - delta, ref + delta)."""
    bits = np.full(nbytes, 0xFF, dtype=np.uint8)
    for ref in refs_mV:
        below = sense(ref - delta_mV)
        above = sense(ref + delta_mV)
        bits &= ~(below ^ above)
    return bits
