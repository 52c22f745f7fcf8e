"""Vth distribution of one WL by read-offset sweeps, as a lab measures it on silicon.

For each read reference r, the page type whose read uses r is read at every
offset code of r from code_min (or the first code above the profile's sense
floor) to code_max (SET FEATURES), the other references staying at their
defaults. The cells of each state (known from
the data written) whose bit says "below r" are counted at every step; the
difference between consecutive steps is the number of that state's cells
whose Vth lies in that 1-step voltage bin. Cells beyond the page's other
references give a constant count, which cancels in the difference.

The offset windows of neighbouring references overlap; each voltage bin is
taken from the reference whose default is nearest, so a bin is counted once.
Cells below the lowest window (the part of L0 the DAC cannot reach) or above
the highest are reported as below / above range, counted from the cells that
a default read puts beyond the first / last reference.

A default read of every page first places each cell between two default
references; a reference's sweep counts only the cells placed next to it.
Cells beyond the page's other references would cancel in the differences
anyway, but near those references their read noise (large on worn blocks)
would leak into the histogram as spurious counts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from nandlab.analysis import unpack_cells
from nandlab.characterize.common import cell_states, page_of
from nandlab.characterize.progress import ProgressFn, no_progress

if TYPE_CHECKING:
    from nandlab.onfi import Chip
    from nandlab.profiles import Profile


@dataclass
class StateHistogram:
    """One state's cells: histogram inside the sweep windows and the counts beyond them."""

    state: int
    name: str
    cells: int
    centers_mV: np.ndarray
    counts: np.ndarray
    below_range: int
    above_range: int
    references: list[str] = field(default_factory=list)
    """Per bin, the read reference whose sweep measured it."""

    @property
    def in_range(self) -> int:
        return int(self.counts.sum())

    @property
    def mean_mV(self) -> float:
        n = self.counts.sum()
        return float((self.centers_mV * self.counts).sum() / n) if n else float("nan")

    @property
    def sigma_mV(self) -> float:
        n = self.counts.sum()
        if not n:
            return float("nan")
        return float(np.sqrt((self.counts * (self.centers_mV - self.mean_mV) ** 2).sum() / n))

    def to_dict(self) -> dict[str, Any]:
        return {
            "state": self.name,
            "cells": self.cells,
            "in_range": self.in_range,
            "below_range": self.below_range,
            "above_range": self.above_range,
            "mean_mV": round(self.mean_mV, 1),
            "sigma_mV": round(self.sigma_mV, 1),
            "centers_mV": self.centers_mV.tolist(),
            "counts": self.counts.tolist(),
        }


