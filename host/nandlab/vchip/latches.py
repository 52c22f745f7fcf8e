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

from nandlab.onfi_spec.testmode import Node

# sense(ref_mV) -> packed uint8, bit = 1 where the cell conducts (Vth < ref)
SenseFn = Callable[[float], np.ndarray]


class PlaneRegisters:
    """Data and cache registers of one plane (page + spare bytes each), seen as the two
    latches of the page buffer: L1 (node A = data register, C = not A) and L2 (node OUT =
    cache register, B = not OUT), plus the sense node SO of the last latch sensing.

    Transistor steps (ParaBit, Fig. 2-7): M1 pulls C down where SO = 1 (A |= SO), M2 pulls
    A down where SO = 1 (A &= ~SO), M3 pulls B down where A = 1 (OUT |= A)."""

    def __init__(self, nbytes: int) -> None:
        self.data = np.full(nbytes, 0xFF, dtype=np.uint8)
        self.cache = np.full(nbytes, 0xFF, dtype=np.uint8)
        self.so = np.zeros(nbytes, dtype=np.uint8)
        self.out_node = Node.OUT  # node that data out reads (a test-mode selection)

    def data_to_cache(self) -> None:
        self.cache[:] = self.data
        self.out_node = Node.OUT

    def cache_to_data(self) -> None:
        self.data[:] = self.cache

    def clear_cache(self) -> None:
        """PROGRAM (80h) clears the cache register: bytes not loaded stay FFh."""
        self.cache.fill(0xFF)
        self.out_node = Node.OUT

    # -- latch micro-operations (test mode)

    def node(self, which: Node) -> np.ndarray:
        """A copy of a node's bits (packed, 1 = high)."""
        if which is Node.SO:
            return self.so.copy()
        if which is Node.A:
            return self.data.copy()
        if which is Node.C:
            return ~self.data
        if which is Node.B:
            return ~self.cache
        return self.cache.copy()

    def m1(self, invert_so: bool = False) -> None:
        """M1: C = C & ~SO, A = ~C, i.e. A |= SO (or |= ~SO through the extra inverter)."""
        self.data |= ~self.so if invert_so else self.so

    def m2(self, invert_so: bool = False) -> None:
        """M2: A = A & ~SO (or & SO through the extra inverter), C = ~A."""
        self.data &= self.so if invert_so else ~self.so

    def m3(self) -> None:
        """M3: B = B & ~A, OUT = ~B, i.e. OUT |= A (S-latch to C-latch transfer)."""
        self.cache |= self.data

    def init_l1(self, inverted: bool = False) -> None:
        """L1 initialisation: A = 1, C = 0 (Fig. 2) or A = 0, C = 1 (inverted, Fig. 7)."""
        self.data.fill(0x00 if inverted else 0xFF)

    def init_l2(self) -> None:
        """L2 initialisation: B = 1, OUT = 0."""
        self.cache.fill(0x00)

    def xor_to_cache(self) -> None:
        """XOR between the latches, into the C-latch: OUT = A ^ OUT."""
        self.cache ^= self.data

    def load(self, which: Node, column: int, data: bytes) -> None:
        """Data in straight into node A or OUT (test-mode data load)."""
        reg = self.data if which is Node.A else self.cache
        end = min(len(reg), column + len(data))
        if end > column:
            reg[column:end] = np.frombuffer(data[: end - column], dtype=np.uint8)

    def write(self, column: int, data: bytes) -> None:
        """Data in at `column`; bytes past the end of the register are dropped."""
        end = min(len(self.cache), column + len(data))
        if end > column:
            self.cache[column:end] = np.frombuffer(data[: end - column], dtype=np.uint8)

    def read(self, column: int, n: int) -> bytes:
        """Data out from `column` (of the selected node, OUT unless a test-mode operation
        chose another); bytes past the end of the register read FFh."""
        reg = self.cache if self.out_node is Node.OUT else self.node(self.out_node)
        chunk = bytes(reg[column : column + n]) if column < len(reg) else b""
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


class PageBuffer:
    """The registers of every plane, and which plane's data register holds the last sensing
    (what a cache read moves to the I/O side)."""

    def __init__(self, planes: int, nbytes: int) -> None:
        self.planes = [PlaneRegisters(nbytes) for _ in range(planes)]
        self.sensed_plane = 0
