"""Minimum error-free multi-wordline sensing (MWS) time: Flash-Cosmos Figs. 12 and 13.

A bitline must discharge through every conducting cell of its string (intra-block
MWS: many WLs of one string) or against every selected string at once
(inter-block MWS: one WL in each of many blocks), so a short strobe fails first
where the result hangs on every selected cell. The operand data makes each
bitline such a case: intra-block, a non-conducting string holds exactly one 0
among the selected WLs; inter-block, at most one block's cell conducts. The other
WLs of the strings are programmed (highest resistance).

The search halves the strobe on a 10 ns grid; a strobe is clean when `reads`
sensings in a row return the expected result bit for bit; the found strobe is
then confirmed (raised by 10 ns until clean). Every result bit compared counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from nandlab.analysis import bit_errors, pack_cells
from nandlab.schemes.flashcosmos import FlashCosmos

if TYPE_CHECKING:
    from nandlab.onfi.chip import Chip

GRID_US = 0.01
"""Strobe grid of the search (the sensing-time register's unit is finer)."""


@dataclass(frozen=True)
class Search:
    """How the strobe is searched: `reads` clean sensings in a row, in [lo_us, hi_us]."""

    reads: int = 2
    lo_us: float = 10.0
    hi_us: float = 40.0


@dataclass(frozen=True)
class StrobeSearch:
    """The smallest clean strobe, the busy time of an MWS at it and the bits compared."""

    strobe_us: float
    t_mws_ns: int
    bits: int


def min_error_free_strobe(
    fc: FlashCosmos,
    groups: Sequence[tuple[int, Sequence[int]]],
    expected: bytes,
    search: Search,
    *,
    over_power: bool = False,
) -> StrobeSearch:
    """Smallest strobe (µs, GRID_US steps in the search range) at which `search.reads` MWS
    sensings of `groups` all return `expected` (page bytes); the sensing time is back at
    its default afterwards."""
    bits = 0
    busy = 0

    def clean(strobe_us: float) -> bool:
        nonlocal bits, busy
        fc.tm.set_sense_time_us(strobe_us)
        for _ in range(search.reads):
            got = fc.tm.mws(groups, allow_over_power=over_power)
            bits += len(expected) * 8
            busy = got.busy_ns
            if bit_errors(expected, got.data[: len(expected)]).errors:
                return False
        return True

    lo, hi = round(search.lo_us / GRID_US), round(search.hi_us / GRID_US)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if clean(mid * GRID_US):
            hi = mid
        else:
            lo = mid
    while not clean(hi * GRID_US):
        hi += 1
    fc.tm.set_sense_time_us(None)
    return StrobeSearch(hi * GRID_US, busy, bits)


def string_wls(fc: FlashCosmos, count: int | None = None) -> list[int]:
    """The first `count` WLs (default: all) of sub-block 0's strings: WL k * sub_blocks."""
    n = fc.chip.profile.geometry.wls_per_string if count is None else count
    return [fc.sub_blocks * k for k in range(n)]


def store_intra_block(fc: FlashCosmos, block: int, wls: int, rng: np.random.Generator) -> bytes:
    """Operands for an MWS of the first `wls` string WLs of `block` (erased); returns the
    expected result. Half the strings conduct; each other one has its 0 on one random
    selected WL."""
    nbits = fc.page_bytes * 8
    conducts = rng.random(nbits) < 0.5
    zero_at = rng.integers(0, wls, nbits)
    for k, wl in enumerate(string_wls(fc)):
        cells = conducts | (zero_at != k) if k < wls else np.zeros(nbits, bool)
        fc.store(block, wl, pack_cells(cells))
    return pack_cells(conducts)


def store_inter_block(
    fc: FlashCosmos, blocks: Sequence[int], rng: np.random.Generator
) -> np.ndarray:
    """Operands for MWS of WL 0 over the first n of `blocks` (erased): per bitline, the
    index of the one block whose cell conducts, or -1 (none). The result of the first n
    blocks is `expected_inter_block(owner, n)`."""
    nbits = fc.page_bytes * 8
    owner = rng.integers(0, len(blocks), nbits)
    conducts = rng.random(nbits) < 0.5
    for j, block in enumerate(blocks):
        for k, wl in enumerate(string_wls(fc)):
            cells = conducts & (owner == j) if k == 0 else np.zeros(nbits, bool)
            fc.store(block, wl, pack_cells(cells))
    return np.where(conducts, owner, -1)


def expected_inter_block(owner: np.ndarray, blocks: int) -> bytes:
    """Result of an MWS of WL 0 over the first `blocks` blocks (`store_inter_block`)."""
    return pack_cells((owner >= 0) & (owner < blocks))


def _read_row(base: dict[str, Any], block: int, busy_ns: int) -> dict[str, Any]:
    return {
        **base,
        "block": block,
        "wl": 0,
        "operation": "read",
        "slc": True,
        "page_type": "slc",
        "latency_us": busy_ns / 1000.0,
    }


def _mws_row(
    base: dict[str, Any], block: int, kind: str, count: int, found: StrobeSearch
) -> dict[str, Any]:
    return {
        **base,
        "block": block,
        "operation": "mws",
        "expression": kind,
        "chunk": count,
        "latency_us": found.t_mws_ns / 1000.0,
        "bits": found.bits,
        "errors_0to1": 0,
        "errors_1to0": 0,
    }


def measure_intra_block(
    chip: Chip, block: int, wls: int, seed: int, base: dict[str, Any], search: Search
) -> list[dict[str, Any]]:
    """Fig. 12 on one erased block: the operands of an MWS over `wls` string WLs (data from
    `seed`), a page read of WL 0 in SLC mode (tR) and the minimum error-free strobe search.
    Rows: the read's busy time, and the MWS (operation `mws`, expression `intra-block`,
    chunk = WLs sensed at once) with its busy time at that strobe and the bits compared."""
    fc = FlashCosmos(chip, allow_test_mode=True)
    expected = store_intra_block(fc, block, wls, np.random.default_rng(seed))
    t_r = chip.read_page(block, 0, slc=True)
    found = min_error_free_strobe(fc, [(block, string_wls(fc, wls))], expected, search)
    return [_read_row(base, block, t_r.busy_ns), _mws_row(base, block, "intra-block", wls, found)]


def measure_inter_block(
    chip: Chip,
    blocks: Sequence[int],
    counts: Sequence[int],
    seed: int,
    base: dict[str, Any],
    search: Search,
) -> list[dict[str, Any]]:
    """Fig. 13 on erased `blocks` of one plane: operands of an MWS of WL 0 over the first n
    blocks (data from `seed`), a page read of WL 0 in SLC mode (tR) and, for each n in
    `counts`, the minimum error-free strobe (over the power budget's block count when n
    is above it). Rows as `measure_intra_block`'s, expression `inter-block`, chunk = n."""
    fc = FlashCosmos(chip, allow_test_mode=True)
    owner = store_inter_block(fc, blocks, np.random.default_rng(seed))
    rows = [_read_row(base, blocks[0], chip.read_page(blocks[0], 0, slc=True).busy_ns)]
    for n in counts:
        groups = [(block, [0]) for block in blocks[:n]]
        expected = expected_inter_block(owner, n)
        found = min_error_free_strobe(fc, groups, expected, search, over_power=True)
        rows.append(_mws_row(base, blocks[0], "inter-block", n, found))
    return rows