@dataclass
class VthResult:
    """Per-state histograms of one WL; `windows` = (reference, low mV, high mV) measured."""

    block: int
    wl: int
    step_mV: float
    states: list[StateHistogram]
    windows: list[tuple[str, float, float]]
    reads: int
    read_busy_ns: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "block": self.block,
            "wl": self.wl,
            "step_mV": self.step_mV,
            "reads": self.reads,
            "windows": [
                {"reference": n, "low_mV": lo, "high_mV": hi} for n, lo, hi in self.windows
            ],
            "states": [s.to_dict() for s in self.states],
        }

    def rows(self, base: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Tidy rows: one per (state, non-empty bin), plus below / above range counts."""
        out: list[dict[str, Any]] = []
        coords = {**(base or {}), "block": self.block, "wl": self.wl, "operation": "vth"}
        for s in self.states:
            refs: list[str | None] = list(s.references) or [None] * len(s.counts)
            for center, count, ref in zip(s.centers_mV, s.counts, refs, strict=True):
                if count:
                    out.append(
                        {
                            **coords,
                            "state": s.name,
                            "reference": ref,
                            "vth_mV": float(center),
                            "cells": int(count),
                        }
                    )
            for label, count in (("below range", s.below_range), ("above range", s.above_range)):
                out.append({**coords, "state": s.name, "reference": label, "cells": count})
        return out


def _window_bounds(profile: Profile) -> list[tuple[float, float]]:
    """Voltage span each reference is responsible for: up to the DAC step nearest below the
    midpoint between neighbouring defaults, so neighbouring windows tile without gap or overlap."""
    ro = profile.read_offsets
    defaults = [r.default_mV for r in ro.references]
    cuts = [
        defaults[i] + math.floor((defaults[i + 1] - defaults[i]) / 2 / ro.step_mV) * ro.step_mV
        for i in range(len(defaults) - 1)
    ]
    bounds = []
    for i, d in enumerate(defaults):
        lo = d + _lowest_code(profile, i) * ro.step_mV
        hi = d + ro.code_max * ro.step_mV
        if i > 0:
            lo = max(lo, cuts[i - 1])
        if i < len(defaults) - 1:
            hi = min(hi, cuts[i])
        bounds.append((lo, hi))
    return bounds


def _sweep_codes(profile: Profile, r: int, bound: tuple[float, float], code_step: int) -> list[int]:
    """Codes of reference r's sweep: every `code_step`-th code, both DAC ends and its window's
    edges (so bins never straddle a window edge)."""
    ro = profile.read_offsets
    d = ro.references[r].default_mV
    low = _lowest_code(profile, r)
    codes = set(range(low, ro.code_max + 1, code_step)) | {low, ro.code_max}
    for edge in bound:
        code = round((edge - d) / ro.step_mV)
        if low <= code <= ro.code_max:
            codes.add(code)
    return sorted(codes)


def _lowest_code(profile: Profile, r: int) -> int:
    """Lowest offset code of reference r that still moves the WL voltage: the DAC's end, or
    the first code at or above the profile's sense floor (below it a sensing stays at the
    floor, and differences between such reads would be read noise, not cells)."""
    ro = profile.read_offsets
    if ro.sense_floor_mV is None:
        return ro.code_min
    d = ro.references[r].default_mV
    return min(max(ro.code_min, math.ceil((ro.sense_floor_mV - d) / ro.step_mV)), ro.code_max)


def _packed_words(bits: np.ndarray, n_words: int) -> np.ndarray:
    """Cells to uint64 words, 64 cells a word (cell j = bit j % 64 of word j // 64, as the
    page bytes are laid out little-endian), zero-padded: a bool array (..., cells) is packed,
    a uint8 array of page bytes is taken as it is."""
    if bits.dtype == np.bool_:
        bits = np.packbits(bits, axis=-1, bitorder="little")
    pad = n_words * 8 - bits.shape[-1]
    if pad:
        width = [(0, 0)] * (bits.ndim - 1) + [(0, pad)]
        bits = np.pad(bits, width)
    return np.ascontiguousarray(bits).view("<u8")


def measure_vth(
    chip: Chip,
    profile: Profile,
    block: int,
    wl: int,
    written: dict[int, bytes],
    *,
    code_step: int = 1,
    progress: ProgressFn = no_progress,
) -> VthResult:
    """Sweep every read reference over its DAC range on WL `wl` holding `written` (page type ->
    data) and return per-state Vth histograms (bins of `code_step` DAC steps). Offsets are
    reset to their defaults at the end, also on error."""
    ro = profile.read_offsets
    gray = profile.geometry.gray_code
    n_states = len(gray)
    states = cell_states(profile, written)
    cells_per_state = np.bincount(states, minlength=n_states)
    page_type_of = {r: p for p, refs in enumerate(profile.page_refs) for r in refs}
    bounds = _window_bounds(profile)
    n_refs = len(ro.references)
    sweeps = [_sweep_codes(profile, r, bounds[r], code_step) for r in range(n_refs)]
    total_reads = sum(map(len, sweeps)) + profile.geometry.bits_per_cell
    reads = 0
    busy: list[int] = []

    def read_raw(page_type: int) -> bytes:
        nonlocal reads
        got = chip.read_page(block, page_of(profile, wl, page_type))
        reads += 1
        busy.append(got.busy_ns)
        progress(f"Vth sweep block {block} WL {wl}", reads, total_reads)
        return got.data

    def read(page_type: int) -> np.ndarray:
        return unpack_cells(read_raw(page_type))

    centers: list[list[float]] = [[] for _ in range(n_states)]
    bin_refs: list[list[str]] = [[] for _ in range(n_states)]
    counts: list[list[float]] = [[] for _ in range(n_states)]
    below = np.zeros(n_states, dtype=np.int64)
    above = np.zeros(n_states, dtype=np.int64)
    n_words = -(-len(states) // 64)
    try:
        chip.reset_read_offsets()
        default_bits = {p: read(p) for p in range(profile.geometry.bits_per_cell)}
        region = cell_states(
            profile,
            {p: np.packbits(b, bitorder="little").tobytes() for p, b in default_bits.items()},
        )
        for r, ref in enumerate(ro.references):
            p = page_type_of[r]
            below_bit = gray[r][p]
            # Only cells a default read puts next to r can lie in r's window; the rest sit
            # beyond the page's other references and would only add their read noise.
            near = (region == r) | (region == r + 1)
            # per state, the packed mask of its cells next to r: a step's count is then a
            # popcount of (page bits said "below r") AND mask, 64 cells per word
            masks = _packed_words(
                np.stack([near & (states == s) for s in range(n_states)]), n_words
            )
            prev: np.ndarray | None = None
            prev_v = 0.0
            codes = sweeps[r]
            for k, code in enumerate(codes):
                chip.set_read_offset_code(r, code)
                raw = read_raw(p)
                words = _packed_words(np.frombuffer(raw, dtype=np.uint8), n_words)
                if not below_bit:
                    words = ~words  # padding bits are masked out by `masks`
                count = np.bitwise_count(words & masks).sum(axis=1, dtype=np.int64)
                v = ref.default_mV + code * ro.step_mV
                if (k == 0 and r == 0) or (k == len(codes) - 1 and r == n_refs - 1):
                    is_below = unpack_cells(raw) == below_bit
                    if k == 0 and r == 0:
                        below = np.bincount(states[is_below & (region == 0)], minlength=n_states)
                    if k == len(codes) - 1 and r == n_refs - 1:
                        beyond = ~is_below & (region == n_states - 1)
                        above = np.bincount(states[beyond], minlength=n_states)
                if prev is not None:
                    # The part of the bin inside r's window; a bin that straddles the window
                    # edge (grids of neighbouring references need not align) counts pro rata.
                    lo, hi = bounds[r]
                    part_lo, part_hi = max(prev_v, lo), min(v, hi)
                    if part_hi > part_lo:
                        share = (part_hi - part_lo) / (v - prev_v)
                        diff = np.rint(np.clip(count - prev, 0, None) * share)
                        for s in range(n_states):
                            centers[s].append((part_lo + part_hi) / 2)
                            counts[s].append(float(diff[s]))
                            bin_refs[s].append(ref.name)
                prev, prev_v = count, v
            chip.set_read_offset_code(r, 0)
    finally:
        chip.reset_read_offsets()

    hists = []
    for s in range(n_states):
        c = np.asarray(centers[s], dtype=float)
        order = np.argsort(c, kind="stable")
        hists.append(
            StateHistogram(
                state=s,
                name=f"L{s}",
                cells=int(cells_per_state[s]),
                centers_mV=c[order],
                counts=np.asarray(counts[s], dtype=np.int64)[order],
                below_range=int(below[s]),
                above_range=int(above[s]),
                references=[bin_refs[s][i] for i in order],
            )
        )
    windows = [(ref.name, lo, hi) for ref, (lo, hi) in zip(ro.references, bounds, strict=True)]
    return VthResult(block, wl, ro.step_mV * code_step, hists, windows, reads, busy)
