"""What MCFlash plans its read references against: the Vth distribution of each MLC state.

A controller for real silicon knows the states from a measurement or from the datasheet,
never from the die's physics:

- measured (`StateModel.from_vth`): a Vth sweep of a WL holding known data
  (`nandlab.characterize.vth`: every offset code of every reference, read through SET
  FEATURES) counts, for each state, the cells below each position a reference can take.
  Those counts are the bit errors an edge placed there makes, so the planner uses them as
  they are wherever they rest on enough cells (`FIT_TAIL_CELLS`). Further out, where one
  WL holds too few cells to count a tail, the tail is extended with the shape of a normal
  distribution fitted to the state on its normal probability plot (probit of the empirical
  CDF against Vth, least squares), anchored to the last counted point. The fit also works
  for a state the sweep sees only in part: most of the erased state lies below the lowest
  voltage the chip can sense.
- datasheet (`StateModel.from_references`): the part's default read references sit in the
  valleys between states and read a fresh block without error. Programmed states are
  centred between references (the top one half a gap above the last), with the spread that
  puts every default reference at least 6.5 sigma from both neighbours. A datasheet does not give
  the depth of the erased state: it is taken wide (spread gap / 2) with its upper tail 6.5
  sigma below the first reference, so a plan never counts on sensing below it.

`EdgeCosts` turns a model into the expected bit-error fraction of one reference edge at
every position the offset DAC can reach.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import TYPE_CHECKING, Protocol

import numpy as np

from nandlab.errors import UsageError

if TYPE_CHECKING:
    from nandlab.profiles import Profile

DATASHEET_MARGIN_SIGMAS = 6.5
"""Distance (in state spreads) of a default read reference from the states beside it: the
defaults read a fresh block without error (a tail of 4e-11 each side)."""
FIT_TAIL_CELLS = 20
"""A measured count is used as it is where at least this many cells lie on the tail's side
(the probit fit likewise uses only such points): fewer are too noisy to place an edge by,
and the fitted shape carries the tail on from there."""


class MeasuredState(Protocol):
    """One state's Vth histogram (as `nandlab.characterize.vth.StateHistogram` gives it)."""

    centers_mV: np.ndarray
    counts: np.ndarray
    below_range: int
    above_range: int


def _phi_tail(z: np.ndarray) -> np.ndarray:
    """P(N(0,1) > z), elementwise."""
    erfc = np.frompyfunc(math.erfc, 1, 1)
    return 0.5 * np.asarray(
        erfc(np.asarray(z, dtype=np.float64) / math.sqrt(2.0)), dtype=np.float64
    )


def _phi_below(z: np.ndarray) -> np.ndarray:
    """P(N(0,1) < z), elementwise."""
    return _phi_tail(-np.asarray(z, dtype=np.float64))


@dataclass(frozen=True)
class CountedTail:
    """One state's measured cumulative counts: `below[i]` of its `cells` lie under
    `edges_mV[i]` (ascending; the first edge is where the sweep starts)."""

    edges_mV: np.ndarray
    below: np.ndarray
    cells: int

    @classmethod
    def of(cls, state: MeasuredState) -> CountedTail:
        centers = np.asarray(state.centers_mV, dtype=np.float64)
        # cells the sweep placed (inside it, below or above it); a cell that read noise put
        # next to another reference is in none and would bend the tail
        cells = state.below_range + int(np.sum(state.counts)) + state.above_range
        if cells <= 0 or centers.size < 2:
            raise UsageError("a state model needs a Vth histogram of at least two bins per state")
        mids = (centers[:-1] + centers[1:]) / 2
        edges = np.concatenate(
            ([1.5 * centers[0] - 0.5 * centers[1]], mids, [1.5 * centers[-1] - 0.5 * centers[-2]])
        )
        below = state.below_range + np.concatenate(([0], np.cumsum(state.counts)))
        return cls(edges, below.astype(np.float64), cells)

    def fraction_below(self, pos_mV: np.ndarray, mean: float, sigma: float) -> np.ndarray:
        """P(Vth < pos): the counted fraction where both sides hold >= FIT_TAIL_CELLS cells;
        beyond, the tail of N(mean, sigma) scaled to meet the last counted point."""
        pos = np.asarray(pos_mV, dtype=np.float64)
        i = np.clip(np.searchsorted(self.edges_mV, pos + 1e-6, side="right") - 1, 0, None)
        p = self.below[i] / self.cells
        lower = np.flatnonzero(self.below >= FIT_TAIL_CELLS)
        upper = np.flatnonzero(self.cells - self.below >= FIT_TAIL_CELLS)
        if lower.size == 0 or upper.size == 0:
            return _phi_below((pos - mean) / sigma)
        lo, hi = lower[0], upper[-1]
        x_lo, x_hi = self.edges_mV[lo], self.edges_mV[hi]
        z = (pos - mean) / sigma
        at_lo = float(_phi_below(np.array([(x_lo - mean) / sigma]))[0])
        at_hi = float(_phi_tail(np.array([(x_hi - mean) / sigma]))[0])
        # a fitted tail too thin to represent in floating point at its anchor adds nothing
        low = _phi_below(z) * (self.below[lo] / self.cells / at_lo) if at_lo else 0.0
        high = _phi_tail(z) * ((self.cells - self.below[hi]) / self.cells / at_hi) if at_hi else 0.0
        p = np.where(pos < x_lo, low, p)
        return np.where(pos > x_hi, 1.0 - high, p)


