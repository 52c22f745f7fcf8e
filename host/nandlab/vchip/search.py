"""The virtual SiM die's search engine (protocol and page format in `nandlab.onfi_spec.search`).

`SearchEngine` runs the Search-in-Memory commands of a part whose profile
declares `vendor.search`. It keeps the paper's latches apart: L1 is the plane's
data register (where page-open senses), the *active page* is the search operand
(the paper's Latch 2), and a page loaded by page-open-cache waits in L1 until
page-close promotes it. A page-open is an ordinary SLC read of the array
(tR, physics, bit errors and all); search and gather work on the SENSED bits,
so raw bit errors show up in bitmaps and gathered chunks exactly as they would
on silicon; the die never corrects anything.

A search randomises the key with each slot's stream (the deserializer), XORs
it with the active page (Latch 3 = Latch 2 XOR Latch 4), keeps the masked
positions and counts failed bits per 64-bitline group: a slot is reported when
its count is at most the search's threshold t (the comparator's reference, as
program-verify compares the same counter with its pass limit; t = 0 is the
paper's exact match). Its busy time is the profile's t_search_us; the I/O of every
command is clocked by the die's bus like any other data cycle.
"""

from __future__ import annotations

from enum import Enum, auto

import numpy as np

from nandlab.onfi_spec.search import (
    BITMAP_BYTES,
    CHUNK_BYTES,
    CHUNK_ECC_BYTES,
    CHUNK_MAP_BYTES,
    CHUNKS,
    KEY_BYTES,
    MAX_THRESHOLD,
    SEARCH_DIN_BYTES,
    SLOT_BYTES,
    SLOTS,
    bitmap_bits,
    bits_to_bitmap,
    page_stream,
)
from nandlab.vchip.array_ops import ArrayOps
from nandlab.vchip.clock import US
from nandlab.vchip.parts import DiePart, DieParts
from nandlab.vchip.power import Phase


class _Seq(Enum):
    OPEN = auto()
    SEARCH = auto()
    GATHER = auto()


class _Page:
    """A sensed page in the SiM latches: its address and stored bytes (data + spare)."""

    def __init__(self, block: int, page: int, stored: np.ndarray) -> None:
        self.block, self.page, self.stored = block, page, stored
        self.stream = page_stream(block, page).reshape(SLOTS, SLOT_BYTES)


class SearchEngine(DiePart):
    """page-open, page-open-cache, page-close, search and gather on one die."""

    def __init__(self, parts: DieParts, ops: ArrayOps) -> None:
        super().__init__(parts)
        self._ops = ops
        self._page_bytes = parts.profile.geometry.page_bytes
        self.reset()

    def reset(self) -> None:
        """RESET: no active page, nothing pending, no open sequence."""
        self.active: _Page | None = None
        self.pending: _Page | None = None
        self._seq: _Seq | None = None
        self._addr: list[int] = []
        self._din = bytearray()
        self._out = b""
        self._column = 0

    def cmd(self, byte: int) -> bool:
        """A command cycle; False when it is not a SiM command (any open SiM sequence ends)."""
        s = self._profile.vendor.search
        seq, self._seq = self._seq, None
        if s is None:
            return False
        if seq is _Seq.OPEN and byte in (s.open_confirm, s.open_cache_confirm):
            self._open(byte == s.open_cache_confirm)
        elif seq is _Seq.SEARCH and byte == s.search_confirm:
            self._search()
        elif seq is _Seq.GATHER and byte == s.gather_confirm:
            self._gather()
        elif byte in (s.open_cmd, s.search_cmd, s.gather_cmd):
            self._seq = {s.open_cmd: _Seq.OPEN, s.search_cmd: _Seq.SEARCH}.get(byte, _Seq.GATHER)
            self._addr, self._din = [], bytearray()
        elif byte == s.close_cmd:
            self._close()
        else:
            return False
        return True

    def addr(self, byte: int) -> None:
        if self._seq is _Seq.OPEN:
            self._addr.append(byte & 0xFF)

    def write(self, data: bytes) -> None:
        if self._seq in (_Seq.SEARCH, _Seq.GATHER):
            self._din += data

    def read(self, n: int) -> bytes:
        """Data out of the last command's output (FFh past its end)."""
        out = self._out[self._column : self._column + n]
        self._column += n
        return out + b"\xff" * (n - len(out))

    def _output(self, data: bytes) -> None:
        self._out, self._column = data, 0

    def _open(self, cache: bool) -> None:
        self._output(b"")
        t = self._addresses.decode_row(self._addr)
        if not t.valid:
            self._clock.record(self._clock.array_start(), {t.plane: True})
            return
        self._ops.read(t, soft=False, copyback=False)
        page = _Page(t.block, t.page, self._buffer.planes[t.plane].data.copy())
        if cache and self.active is not None:
            self.pending = page
            return
        self.active, self.pending = page, None
        self._output(page.stored.tobytes())

    def _close(self) -> None:
        self.active, self.pending = self.pending, None
        self._output(b"" if self.active is None else self.active.stored.tobytes())

    def _busy(self, us: float) -> None:
        clock = self._clock
        start = clock.array_start()
        end = start + round(us * US)
        clock.power.add(start, end, Phase.IO)
        clock.complete(end)

    def _search(self) -> None:
        s, page = self._profile.vendor.search, self.active
        self._output(b"")
        if page is None or s is None or len(self._din) < SEARCH_DIN_BYTES:
            return
        threshold = self._din[2 * KEY_BYTES]
        if threshold > MAX_THRESHOLD:
            return
        key = np.frombuffer(bytes(self._din[:KEY_BYTES]), dtype=np.uint8)
        mask = np.frombuffer(bytes(self._din[KEY_BYTES : 2 * KEY_BYTES]), dtype=np.uint8)
        data = page.stored[: SLOTS * SLOT_BYTES].reshape(SLOTS, SLOT_BYTES)
        latch3 = (data ^ (key ^ page.stream)) & mask
        failed_bits = np.unpackbits(latch3, axis=1).sum(axis=1)  # one count per 64 bitlines
        self._busy(s.t_search_us)
        self._output(bits_to_bitmap(failed_bits <= threshold)[:BITMAP_BYTES])

    def _gather(self) -> None:
        page = self.active
        self._output(b"")
        if page is None or len(self._din) < CHUNK_MAP_BYTES:
            return
        chosen = bitmap_bits(bytes(self._din[:CHUNK_MAP_BYTES]))[:CHUNKS]
        stored, spare = page.stored, self._page_bytes
        parts = []
        for c in np.flatnonzero(chosen):
            parts.append(stored[c * CHUNK_BYTES : (c + 1) * CHUNK_BYTES].tobytes())
            ecc = spare + c * CHUNK_ECC_BYTES
            parts.append(stored[ecc : ecc + CHUNK_ECC_BYTES].tobytes())
        self._output(b"".join(parts))
