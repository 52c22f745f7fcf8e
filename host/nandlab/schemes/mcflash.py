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
a model of the state distributions (`nandlab.schemes.mcflash_model.StateModel`:
measured by a Vth sweep of the chip in hand, or, without one, nominal states from the
datasheet's default references). The paper's Table 1 rows are available as fixed gap
assignments (`TABLE1`); `variant="table1"` runs them as published, each edge at the
position in its gap that the model puts the fewest errors at: on a worn, baked part the
states have moved, and a measured model follows them where the default references stay.
Offsets are clamped to the DAC range, with a warning when the range falls short (NAND /
NOR / XOR without inverse read need a reference below the erased state L0).

NOT of one operand needs the other page of its WL to hold a constant
(paper: operand in the MSB page, LSB page all 0); `realize_not` searches the
four constant layouts. Expressions are lowered to pair operations by
`nandlab.schemes.pairs.PairComposer`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from nandlab.analysis import unpack_cells
from nandlab.errors import UnsupportedCapability, UsageError
from nandlab.schemes.base import PageLoc, Plan, Scheme, Scratch, chip_op, register
from nandlab.schemes.expr import Expr
from nandlab.schemes.mcflash_model import EdgeCosts, StateModel
from nandlab.schemes.mcflash_table1 import TABLE1, Table1Row
from nandlab.schemes.pairs import ERROR_FREE, OPS, PairComposer, state_outputs

if TYPE_CHECKING:
    from nandlab.onfi import Chip
    from nandlab.profiles import Profile


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


class McFlash(Scheme):
    """MCFlash on one chip: read offsets (SET FEATURES), soft-bit read, inverse read.

    Args:
        model: state distributions to plan against, best measured on the chip
            (`StateModel.from_vth`); default: nominal states from the datasheet's default
            read references (`StateModel.from_references`).
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
        self.model = model or StateModel.from_references(profile)
        self.variant = variant
        self.has_sbr = chip.transport.supports("soft_bit_read")
        self.has_inverse = allow_test_mode and _inverse_supported(chip)
        self._codes: dict[int, int] | None = None
        self._edges: dict[tuple[int, ...], EdgeCosts] = {}

    @classmethod
    def unsupported(cls, chip: Chip) -> str | None:
        profile = chip.transport.profile
        if profile is None:
            return "MCFlash needs a chip profile (read-offset registers)"
        return cls.datasheet_lacks(profile)

    @classmethod
    def datasheet_lacks(cls, profile: Profile) -> str | None:
        if profile.geometry.cell != "mlc":
            return f"MCFlash needs MLC pages; {profile.name} is {profile.geometry.cell.upper()}"
        if not profile.read_offsets.references:
            return f"MCFlash needs read-offset registers; {profile.name} declares none"
        return None

    # ----------------------------------------------------------------- planning

    def _edge_model(self, occupied: Sequence[int]) -> EdgeCosts:
        key = tuple(occupied)
        if key not in self._edges:
            self._edges[key] = EdgeCosts(self.profile, self.model, occupied)
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
        edges: EdgeCosts,
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
                        out.append(self._plain(edges, pt, refs, tuple(gaps), inverse))
            if self.has_sbr and (row is None or row.kind == "sbr"):
                bands = [(lo, hi) for lo in range(n + 1) for hi in range(lo, n + 1)]
                band_sets = (
                    [row.gaps] if row is not None else itertools.product(bands, repeat=len(refs))
                )
                for bs in band_sets:
                    if all(int(all(not lo <= s < hi for lo, hi in bs)) == want[s] for s in occ):
                        out.append(self._sbr(edges, pt, refs, tuple(bs), inverse))
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
        edges: EdgeCosts,
        pt: int,
        refs: Sequence[int],
        gaps: tuple[int, ...],
        inverse: bool,
    ) -> Realization:
        codes, cost = [], 0.0
        for r, g in zip(refs, gaps, strict=True):
            reach = self._reach(r)
            c = edges.at(g, self._floored(reach))
            i = int(np.argmin(c))
            codes.append(int(reach[i]) - self._default_steps(r))
            cost += float(c[i])
        return Realization("read", pt, tuple(refs), gaps, tuple(codes), 0, inverse, min(cost, 1.0))

    def _sbr(
        self,
        edges: EdgeCosts,
        pt: int,
        refs: Sequence[int],
        bands: tuple[tuple[int, int], ...],
        inverse: bool,
    ) -> Realization:
        ro = self.profile.read_offsets
        deltas = np.arange(1, ro.code_max + 1)
        total = np.zeros(deltas.size)
        best_c: list[np.ndarray] = []
        for r, (lo, hi) in zip(refs, bands, strict=True):
            reach = self._reach(r)
            # cost[c, d] = lower edge at c - d + upper edge at c + d
            lo_edge = reach[:, None] - deltas[None, :]
            hi_edge = reach[:, None] + deltas[None, :]
            cost = edges.at(lo, self._floored(lo_edge)) + edges.at(hi, self._floored(hi_edge))
            idx = np.argmin(cost, axis=0)
            total += cost[idx, np.arange(deltas.size)]
            best_c.append(reach[idx] - self._default_steps(r))
        j = int(np.argmin(total))
        codes = tuple(int(c[j]) for c in best_c)
        return Realization(
            "sbr", pt, tuple(refs), bands, codes, int(deltas[j]), inverse, min(float(total[j]), 1.0)
        )

    def _with_warnings(self, r: Realization, edges: EdgeCosts) -> Realization:
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

    def evaluate(
        self, expr: Expr, operands: Mapping[str, PageLoc], scratch: Scratch, plan: Plan
    ) -> np.ndarray:
        bits = PairComposer(self, operands, scratch, plan).evaluate(expr)
        self.reset_offsets(plan)
        return bits



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
