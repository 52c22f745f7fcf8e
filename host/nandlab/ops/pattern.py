"""Data patterns: the on-board pattern generator (the pattern word and the byte stream it
defines) and the page data patterns the host writes (`page_pattern`).

The byte stream must be identical on the host, in the firmware and in the RTL
(spec.yaml, `pattern`). CONST: every byte is the const byte. CHECKER: every
byte is 0x55 (phase 0) or 0xAA (phase 1). PRBS: xorshift32 from the seed
(0x6A09E667 if the seed is 0): per 4-byte group x ^= x << 13; x ^= x >> 17;
x ^= x << 5, then x's bytes LSB-first. invert XORs every byte with 0xFF.

Example::

    >>> pattern_bytes(Pattern.prbs(), seed=1, n=8).hex()
    '2120040001060804'
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from nandlab.errors import OpProgramError, UsageError
from nandlab.ops._generated import (
    CHECKER_BYTE_0,
    CHECKER_BYTE_1,
    MAX_LEN,
    PATTERN_INVERT_LSB,
    PATTERN_KIND_LSB,
    PATTERN_KIND_WIDTH,
    PATTERN_PARAM_LSB,
    PATTERN_PARAM_WIDTH,
    PRBS_DEFAULT_SEED,
    PRBS_SHIFT_0,
    PRBS_SHIFT_1,
    PRBS_SHIFT_2,
    PatternKind,
)
from nandlab.ops.layout import enum_member

_U32 = 0xFFFFFFFF
_KIND_MASK = (1 << PATTERN_KIND_WIDTH) - 1
_PARAM_MASK = (1 << PATTERN_PARAM_WIDTH) - 1
_USED_BITS = (_KIND_MASK << PATTERN_KIND_LSB) | (1 << PATTERN_INVERT_LSB) | (
    _PARAM_MASK << PATTERN_PARAM_LSB
)


@dataclass(frozen=True)
class Pattern:
    """A pattern generator setting.

    kind: CONST, CHECKER or PRBS. invert: XOR every byte with 0xFF.
    const: the byte of a CONST pattern (0..255; 0 for other kinds).
    phase: the phase of a CHECKER pattern (0 -> 0x55, 1 -> 0xAA; 0 for other kinds).
    """

    kind: PatternKind
    invert: bool = False
    const: int = 0
    phase: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", enum_member(PatternKind, self.kind, "pattern kind"))
        if not 0 <= self.const <= 0xFF or (self.const and self.kind != PatternKind.CONST):
            raise OpProgramError(
                f"pattern const = {self.const!r}: must be 0..255 for CONST and 0 otherwise"
            )
        if self.phase not in (0, 1) or (self.phase and self.kind != PatternKind.CHECKER):
            raise OpProgramError(
                f"pattern phase = {self.phase!r}: must be 0 or 1 for CHECKER and 0 otherwise"
            )

    @classmethod
    def constant(cls, byte: int, invert: bool = False) -> Pattern:
        """Every byte = `byte` (0..255)."""
        return cls(PatternKind.CONST, invert, const=byte)

    @classmethod
    def checker(cls, phase: int = 0, invert: bool = False) -> Pattern:
        """Bitline checkerboard: 0x55 for phase 0, 0xAA for phase 1."""
        return cls(PatternKind.CHECKER, invert, phase=phase)

    @classmethod
    def prbs(cls, invert: bool = False) -> Pattern:
        """xorshift32 pseudo-random bytes from the seed given beside the pattern."""
        return cls(PatternKind.PRBS, invert)

    @property
    def word(self) -> int:
        """The 32-bit pattern word: kind bits[7:0], invert bit[8], const / phase bits[23:16]."""
        param = self.const if self.kind == PatternKind.CONST else self.phase
        return (
            (int(self.kind) << PATTERN_KIND_LSB)
            | (int(self.invert) << PATTERN_INVERT_LSB)
            | (param << PATTERN_PARAM_LSB)
        )

    @classmethod
    def from_word(cls, word: int) -> Pattern:
        """Decode a pattern word; OpProgramError for reserved bits or a bad kind / param."""
        if word & ~_USED_BITS & _U32:
            raise OpProgramError(
                f"pattern word 0x{word:08X} sets reserved bits 0x{word & ~_USED_BITS & _U32:08X}"
            )
        kind = (word >> PATTERN_KIND_LSB) & _KIND_MASK
        invert = bool((word >> PATTERN_INVERT_LSB) & 1)
        param = (word >> PATTERN_PARAM_LSB) & _PARAM_MASK
        if kind == PatternKind.CONST:
            return cls(PatternKind.CONST, invert, const=param)
        return cls(kind, invert, phase=param)  # type: ignore[arg-type]


def _xorshift32(x: int) -> int:
    x ^= (x << PRBS_SHIFT_0) & _U32
    x ^= x >> PRBS_SHIFT_1
    x ^= (x << PRBS_SHIFT_2) & _U32
    return x


def _apply(columns: np.ndarray, states: np.ndarray) -> np.ndarray:
    """Apply the GF(2) 32x32 matrix whose column i is `columns[i]` to every state."""
    out = np.zeros_like(states)
    for i in range(32):
        out ^= columns[i] * ((states >> np.uint32(i)) & np.uint32(1))
    return out


@lru_cache(maxsize=1)
def _step_powers() -> list[np.ndarray]:
    """Columns of the xorshift32 step matrix M raised to 1, 2, 4, ... 2**22.

    xorshift32 is linear over GF(2), so x_{k+m} = M**m x_k: the stream is
    built by doubling, which vectorises exactly.
    """
    columns = np.array([_xorshift32(1 << i) for i in range(32)], dtype=np.uint32)
    powers = [columns]
    while len(powers) < 23:  # enough for MAX_LEN bytes = 2**22 words
        powers.append(_apply(powers[-1], powers[-1]))
    return powers


def _prbs_words(seed: int, count: int) -> np.ndarray:
    """The first `count` xorshift32 outputs from `seed`, as uint32."""
    states = np.array([_xorshift32(seed or PRBS_DEFAULT_SEED)], dtype=np.uint32)
    for columns in _step_powers():
        if len(states) >= count:
            break
        states = np.concatenate([states, _apply(columns, states)])
    return states[:count]


def pattern_bytes(pattern: Pattern, seed: int, n: int) -> bytes:
    """The first `n` (0..MAX_LEN) bytes the generator emits for `pattern` and `seed`.

    `seed` (0..2**32-1) only matters for PRBS; 0 selects PRBS_DEFAULT_SEED.
    """
    if not 0 <= n <= MAX_LEN:
        raise OpProgramError(f"pattern length n = {n} is outside 0..{MAX_LEN}")
    if not 0 <= seed <= _U32:
        raise OpProgramError(f"pattern seed = {seed} is outside 0..{_U32}")
    if pattern.kind == PatternKind.CONST:
        data = np.full(n, pattern.const, dtype=np.uint8)
    elif pattern.kind == PatternKind.CHECKER:
        data = np.full(n, (CHECKER_BYTE_0, CHECKER_BYTE_1)[pattern.phase], dtype=np.uint8)
    else:
        words = _prbs_words(seed, -(-n // 4)).astype("<u4")
        data = words.view(np.uint8)[:n]
    if pattern.invert:
        data = data ^ np.uint8(0xFF)
    return data.tobytes()


# Page data patterns: what the host writes to a page (data + spare) and regenerates later to
# count errors or to know each cell's programmed state.
# - "random": seeded pseudo-random, different for every (seed, block, page).
# - "checker": 0x55 on even WLs and 0xAA on odd WLs, so neighbouring cells on a WL and along
#   a bitline hold opposite bits.
# - "zeros" / "ones": all-0 (every page bit programmed) / all-1 (erased).
# Flash layouts keep the factory bad-block marker (the first spare byte) FFh, since a chip
# reads a block whose page 0 has another value there as bad: pass `marker_column` (the page's
# data size) to keep that byte FFh.

PATTERNS = ("random", "checker", "zeros", "ones")


def page_pattern(
    kind: str,
    nbytes: int,
    *,
    seed: int = 0,
    block: int = 0,
    page: int = 0,
    wl: int = 0,
    marker_column: int | None = None,
) -> bytes:
    """Return `nbytes` of the pattern `kind` for one page.

    `seed`, `block` and `page` select the random stream; `wl` selects the
    checkerboard phase; the byte at `marker_column`, if given, is FFh.
    Raises UsageError for an unknown kind.
    """
    data = _pattern(kind, nbytes, seed, block, page, wl)
    if marker_column is not None and 0 <= marker_column < nbytes:
        data = data[:marker_column] + b"\xff" + data[marker_column + 1 :]
    return data


def _pattern(kind: str, nbytes: int, seed: int, block: int, page: int, wl: int) -> bytes:
    if nbytes < 0:
        raise ValueError("nbytes must be >= 0")
    if kind == "random":
        if seed < 0:
            raise UsageError(f"pattern seed must be >= 0, got {seed}")
        rng = np.random.default_rng([seed, block, page])
        return rng.integers(0, 256, nbytes, dtype=np.uint8).tobytes()
    if kind == "checker":
        return bytes([0x55 if wl % 2 == 0 else 0xAA]) * nbytes
    if kind == "zeros":
        return bytes(nbytes)
    if kind == "ones":
        return b"\xff" * nbytes
    raise UsageError(f"unknown pattern '{kind}': use one of {', '.join(PATTERNS)}")
