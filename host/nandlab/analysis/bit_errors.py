"""Bit errors of read data against the data written, split by direction.

0->1: a cell written 0 (programmed) read as 1 (erased side); 1->0 the other way.
Counting works on packed page bytes (cell j = bit j % 8 of byte j // 8): the
errors are the set bits of (~written & read) and (written & ~read), counted
with one popcount per byte, so a 16 KiB page costs a few vector operations.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from nandlab.analysis.rate import Rate, format_rate

K = TypeVar("K", bound=Hashable)

Bytes = bytes | bytearray | memoryview | np.ndarray


@dataclass(frozen=True)
class BitErrors:
    """Bits compared and the errors found, each direction apart."""

    bits: int
    errors_0to1: int
    errors_1to0: int

    @property
    def errors(self) -> int:
        return self.errors_0to1 + self.errors_1to0

    @property
    def rber(self) -> float:
        """Measured raw bit error rate (0.0 for zero errors: see `rate` for its bound)."""
        return self.errors / self.bits if self.bits else 0.0

    def rate(self, confidence: float = 0.95) -> Rate:
        """The error rate with its confidence interval."""
        return Rate(self.errors, self.bits, confidence)

    def as_row(self) -> dict[str, int | float]:
        """The dataset columns of a bit-error measurement (contract 4)."""
        return {
            "bits": self.bits,
            "errors_0to1": self.errors_0to1,
            "errors_1to0": self.errors_1to0,
            "rber": self.rber,
        }

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> BitErrors:
        """The bit errors a dataset row records (contract 4 columns)."""
        return cls(int(row["bits"]), int(row["errors_0to1"]), int(row["errors_1to0"]))

    def rate_columns(self, confidence: float = 0.95) -> dict[str, Any]:
        """Pooled-table columns: measured rate, its interval bounds and its text."""
        rate = self.rate(confidence)
        low, high = rate.interval
        return {
            "rber": rate.value,
            "rber_low": low,
            "rber_high": high,
            "rber_text": format_rate(self.errors, self.bits),
        }

    def __add__(self, other: BitErrors) -> BitErrors:
        return BitErrors(
            self.bits + other.bits,
            self.errors_0to1 + other.errors_0to1,
            self.errors_1to0 + other.errors_1to0,
        )


def pool_bit_errors(
    rows: Iterable[Mapping[str, Any]], key: Callable[[Mapping[str, Any]], K | None]
) -> dict[K, tuple[BitErrors, int]]:
    """Bit errors of `rows` summed per `key(row)` (rows whose key is None are left out), with
    the number of rows pooled, in first-seen order."""
    out: dict[K, tuple[BitErrors, int]] = {}
    for row in rows:
        k = key(row)
        if k is None:
            continue
        seen, n = out.get(k, (BitErrors(0, 0, 0), 0))
        out[k] = (seen + BitErrors.from_row(row), n + 1)
    return out


def _packed(data: Bytes) -> np.ndarray:
    if isinstance(data, np.ndarray):
        return data.astype(np.uint8, copy=False).ravel()
    return np.frombuffer(bytes(data), dtype=np.uint8)


def _popcount(a: np.ndarray) -> int:
    return int(np.bitwise_count(a).sum(dtype=np.int64))


def bit_errors(written: Bytes, read: Bytes) -> BitErrors:
    """Bit errors of `read` (page bytes) against `written`; both the same length."""
    w, r = _packed(written), _packed(read)
    if w.size != r.size:
        raise ValueError(f"lengths differ: written {w.size} bytes, read {r.size}")
    return BitErrors(int(w.size) * 8, _popcount(~w & r), _popcount(w & ~r))


def chunk_error_counts(written: Bytes, read: Bytes, chunk_bytes: int) -> np.ndarray:
    """Per chunk of `chunk_bytes` (the last may be shorter): (errors 0->1, errors 1->0), an
    int64 array of shape (chunks, 2), as an on-board comparator returns them (DOUT_CMP)."""
    if chunk_bytes <= 0:
        raise ValueError(f"chunk_bytes must be > 0, got {chunk_bytes}")
    w, r = _packed(written), _packed(read)
    if w.size != r.size:
        raise ValueError(f"lengths differ: written {w.size} bytes, read {r.size}")
    if w.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    starts = np.arange(0, w.size, chunk_bytes)
    up = np.add.reduceat(np.bitwise_count(~w & r).astype(np.int64), starts)
    down = np.add.reduceat(np.bitwise_count(w & ~r).astype(np.int64), starts)
    return np.stack([up, down], axis=1)


def chunk_bit_errors(written: Bytes, read: Bytes, chunk_bytes: int) -> list[BitErrors]:
    """Bit errors per chunk of `chunk_bytes` (the last chunk may be shorter)."""
    counts = chunk_error_counts(written, read, chunk_bytes)
    size = len(_packed(written))
    sizes = [min(chunk_bytes, size - start) * 8 for start in range(0, size, chunk_bytes)]
    return [BitErrors(n, int(u), int(d)) for n, (u, d) in zip(sizes, counts, strict=True)]


def cell_bit_errors(written: np.ndarray, read: np.ndarray) -> BitErrors:
    """Bit errors of unpacked cells (one 0/1 value per cell, as schemes return results)."""
    w = np.asarray(written, dtype=np.uint8).ravel()
    r = np.asarray(read, dtype=np.uint8).ravel()
    if w.size != r.size:
        raise ValueError(f"lengths differ: written {w.size} cells, read {r.size}")
    return BitErrors(
        int(w.size),
        int(np.count_nonzero((w == 0) & (r != 0))),
        int(np.count_nonzero((w != 0) & (r == 0))),
    )


def unpack_cells(data: Bytes, ncells: int | None = None) -> np.ndarray:
    """Page bytes to one uint8 0/1 per cell (cell j = bit j % 8 of byte j // 8), the first
    `ncells` of them when given."""
    bits = np.unpackbits(_packed(data), bitorder="little")
    return bits if ncells is None else bits[:ncells]


def pack_cells(cells: np.ndarray) -> bytes:
    """Inverse of `unpack_cells`."""
    return np.packbits(np.asarray(cells, dtype=np.uint8), bitorder="little").tobytes()
