"""Stored state of a virtual die's cells: per block and per programmed WL, and the
Gray code of each programming mode (see `array`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from nandlab.errors import AddressError, RangeError

Ages = tuple[float, ...]
"""Effective ages (hours at the reference temperature), one per thermally activated
mechanism: each advances by Arrhenius with its own activation energy, so a bake and the
same retention at use temperature age the mechanisms differently (`physics.Clock`)."""

NO_AGE: Ages = (0.0, 0.0, 0.0)


def ages_from_json(value: object) -> Ages:
    """Ages as a die image stores them: a list, one per clock; an older image's single
    age (one clock for every mechanism) becomes that age on every clock."""
    if isinstance(value, (int, float)):
        return (float(value),) * len(NO_AGE)
    if not isinstance(value, list) or len(value) != len(NO_AGE):
        raise ValueError(f"retention ages {value!r}: expected {len(NO_AGE)} numbers")
    return tuple(float(v) for v in value)


def age_since(now: Ages, then: Ages) -> Ages:
    """Per clock, the effective hours from `then` to `now`."""
    return tuple(a - b for a, b in zip(now, then, strict=True))


@dataclass
class WordLine:
    vth: np.ndarray  # int16 mV
    personality: np.ndarray  # int8
    level: np.ndarray  # uint8 target state
    pages: set[int]  # page types written since the block's last erase
    programs: int  # program operations since the last erase (keys the ISPP draw)
    age_h: Ages  # the array's retention ages at the last program
    reads_base: int  # block read count at the last program


@dataclass
class Block:
    pec: int = 0  # P/E cycles = erases so far (keys the erased-state draw)
    slc: bool | None = None  # mode of the data since the last erase
    mlc: bool = False  # native-mode data written in the MLC mode (physics.mlc)
    reads: int = 0  # sensings since the last erase
    erase_age_h: Ages = NO_AGE
    own_reads: dict[int, int] = field(default_factory=dict)  # per WL, since its program
    wls: dict[int, WordLine] = field(default_factory=dict)
    version: int = 0  # bumped by every change to a stored Vth (program, erase, wear)


class StateMap:
    """Gray code of one mode: page bits -> lowest consistent state, state -> verify."""

    @classmethod
    def gray(cls, gray_code: Sequence[Sequence[int]], verify_mV: list[float]) -> StateMap:
        """From a profile's Gray code (per state, the bit of each page type)."""
        codes = [int(sum(b << p for p, b in enumerate(c))) for c in gray_code]
        return cls(codes, len(gray_code[0]), verify_mV)

    def __init__(self, codes: list[int], bits: int, verify_mV: list[float]) -> None:
        self.bits = bits
        self.codes = np.array(codes, dtype=np.uint8)
        self.verify = np.array([0.0, *verify_mV], dtype=np.float32)
        # lowest[mask][key]: lowest state whose bits under `mask` equal `key`
        n = 1 << bits
        self.lowest = np.zeros((n, n), dtype=np.uint8)
        for mask in range(n):
            for key in range(n):
                hits = [s for s, c in enumerate(codes) if (c & mask) == key]
                self.lowest[mask, key] = hits[0] if hits else 0


def page_data(pages: dict[int, np.ndarray], bits: int, nbytes: int) -> dict[int, np.ndarray]:
    """Checked program data: page type -> packed page + spare bytes (uint8)."""
    if not pages:
        raise RangeError("program needs at least one page")
    out: dict[int, np.ndarray] = {}
    for ptype, buf in pages.items():
        if not 0 <= ptype < bits:
            raise AddressError(f"page type {ptype} out of range 0..{bits - 1}")
        arr = np.asarray(buf, dtype=np.uint8)
        if arr.shape != (nbytes,):
            raise RangeError(
                f"page data of {arr.size} bytes: a page with spare is {nbytes} bytes"
            )
        out[ptype] = arr
    return out
