"""Page data patterns, as bytes of one full page (data + spare).

- ``random``: seeded pseudo-random, different for every (seed, block, page),
  so a page can be regenerated later to count errors or to know each cell's
  programmed state.
- ``checker``: checkerboard, 0x55 on even WLs and 0xAA on odd WLs, so
  neighbouring cells on a WL and along a bitline hold opposite bits.
- ``zeros`` / ``ones``: all-0 (every page bit programmed) / all-1 (erased).

Flash layouts keep the factory bad-block marker (the first spare byte) FFh,
since a chip reads a block whose page 0 has another value there as bad; pass
`marker_column` (the page's data size) to keep that byte FFh.
"""

from __future__ import annotations

import numpy as np

from nandlab.errors import UsageError

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


def bit_errors(expected: bytes, read: bytes) -> tuple[int, int]:
    """Count bit errors of `read` against `expected`: (0->1, 1->0).

    0->1: expected 0, read 1 (a programmed cell read as erased side);
    1->0: expected 1, read 0. Both must have the same length.
    """
    if len(expected) != len(read):
        raise ValueError(f"lengths differ: expected {len(expected)} bytes, read {len(read)}")
    exp = np.frombuffer(expected, dtype=np.uint8)
    got = np.frombuffer(read, dtype=np.uint8)
    up = np.unpackbits(~exp & got).sum()
    down = np.unpackbits(exp & ~got).sum()
    return int(up), int(down)
