"""The DOUT_CMP comparator as a bench without one runs it on the host (sim, FT2232H)."""

from __future__ import annotations

import numpy as np

from nandlab.analysis import chunk_bit_errors


def error_counts(read: bytes, expected: bytes, chunk: int) -> np.ndarray:
    """What the comparator of DOUT_CMP returns: per chunk (bits expected 0 read 1, bits
    expected 1 read 0), shape (chunks, 2)."""
    counts = [(e.errors_0to1, e.errors_1to0) for e in chunk_bit_errors(expected, read, chunk)]
    return np.array(counts, dtype=np.int64).reshape(-1, 2)
