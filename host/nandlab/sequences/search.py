"""Search-in-Memory sequences: page-open (and its cache form), page-close, search, gather.

The byte protocol and page format are in `nandlab.onfi_spec.search`; the
command bytes come from the profile's `vendor.search` section (contract 3).
Each function returns an op program fragment without CE, like `sequences.core`.
"""

from __future__ import annotations

from nandlab.onfi_spec.sdr_timing import SdrTiming
from nandlab.onfi_spec.search import (
    BITMAP_BYTES,
    CHUNK_MAP_BYTES,
    GATHER_UNIT,
    bitmap_bits,
    search_din,
)
from nandlab.ops import Program
from nandlab.profiles.search_model import Search
from nandlab.sequences.core import address, busy, data_in, data_out


def page_open(t: SdrTiming, s: Search, row: bytes, sample: int, timeout_ns: int) -> Program:
    """page-open of the page at `row`: busy tR, then `sample` bytes from column 0
    (the verification read; 0 = none)."""
    prog = Program().cmd(s.open_cmd) + address(row) + Program().cmd(s.open_confirm)
    prog += busy(t, timeout_ns)
    return prog + data_out(t, sample) if sample else prog


def page_open_cache(t: SdrTiming, s: Search, row: bytes, timeout_ns: int) -> Program:
    """page-open-cache: sense the page at `row` into L1; the active page stays."""
    prog = Program().cmd(s.open_cmd) + address(row) + Program().cmd(s.open_cache_confirm)
    return prog + busy(t, timeout_ns)


def page_close(t: SdrTiming, s: Search, sample: int) -> Program:
    """page-close; a page that page-open-cache loaded becomes active: `sample` bytes of it."""
    prog = Program().cmd(s.close_cmd)
    return prog + data_out(t, sample) if sample else prog


def search(
    t: SdrTiming, s: Search, key: bytes, mask: bytes, threshold: int, timeout_ns: int
) -> Program:
    """search(key, mask, threshold) on the active page: the 64-byte bitmap of the slots
    within `threshold` failed bits of the key (0: the exact match)."""
    din = search_din(key, mask, threshold)
    prog = Program().cmd(s.search_cmd) + data_in(t, din) + Program().cmd(s.search_confirm)
    return prog + busy(t, timeout_ns) + data_out(t, BITMAP_BYTES)


def gather(t: SdrTiming, s: Search, chunks: bytes) -> Program:
    """gather(chunk bitmap) on the active page: each chosen chunk with its ECC bytes."""
    if len(chunks) != CHUNK_MAP_BYTES:
        raise ValueError(f"the chunk bitmap is {CHUNK_MAP_BYTES} bytes")
    n = int(bitmap_bits(chunks).sum()) * GATHER_UNIT
    prog = Program().cmd(s.gather_cmd) + data_in(t, chunks) + Program().cmd(s.gather_confirm)
    return prog + data_out(t, n) if n else prog
