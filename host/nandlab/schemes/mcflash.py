"""MCFlash (shared/papers/mcflash.txt): bitwise operations by shifted and soft-bit reads.

Two operands share one MLC WL, `a` in the LSB page and `b` in the MSB page,
so each cell's state encodes (a, b) through the profile's Gray code (L0 =
(1, 1), L1 = (1, 0), L2 = (0, 0), L3 = (0, 1) on the built-in MLC parts). A
page read compares the cell with the page type's read references and each
reference below the cell toggles the output bit (the bit starts at 1), so by
moving references with SET FEATURES offsets into chosen gaps between states
the read returns a chosen function of (a, b). A soft-bit read senses each
reference of the page at ref -/+ delta and outputs 1 where the cell lies
outside every band (XNOR of the two sensings per reference, as the chip's
internal XNOR does), which realizes functions one read cannot. An inverse
read, where the chip has one, returns the complement of either.

Nothing here is a table of answers: `realize` searches every placement of the
page's references into gaps (plain read), or of bands over gaps (soft-bit
read), with and without inverse read, keeps those whose output matches the
wanted truth table on the states the layout can hold, and picks the offsets
(within the profile's DAC range) that minimise the bit errors expected from
a model of the state distributions (`StateModel`, from the profile's physics
at a given P/E count, or given by the caller from a Vth measurement). The
paper's Table 1 rows are available as fixed gap assignments (`TABLE1`);
`variant="table1"` runs them as published, clamped to the DAC range, with a
warning when the range falls short (NAND / NOR / XOR without inverse read
need a reference below the erased state L0).

NOT of one operand needs the other page of its WL to hold a constant
(paper: operand in the MSB page, LSB page all 0); `realize_not` searches the
four constant layouts. Operands that are not on one WL, and intermediate
results, are brought together on a scratch WL: by COPYBACK when the source is
on the scratch block's plane, else by a read to the host and a program; the
plan counts both.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from nandlab.analysis import pack_cells, unpack_cells
from nandlab.errors import UnsupportedCapability, UsageError
from nandlab.schemes.base import (
    PageLoc,
    Plan,
    Scheme,
    SchemeResult,
    Scratch,
    chip_op,
    register,
)
from nandlab.schemes.expr import Expr, Not, Op, Var

if TYPE_CHECKING:
    from nandlab.onfi import Chip
    from nandlab.profiles import Profile

TT = tuple[int, int, int, int]
"""A 2-input truth table: outputs for (a, b) = (0,0), (0,1), (1,0), (1,1)."""

OPS: dict[str, TT] = {
    "AND": (0, 0, 0, 1),
    "OR": (0, 1, 1, 1),
    "XOR": (0, 1, 1, 0),
    "NAND": (1, 1, 1, 0),
    "NOR": (1, 0, 0, 0),
    "XNOR": (1, 0, 0, 1),
}
EXPR_KIND_TT: dict[str, TT] = {"and": OPS["AND"], "or": OPS["OR"], "xor": OPS["XOR"]}
ERROR_FREE = 1e-9
"""Predicted error fraction under which a realization counts as error-free."""
TAIL_SIGMAS = 6.0


def _phi_tail(z: np.ndarray) -> np.ndarray:
    """P(N(0,1) > z), elementwise."""
    erfc = np.frompyfunc(math.erfc, 1, 1)
    return 0.5 * np.asarray(
        erfc(np.asarray(z, dtype=np.float64) / math.sqrt(2.0)), dtype=np.float64
    )


@dataclass(frozen=True)
class StateModel:
    """Vth mean and spread of each state L0.. (mV): where the read references may go."""

    means_mV: tuple[float, ...]
    sigmas_mV: tuple[float, ...]

    @classmethod
    def from_profile(cls, profile: Profile, pec: int = 0) -> StateModel:
        """Nominal states after `pec` P/E cycles from the profile's physics section.

        Erased: N(mean + wear shift, hypot(sigma, wear sigma)). Programmed state
        k: verify + ISPP step / 2, spread of the uniform ISPP landing, the
        static program spread and the wear spread.
        """
        ph = profile.physics
        wf = ph.wear_factor(pec)
        means = [ph.erased_mean_mV + ph.wear_erased_shift_mV_at_10k * wf]
        sigmas = [math.hypot(ph.erased_sigma_mV, ph.wear_erased_sigma_mV_at_10k * wf)]
        step = ph.ispp.step_mV
        spread = math.sqrt(step**2 / 12 + ph.prog_sigma_mV**2 + (ph.wear_sigma_mV_at_10k * wf) ** 2)
        for v in ph.verify_mV:
            means.append(v + step / 2)
            sigmas.append(spread)
        # program interference: the next WL's cells, programmed later from the erased state
        # to uniformly random states, lift every cell by coupling x their Vth rise
        rise = np.array([0.0] + [m - means[0] for m in means[1:]])
        shift, jitter = ph.coupling * float(rise.mean()), ph.coupling * float(rise.std())
        means = [m + shift for m in means]
        sigmas = [math.hypot(sd, jitter) for sd in sigmas]
        return cls(tuple(means), tuple(sigmas))


@dataclass(frozen=True)
class Realization:
    """How one read computes a truth table over the states of a WL.

    kind "read": one page read with `codes` (offset DAC codes, one per
    reference in `refs`); kind "sbr": a soft-bit read with band centres
    `codes` and half-width `delta_code`. `gaps`: per reference, the gap index
    it sits in (0 = below L0, k = between L(k-1) and Lk, n = above the top
    state) or, for "sbr", the (lower, upper) gaps of its band.
    """

    kind: str
    page_type: int
    refs: tuple[int, ...]
    gaps: tuple[Any, ...]
    codes: tuple[int, ...]
    delta_code: int = 0
    inverse: bool = False
    predicted_error: float = 0.0
    warnings: tuple[str, ...] = ()

    @property
    def sensings(self) -> int:
        return len(self.refs) * (2 if self.kind == "sbr" else 1)

    def describe(self, profile: Profile) -> str:
        ro = profile.read_offsets
        parts = []
        for r, c in zip(self.refs, self.codes, strict=True):
            parts.append(f"{ro.references[r].name}{c * ro.step_mV:+g}mV")
        page = ("LSB", "MSB", "CSB")[self.page_type] if self.page_type < 2 else str(self.page_type)
        s = f"{'soft-bit read' if self.kind == 'sbr' else 'read'} {page} [{', '.join(parts)}]"
        if self.kind == "sbr":
            s += f" delta {self.delta_code * ro.step_mV:g}mV"
        return s + (" inverse" if self.inverse else "")


@dataclass(frozen=True)
class Table1Row:
    """A row of the paper's Table 1 as gap assignments (page type, per-reference gaps).

    `fixed`: the sensings Table 1 leaves at offset 0, which stay at the chip's default
    reference: per reference, a bool (plain read) or a (V-, V+) pair of bools (soft-bit
    read: V- = ref - delta, V+ = ref + delta). Empty = every offset free.
    """

    kind: str
    page_type: int
    gaps: tuple[Any, ...]
    inverse: bool = False
    fixed: tuple[Any, ...] = ()


_F, _M = (True, False), (False, True)  # soft-bit: V- at the default / V+ at the default
# The paper's Table 1 for the 4-state Gray code L0 (1,1), L1 (1,0), L2 (0,0), L3 (0,1):
# offsets +dV(Ln) move a reference across state Ln. Gap k sits below state Lk (4 = above L3).
# An offset of 0 in Table 1 keeps that sensing at the default reference (`fixed`).
TABLE1: dict[str, Table1Row] = {
    "AND": Table1Row("read", 0, (1,)),  # VREF1 - dV(L1)
    "OR": Table1Row("read", 1, (2, 3), fixed=(False, True)),  # VREF0 + dV(L1), VREF2 0
    # V-: defaults (0, 0), V+: +dV(L1), +dV(L3)
    "XNOR": Table1Row("sbr", 1, ((1, 2), (3, 4)), fixed=(_F, _F)),
    "NOT": Table1Row("read", 1, (3, 4)),  # VREF0 + dV(L1)+dV(L2), VREF2 + dV(L3)
    "NAND": Table1Row("read", 1, (0, 1)),  # VREF0 - dV(L0), VREF2 - (dV(L1)+dV(L2))
    # V+ as XNOR, V-: VREF0 - dV(L0), VREF2 0
    "NOR": Table1Row("sbr", 1, ((0, 2), (3, 4)), fixed=((False, False), _F)),
    "XOR": Table1Row("sbr", 1, ((0, 1), (2, 3)), fixed=(_M, _M)),  # V+: 0, 0; V-: -dV(L0), -dV(L2)
    "NAND-inv": Table1Row("read", 0, (1,), True),
    "NOR-inv": Table1Row("read", 1, (2, 3), True, fixed=(False, True)),
    "XOR-inv": Table1Row("sbr", 1, ((1, 2), (3, 4)), True, fixed=(_F, _F)),
}


def state_outputs(profile: Profile, tt: TT) -> tuple[int, ...]:
    """The truth table over states: output of state s for a = LSB bit, b = MSB bit."""
    return tuple(tt[2 * g[0] + g[1]] for g in profile.geometry.gray_code)


class _Edges:
    """Expected bit-error fraction of one reference edge at every reachable position."""

    def __init__(self, profile: Profile, model: StateModel, occupied: Sequence[int]) -> None:
        ro = profile.read_offsets
        self.step = ro.step_mV
        self.code_min, self.code_max = ro.code_min, ro.code_max
        # positions as integer steps (mV / step) covering ref +- offset +- delta
        defaults = [r.default_mV for r in ro.references]
        lo = math.floor(min(defaults) / self.step) + 2 * ro.code_min - ro.code_max - 1
        hi = math.ceil(max(defaults) / self.step) + 2 * ro.code_max + 1
        self.base = lo
        pos = np.arange(lo, hi + 1, dtype=np.float64) * self.step
        n_states = len(model.means_mV)
        weight = 1.0 / len(occupied)
        self.gap_cost: list[np.ndarray] = []
        below: list[np.ndarray] = []  # P(v < pos) per state
        for s in range(n_states):
            z = (pos - model.means_mV[s]) / model.sigmas_mV[s]
            below.append(_phi_tail(-z))
        for g in range(n_states + 1):
            cost = np.zeros_like(pos)
            for s in occupied:
                # states s >= g must lie above the edge, states below g under it
                cost += weight * (below[s] if s >= g else 1.0 - below[s])
            self.gap_cost.append(cost)

    def at(self, gap: int, steps: np.ndarray) -> np.ndarray:
        return self.gap_cost[gap][np.asarray(steps) - self.base]


class McFlash(Scheme):
    """MCFlash on one chip: read offsets (SET FEATURES), soft-bit read, inverse read.

    Args:
        pec: P/E count the state model assumes (0 = fresh).
        model: state distributions to plan against (default: from the profile at `pec`).
        variant: "best" (search every realization) or "table1" (the paper's rows).
        allow_test_mode: the chip's inverse read is a test-mode operation; without this
            MCFlash uses user-mode commands only (SET FEATURES, read, soft-bit read, copyback).
    """

    name = "mcflash"
    title = "MCFlash: shifted and soft-bit reads on MLC pairs"

    def __init__(
        self,
        chip: Chip,
        *,
        pec: int = 0,
        model: StateModel | None = None,
        variant: str = "best",
        allow_test_mode: bool = False,
    ) -> None:
        super().__init__(chip)
        if variant not in ("best", "table1"):
            raise UsageError(f"MCFlash variant {variant!r}: allowed best, table1")
        profile = chip.profile
        reason = self.unsupported(chip)
        if reason:
            raise UnsupportedCapability(reason)
        self.profile = profile
        self.model = model or StateModel.from_profile(profile, pec)
        self.variant = variant
        self.has_sbr = chip.transport.supports("soft_bit_read")
        self.has_inverse = allow_test_mode and _inverse_supported(chip)
        self._codes: dict[int, int] | None = None
        self._edges: dict[tuple[int, ...], _Edges] = {}

    @classmethod
    def unsupported(cls, chip: Chip) -> str | None:
        profile = chip.transport.profile
        if profile is None:
            return "MCFlash needs a chip profile (read-offset registers)"
        if profile.geometry.cell != "mlc":
            return f"MCFlash needs MLC pages; {profile.name} is {profile.geometry.cell.upper()}"
        if not profile.read_offsets.references:
            return f"MCFlash needs read-offset registers; {profile.name} declares none"
        return None

    # ----------------------------------------------------------------- planning

    def _edge_model(self, occupied: Sequence[int]) -> _Edges:
        key = tuple(occupied)
        if key not in self._edges:
            self._edges[key] = _Edges(self.profile, self.model, occupied)
        return self._edges[key]

    def realize(
        self,
        outputs: Sequence[int],
        occupied: Sequence[int] | None = None,
        *,
        inverse: bool | None = None,
        row: Table1Row | None = None,
    ) -> Realization:
        """The best read computing `outputs` (one bit per state) on the `occupied` states.

        inverse: None = either, True / False = only with / without inverse read.
        row: plan exactly this Table 1 row (offsets still optimised within its gaps).
        """
        n = self.profile.geometry.states
        occ = tuple(range(n)) if occupied is None else tuple(sorted(occupied))
        edges = self._edge_model(occ)
        cands: list[Realization] = []
        if row is not None:
            cands += self._candidates(edges, outputs, occ, row.inverse, row)
        else:
            for inv in (False, True):
                if inv and not self.has_inverse or inverse is not None and inverse != inv:
                    continue
                cands += self._candidates(edges, outputs, occ, inv, None)
        if not cands:
            raise UnsupportedCapability(
                "MCFlash: no read of this chip computes the truth table "
                f"{tuple(outputs)} over states {occ} (soft-bit read: "
                f"{'yes' if self.has_sbr else 'no'}, inverse read: "
                f"{'yes' if self.has_inverse else 'no'})"
            )

        def key(r: Realization) -> tuple[float, int, bool, bool, float]:
            bucket = math.floor(math.log2(max(r.predicted_error, ERROR_FREE)))
            return (bucket, r.sensings, r.kind != "read", r.inverse, r.predicted_error)

        best = min(cands, key=key)
        return self._with_warnings(best, edges)

    def _candidates(
        self,
        edges: _Edges,
        outputs: Sequence[int],
        occ: tuple[int, ...],
        inverse: bool,
        row: Table1Row | None,
    ) -> list[Realization]:
        n = self.profile.geometry.states
        want = {s: int(outputs[s]) ^ int(inverse) for s in occ}
        out: list[Realization] = []
        for pt, refs in enumerate(self.profile.page_refs):
            if row is not None and row.page_type != pt:
                continue
            if row is None or row.kind == "read":
                gap_sets = (
                    [row.gaps]
                    if row is not None
                    else itertools.product(range(n + 1), repeat=len(refs))
                )
                for gaps in gap_sets:
                    if all(1 ^ (sum(g <= s for g in gaps) & 1) == want[s] for s in occ):
                        fixed = row.fixed if row is not None else ()
                        out.append(self._plain(edges, pt, refs, tuple(gaps), inverse, fixed))
            if self.has_sbr and (row is None or row.kind == "sbr"):
                bands = [(lo, hi) for lo in range(n + 1) for hi in range(lo, n + 1)]
                band_sets = (
                    [row.gaps] if row is not None else itertools.product(bands, repeat=len(refs))
                )
                for bs in band_sets:
                    if all(int(all(not lo <= s < hi for lo, hi in bs)) == want[s] for s in occ):
                        fixed = row.fixed if row is not None else ()
                        out.append(self._sbr(edges, pt, refs, tuple(bs), inverse, fixed))
        return out

    def _reach(self, ref: int) -> np.ndarray:
        """Reference positions (in DAC steps) reachable by its offset register."""
        ro = self.profile.read_offsets
        d = round(ro.references[ref].default_mV / ro.step_mV)
        return np.arange(d + ro.code_min, d + ro.code_max + 1)

    def _floored(self, steps: np.ndarray) -> np.ndarray:
        """Where the chip really senses a position (DAC steps): not below its sense floor."""
        floor = self.profile.read_offsets.sense_floor_mV
        if floor is None:
            return steps
        return np.maximum(steps, math.ceil(floor / self.profile.read_offsets.step_mV))

    def _default_steps(self, ref: int) -> int:
        ro = self.profile.read_offsets
        return round(ro.references[ref].default_mV / ro.step_mV)

    def _plain(
        self,
        edges: _Edges,
        pt: int,
        refs: Sequence[int],
        gaps: tuple[int, ...],
        inverse: bool,
        fixed: tuple[Any, ...] = (),
    ) -> Realization:
        codes, cost = [], 0.0
        for i, (r, g) in enumerate(zip(refs, gaps, strict=True)):
            reach = self._reach(r)
            if fixed and fixed[i]:
                reach = np.array([self._default_steps(r)])
            c = edges.at(g, self._floored(reach))
            i = int(np.argmin(c))
            codes.append(int(reach[i]) - self._default_steps(r))
            cost += float(c[i])
        return Realization("read", pt, tuple(refs), gaps, tuple(codes), 0, inverse, min(cost, 1.0))

    def _sbr(
        self,
        edges: _Edges,
        pt: int,
        refs: Sequence[int],
        bands: tuple[tuple[int, int], ...],
        inverse: bool,
        fixed: tuple[Any, ...] = (),
    ) -> Realization:
        ro = self.profile.read_offsets
        deltas = np.arange(1, ro.code_max + 1)
        total = np.zeros(deltas.size)
        best_c: list[np.ndarray] = []
        for i, (r, (lo, hi)) in enumerate(zip(refs, bands, strict=True)):
            reach = self._reach(r)
            # cost[c, d] = lower edge at c - d + upper edge at c + d
            lo_pos = self._floored(reach[:, None] - deltas[None, :])
            hi_pos = self._floored(reach[:, None] + deltas[None, :])
            cost = edges.at(lo, lo_pos) + edges.at(hi, hi_pos)
            minus_fixed, plus_fixed = fixed[i] if fixed else (False, False)
            if minus_fixed or plus_fixed:  # that edge stays at the default reference
                centre = self._default_steps(r) + (deltas if minus_fixed else -deltas)
                cost = np.where(reach[:, None] == centre[None, :], cost, np.inf)
            idx = np.argmin(cost, axis=0)
            total += cost[idx, np.arange(deltas.size)]
            best_c.append(reach[idx] - self._default_steps(r))
        j = int(np.argmin(total))
        codes = tuple(int(c[j]) for c in best_c)
        return Realization(
            "sbr", pt, tuple(refs), bands, codes, int(deltas[j]), inverse, min(float(total[j]), 1.0)
        )

    def _with_warnings(self, r: Realization, edges: _Edges) -> Realization:
        if r.predicted_error <= 1e-4:
            return r
        ro = self.profile.read_offsets
        notes = []
        for ref, code in zip(r.refs, r.codes, strict=True):
            if code in (ro.code_min, ro.code_max):
                side = "down" if code == ro.code_min else "up"
                notes.append(
                    f"{ro.references[ref].name} wants to move further {side} than its DAC allows "
                    f"({code * ro.step_mV:+g} mV is the limit)"
                )
        if r.kind == "sbr" and r.delta_code == ro.code_max:
            notes.append(f"the soft-bit delta is at its limit ({r.delta_code * ro.step_mV:g} mV)")
        msg = f"MCFlash {r.describe(self.profile)}: expect about {r.predicted_error:.2%} bit errors"
        if any(0 in (g if isinstance(g, tuple) else (g,)) for g in r.gaps):
            msg += " (a reference must pass below the erased state L0)"
        if notes:
            msg += "; " + "; ".join(notes)
        return Realization(
            r.kind,
            r.page_type,
            r.refs,
            r.gaps,
            r.codes,
            r.delta_code,
            r.inverse,
            r.predicted_error,
            (msg,),
        )

    def realize_op(self, op: str, *, inverse: bool | None = None) -> Realization:
        """A named two-operand operation on an aligned pair (a = LSB, b = MSB).

        With variant "table1", the paper's row (NAND / NOR / XOR: with inverse
        read if inverse is not False and the chip has it, else without).
        """
        op = op.upper()
        if op not in OPS:
            raise UsageError(f"MCFlash operation {op!r}: allowed {', '.join(OPS)} and NOT")
        outputs = state_outputs(self.profile, OPS[op])
        if self.variant == "table1":
            inv_key = f"{op}-inv"
            use_inv = inv_key in TABLE1 and self.has_inverse and inverse is not False
            return self.realize(outputs, row=TABLE1[inv_key if use_inv else op])
        return self.realize(outputs, inverse=inverse)

    def realize_not(self) -> tuple[Realization, int, int]:
        """NOT of one operand: (realization, operand page type, constant of the other page).

        Searches the layouts (operand in LSB or MSB page, the other page all 0
        or all 1); ties go to the paper's (operand in MSB, LSB all 0).
        """
        gray = self.profile.geometry.gray_code
        options: list[tuple[tuple[float, int, int], Realization, int, int]] = []
        layouts = [(1, 0), (1, 1), (0, 0), (0, 1)]  # (operand page, constant) paper's first
        for rank, (p, const) in enumerate(layouts):
            occ = [s for s, g in enumerate(gray) if g[1 - p] == const]
            outputs = [1 - g[p] for g in gray]
            if self.variant == "table1" and (p, const) == (1, 0):
                r = self.realize(outputs, occ, row=TABLE1["NOT"])
            else:
                try:
                    r = self.realize(outputs, occ, inverse=False)
                except UnsupportedCapability:
                    continue
            bucket = math.floor(math.log2(max(r.predicted_error, ERROR_FREE)))
            options.append(((bucket, r.sensings, rank), r, p, const))
            if self.variant == "table1":
                break
        _, r, p, const = min(options, key=lambda o: o[0])
        return r, p, const

    # ---------------------------------------------------------------- execution

    def _set_codes(self, codes: Mapping[int, int], plan: Plan) -> None:
        """Set the read offsets (others back to 0), skipping registers already right."""
        chip = self.chip
        if self._codes is None:
            step = self.profile.read_offsets.step_mV
            now = chip.read_offsets_mV()
            self._codes = {
                i: round(now[r.name] / step)
                for i, r in enumerate(self.profile.read_offsets.references)
            }
        for i, ref in enumerate(self.profile.read_offsets.references):
            want = int(codes.get(i, 0))
            if self._codes.get(i) == want:
                continue
            chip.set_read_offset_code(i, want)
            busy = _feature_busy_ns(chip)
            plan.add(
                chip_op(
                    self.profile,
                    "set_feature",
                    f"SET FEATURES {ref.name} offset "
                    f"{want * self.profile.read_offsets.step_mV:+g} mV",
                    busy,
                )
            )
            self._codes[i] = want

    def execute(self, r: Realization, block: int, wl: int, plan: Plan) -> np.ndarray:
        """Run realization `r` on WL (block, wl); returns the result bits of the data area."""
        chip, profile = self.chip, self.profile
        nbits = profile.geometry.page_bytes * 8
        page = wl * profile.geometry.bits_per_cell + r.page_type
        self._set_codes(dict(zip(r.refs, r.codes, strict=True)), plan)
        for w in r.warnings:
            plan.warn(w)
        what = f"{r.describe(profile)} block {block} WL {wl}"
        if r.inverse:
            data, busy = _inverse_read(chip, block, page, r)
        elif r.kind == "sbr":
            res = chip.soft_bit_read(block, page, r.delta_code)
            data, busy = res.data, res.busy_ns
        else:
            res = chip.read_page(block, page)
            data, busy = res.data, res.busy_ns
        kind = "soft_bit_read" if r.kind == "sbr" else "read"
        plan.add(chip_op(profile, kind, what, busy, r.sensings, predicted_error=r.predicted_error))
        return unpack_cells(data, nbits)

    def forget_offsets(self) -> None:
        """Someone else (another planner on the same chip) may have set the offset registers:
        read them back before the next operation instead of trusting the cached codes."""
        self._codes = None

    def reset_offsets(self, plan: Plan) -> None:
        """Put every read offset back to 0 (default references)."""
        self._set_codes({}, plan)

    # ------------------------------------------------------------ composition

    def run(
        self, expr: Expr, operands: Mapping[str, PageLoc], scratch: Scratch, *, text: str = ""
    ) -> SchemeResult:
        plan = Plan(self.name, text or str(expr))
        runner = PairComposer(self, operands, scratch, plan)
        bits = runner.evaluate(expr)
        self.reset_offsets(plan)
        return SchemeResult(self.name, plan.expression, bits, plan)


# A value during composition: a stored page, or result bits on the host.
@dataclass
class _Value:
    loc: PageLoc | None = None
    bits: np.ndarray | None = None
    negated: bool = False


@dataclass
class PairComposer:
    """Lower an expression to pair operations (2-input truth tables of the two pages of one
    WL). Subclasses (ParaBit) override `pair` and `not_value`; `align` / `place` bring two
    values onto one scratch WL (copyback when the plane allows, else host read + program)."""

    scheme: Any
    operands: Mapping[str, PageLoc]
    scratch: Scratch
    plan: Plan
    _cache: dict[str, Any] = field(default_factory=dict)

    @property
    def profile(self) -> Profile:
        return self.scheme.profile

    def evaluate(self, e: Expr) -> np.ndarray:
        v = self.value(e)
        if v.negated:
            return self.not_value(_Value(v.loc, v.bits))
        if v.bits is None:
            assert v.loc is not None
            return self.plain_read(v.loc)
        return v.bits

    def value(self, e: Expr, negate: bool = False) -> _Value:
        if isinstance(e, Var):
            if e.name not in self.operands:
                raise UsageError(f"operand {e.name} is not stored")
            return _Value(loc=self.operands[e.name], negated=negate)
        if isinstance(e, Not):
            return self.value(e.arg, not negate)
        return self.nary(e, negate)

    def nary(self, e: Op, negate: bool) -> _Value:
        """An n-ary op; a negation on top goes into the truth table of the last pair."""
        tt = EXPR_KIND_TT[e.kind]
        last_tt = _complement(tt) if negate else tt
        vals = [self.value(a) for a in e.args]
        bpc = self.profile.geometry.bits_per_cell

        def colocated(v: _Value, w: _Value) -> bool:
            return (
                v.loc is not None
                and w.loc is not None
                and v.bits is None
                and w.bits is None
                and not v.loc.slc
                and not w.loc.slc
                and v.loc.block == w.loc.block
                and v.loc.wl(bpc) == w.loc.wl(bpc)
                and v.loc.page != w.loc.page
            )

        # combine pairs already sharing a WL first (no alignment needed)
        items: list[tuple[_Value, ...]] = []
        rest = list(vals)
        while rest:
            v = rest.pop(0)
            mate = next((w for w in rest if colocated(v, w)), None)
            if mate is not None:
                rest.remove(mate)
                items.append((v, mate))
            else:
                items.append((v,))
        if len(items) == 1 and len(items[0]) == 2:
            return self.pair(last_tt, *items[0])
        level = [self.pair(tt, *it) if len(it) == 2 else it[0] for it in items]
        while len(level) > 2:  # balanced reduction
            nxt = [self.pair(tt, level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
            if len(level) % 2:
                nxt.append(level[-1])
            level = nxt
        return self.pair(last_tt, level[0], level[1])

    def pair(self, tt: TT, x: _Value, y: _Value) -> _Value:
        """f(x, y) for two values: align them on one WL, then one MCFlash read."""
        # absorb input negations into the truth table
        if x.negated:
            tt = (tt[2], tt[3], tt[0], tt[1])
        if y.negated:
            tt = (tt[1], tt[0], tt[3], tt[2])
        block, wl, swapped = self.align(x, y)
        if swapped:
            tt = (tt[0], tt[2], tt[1], tt[3])
        r = self.scheme.realize(state_outputs(self.profile, tt))
        if r.predicted_error > ERROR_FREE:
            # e.g. NAND without inverse read: the complement is error-free, then NOT it
            comp = self.scheme.realize(state_outputs(self.profile, _complement(tt)))
            if comp.predicted_error <= ERROR_FREE:
                bits = self.scheme.execute(comp, block, wl, self.plan)
                self.plan.notes.append(
                    f"{r.describe(self.profile)} would need a reference below L0; ran the "
                    "complement and a NOT instead"
                )
                return _Value(bits=bits, negated=True)
        bits = self.scheme.execute(r, block, wl, self.plan)
        return _Value(bits=bits)

    def align(self, x: _Value, y: _Value) -> tuple[int, int, bool]:
        """(block, wl, swapped): x and y on one WL; swapped when x sits in the MSB page."""
        bpc = self.profile.geometry.bits_per_cell
        xl, yl = x.loc if x.bits is None else None, y.loc if y.bits is None else None
        if (
            xl is not None
            and yl is not None
            and not xl.slc
            and not yl.slc
            and xl.block == yl.block
            and xl.wl(bpc) == yl.wl(bpc)
            and xl.page != yl.page
        ):
            return xl.block, xl.wl(bpc), xl.page_type(bpc) == 1
        plane = None
        for v in (x, y):
            if v.bits is None and v.loc is not None:
                plane = self.scheme.chip.geometry.plane_of(v.loc.block)
                break
        try:
            block, wl = self.scratch.take_wl(self.plan, plane)
        except UsageError:
            block, wl = self.scratch.take_wl(self.plan, None)
        self.place(x, block, wl, 0)
        self.place(y, block, wl, 1)
        return block, wl, False

    def place(self, v: _Value, block: int, wl: int, page_type: int) -> None:
        """Write value v (without its negation, which the truth table absorbed) to a page."""
        chip, profile = self.scheme.chip, self.profile
        page = wl * profile.geometry.bits_per_cell + page_type
        if v.bits is None and v.loc is not None:
            geo = chip.geometry
            if not v.loc.slc and geo.plane_of(v.loc.block) == geo.plane_of(block):
                self.scheme.reset_offsets(self.plan)
                res = chip.copyback(v.loc.block, v.loc.page, block, page, blank_check=False)
                read_ns = res.busy_steps_ns[0] if res.busy_steps_ns else 0
                self.plan.add(
                    chip_op(
                        profile, "copyback", f"COPYBACK {v.loc} -> b{block}/p{page}",
                        res.busy_ns, 1, read_us=read_ns / 1000.0,
                    )
                )
                return
            bits = self.plain_read(v.loc)
        else:
            assert v.bits is not None
            bits = v.bits
        self.program_bits(bits, block, page)

    def program_bits(self, bits: np.ndarray, block: int, page: int) -> None:
        chip, profile = self.scheme.chip, self.profile
        res = chip.program_page(block, page, pack_cells(bits), blank_check=False)
        self.plan.add(
            chip_op(profile, "program", f"PROGRAM b{block}/p{page} (from the host)", res.busy_ns)
        )

    def plain_read(self, loc: PageLoc) -> np.ndarray:
        chip, profile = self.scheme.chip, self.profile
        self.scheme.reset_offsets(self.plan)
        res = chip.read_page(loc.block, loc.page, slc=loc.slc)
        sensings = (
            1 if loc.slc else len(profile.page_refs[loc.page_type(profile.geometry.bits_per_cell)])
        )
        self.plan.add(chip_op(profile, "read", f"READ {loc}", res.busy_ns, sensings))
        return unpack_cells(res.data, profile.geometry.page_bytes * 8)

    def not_value(self, v: _Value) -> np.ndarray:
        """NOT on the chip: inverse read of a stored page, or the constant-page layout."""
        chip, profile = self.scheme.chip, self.profile
        bpc = profile.geometry.bits_per_cell
        loc = v.loc if v.bits is None else None
        if loc is not None and self.scheme.has_inverse and not loc.slc:
            outputs = [1 - g[loc.page_type(bpc)] for g in profile.geometry.gray_code]
            r = self.scheme.realize(outputs, inverse=True)
            return self.scheme.execute(r, loc.block, loc.wl(bpc), self.plan)
        r, p, const = self.scheme.realize_not()
        plane = chip.geometry.plane_of(loc.block) if loc is not None else None
        block, wl = self.scratch.take_wl(self.plan, plane)
        nbits = profile.geometry.page_bytes * 8
        for pt in (0, 1):  # LSB before MSB
            if pt == p:
                self.place(v, block, wl, pt)
            elif const == 0:
                self.program_bits(np.zeros(nbits, np.uint8), block, wl * bpc + pt)
        self.plan.notes.append(
            f"NOT layout: operand in the {'MSB' if p else 'LSB'} page, the other page all {const}"
        )
        return self.scheme.execute(r, block, wl, self.plan)


def _complement(tt: TT) -> TT:
    return (1 - tt[0], 1 - tt[1], 1 - tt[2], 1 - tt[3])


def _inverse_supported(chip: Chip) -> bool:
    profile = chip.transport.profile
    vendor = getattr(profile, "vendor", None)
    return (
        getattr(vendor, "inverse_read", None) is not None
        and getattr(vendor, "test_mode", None) is not None
        and chip.transport.supports("inverse_read")
        and chip.transport.supports("test_mode")
    )


def _inverse_read(chip: Chip, block: int, page: int, r: Realization) -> tuple[bytes, int]:
    """Inverse read (or inverse soft-bit read) through the chip's test mode."""
    from nandlab.onfi.testmode import TestMode

    tm = TestMode(chip, allow_test_mode=True)
    if r.kind == "sbr":
        res = tm.soft_bit_read(block, page, r.delta_code, inverse=True)
    else:
        res = tm.read_page(block, page, inverse=True)
    return res.data, res.busy_ns


def _feature_busy_ns(chip: Chip) -> int:
    """GET + SET FEATURES of one offset register: 2 x tFEAT (the profile's, >= ONFI's 1 µs)."""
    return 2 * round(max(chip.profile.timing.t_feat_us, 1.0) * 1000)


register(McFlash)
