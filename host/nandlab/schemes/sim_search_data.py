"""The sim-search scheme's records and host-side data work (the scheme is `sim_search`).

What a search answered (`SearchAnswer`), what it moved (`Traffic`), the counts of a
`SimSearch`'s life (`Stats`), and the host's own computations on plain or stored page
bytes: the reference match and the page-wide chunk correction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nandlab.errors import RangeError
from nandlab.onfi_spec.search import (
    CHUNK_BYTES,
    CHUNK_ECC_BYTES,
    CHUNKS,
    DATA_BYTES,
    HEADER_SLOTS,
    KEY_BYTES,
    correct_chunk,
)
from nandlab.ops import Din, Dout, Program

FULL_MASK = (1 << 64) - 1


@dataclass
class Traffic:
    """Bytes moved: chip bus data in / out (from the op programs) and bytes to the host;
    sensings, the busy time the chip reported and its energy estimated from the datasheet
    currents (`nandlab.analysis.operation_energy_uJ`: reads at read current, searches at
    standby current like a latch XOR); with `measure_io`, the data transfers' bus time and
    I/O energy from the bench's supply samples."""

    chip_in: int = 0
    chip_out: int = 0
    host: int = 0
    sensings: int = 0
    busy_us: float = 0.0
    energy_uJ: float = 0.0
    io_ns: int = 0
    io_nJ: float = 0.0

    def add(self, program: Program) -> None:
        for ins in program:
            if isinstance(ins, Din):
                self.chip_in += len(ins.data)
            elif isinstance(ins, Dout):
                self.chip_out += ins.n


@dataclass(frozen=True)
class SearchAnswer:
    """Matching data slots (bool per slot 0..511; header slots always False), the path
    that produced them ("chip", or "fallback:<why>" for a full read), read-retries, bits
    the ECC corrected, and the data slots the chip reported within the threshold
    (`candidates`; with threshold 0 they are the answer; 0 when the chip did not search)."""

    block: int
    page: int
    matches: np.ndarray
    path: str
    retries: int = 0
    corrected_bits: int = 0
    candidates: int = 0

    @property
    def slots(self) -> list[int]:
        return [int(s) for s in np.flatnonzero(self.matches)]


@dataclass
class Stats:
    """Counts over a SimSearch's life: in-chip answers, fallbacks, retries."""

    chip_answers: int = 0
    fallbacks: int = 0
    retries: int = 0
    corrected_bits: int = 0
    chunk_fallbacks: int = 0


def as_word(value: int | bytes, what: str) -> bytes:
    """A 64-bit key or mask as its 8 big-endian bytes; RangeError for any other width."""
    if isinstance(value, bytes | bytearray):
        if len(value) != KEY_BYTES:
            raise RangeError(f"{what} is {len(value)} bytes; SiM keys and masks are 8 bytes")
        return bytes(value)
    if not 0 <= value <= FULL_MASK:
        raise RangeError(f"{what} {value:#x} does not fit 64 bits (0..{FULL_MASK:#x})")
    return int(value).to_bytes(KEY_BYTES, "big")


def slot_values(data: bytes) -> np.ndarray:
    """The 512 slots of a plain data area as big-endian uint64."""
    return np.frombuffer(data[:DATA_BYTES], dtype=">u8").astype(np.uint64)


def host_match(data: bytes, key: bytes, mask: bytes) -> np.ndarray:
    """The host's reference match over a plain data area (header slots never match)."""
    values = slot_values(data)
    k, m = np.uint64(int.from_bytes(key, "big")), np.uint64(int.from_bytes(mask, "big"))
    bits = (values & m) == (k & m)
    bits[:HEADER_SLOTS] = False
    return bits


def correct_page(raw: bytes, page_bytes: int) -> tuple[bytes, int] | None:
    """Every chunk of a stored page corrected by its ECC: (stored data, bits); None if one fails."""
    parts, total = [], 0
    for c in range(CHUNKS):
        ecc = raw[page_bytes + c * CHUNK_ECC_BYTES : page_bytes + (c + 1) * CHUNK_ECC_BYTES]
        fixed = correct_chunk(raw[c * CHUNK_BYTES : (c + 1) * CHUNK_BYTES], ecc)
        if fixed is None:
            return None
        parts.append(fixed[0])
        total += fixed[1]
    return b"".join(parts), total