def _probit_fit(state: MeasuredState) -> tuple[float, float]:
    """(mean, sigma) mV of a normal fitted to a state's histogram on a probit scale."""
    tail = CountedTail.of(state)
    cells, upper, below = tail.cells, tail.edges_mV[1:], tail.below[1:]
    cdf = below / cells
    keep = (below >= FIT_TAIL_CELLS) & (cells - below >= FIT_TAIL_CELLS)
    if np.count_nonzero(keep) < 2:
        raise UsageError("a state's measured Vth histogram has too few cells inside the sweep")
    z = np.array([NormalDist().inv_cdf(float(c)) for c in cdf[keep]])
    sigma, mean = np.polyfit(z, upper[keep], 1)
    return float(mean), float(sigma)


@dataclass(frozen=True)
class StateModel:
    """Vth mean and spread of each state L0.. (mV): where the read references may go."""

    means_mV: tuple[float, ...]
    sigmas_mV: tuple[float, ...]
    source: str = "given"
    counted: tuple[CountedTail, ...] | None = field(default=None, compare=False)
    """Per state, the sweep's counts (a measured model); None: the normal fits alone."""

    @classmethod
    def from_vth(cls, states: Sequence[MeasuredState], source: str = "measured Vth") -> StateModel:
        """The states of a measured Vth sweep (one histogram per state, L0 first)."""
        fits = [_probit_fit(s) for s in states]
        counted = tuple(CountedTail.of(s) for s in states)
        return cls(tuple(m for m, _ in fits), tuple(s for _, s in fits), source, counted)

    def fraction_below(self, state: int, pos_mV: np.ndarray) -> np.ndarray:
        """P(Vth < pos) of `state`'s cells at each position (mV)."""
        mean, sigma = self.means_mV[state], self.sigmas_mV[state]
        if self.counted is None:
            return _phi_below((np.asarray(pos_mV, dtype=np.float64) - mean) / sigma)
        return self.counted[state].fraction_below(pos_mV, mean, sigma)

    @classmethod
    def from_references(cls, profile: Profile) -> StateModel:
        """Nominal states from the datasheet's default read references (see module doc)."""
        refs = [r.default_mV for r in profile.read_offsets.references]
        gaps = np.diff(refs) if len(refs) > 1 else np.array([1000.0])
        sigma = float(gaps.min()) / (2 * DATASHEET_MARGIN_SIGMAS)
        erased_sigma = float(gaps.mean()) / 2
        means = [refs[0] - DATASHEET_MARGIN_SIGMAS * erased_sigma]
        means += [(lo + hi) / 2 for lo, hi in zip(refs, refs[1:], strict=False)]
        means.append(refs[-1] + float(gaps[-1]) / 2)
        sigmas = [erased_sigma] + [sigma] * (len(means) - 1)
        return cls(tuple(means), tuple(sigmas), "datasheet references")


class EdgeCosts:
    """Expected bit-error fraction of one reference edge at every reachable position."""

    def __init__(self, profile: Profile, model: StateModel, occupied: Sequence[int]) -> None:
        ro = profile.read_offsets
        self.step = ro.step_mV
        # positions as integer steps (mV / step) covering ref +- offset +- delta
        defaults = [r.default_mV for r in ro.references]
        lo = math.floor(min(defaults) / self.step) + 2 * ro.code_min - ro.code_max - 1
        hi = math.ceil(max(defaults) / self.step) + 2 * ro.code_max + 1
        self.base = lo
        pos = np.arange(lo, hi + 1, dtype=np.float64) * self.step
        n_states = len(model.means_mV)
        weight = 1.0 / len(occupied)
        below = [model.fraction_below(s, pos) for s in range(n_states)]  # P(v < pos)
        self.gap_cost: list[np.ndarray] = []
        for g in range(n_states + 1):
            cost = np.zeros_like(pos)
            for s in occupied:
                # states s >= g must lie above the edge, states below g under it
                cost += weight * (below[s] if s >= g else 1.0 - below[s])
            self.gap_cost.append(cost)

    def at(self, gap: int, steps: np.ndarray) -> np.ndarray:
        return self.gap_cost[gap][np.asarray(steps) - self.base]
