"""Pair operations: 2-input truth tables over the two pages of one MLC WL, and the composer
that lowers an expression to them.

MCFlash (one shifted or soft-bit read per pair) and ParaBit (one latch-sequenced read per
pair) share the lowering: pairs already on one WL combine first, the rest reduce as a
balanced tree; negations fold into the truth tables; two values that do not share a WL are
brought onto a scratch WL (COPYBACK when the plane allows, else a host read and a program),
and the plan counts both.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from nandlab.analysis import pack_cells, unpack_cells
from nandlab.errors import UsageError
from nandlab.schemes.base import PageLoc, Plan, Scratch, chip_op
from nandlab.schemes.expr import Expr, Not, Op, Var

if TYPE_CHECKING:
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

def state_outputs(profile: Profile, tt: TT) -> tuple[int, ...]:
    """The truth table over states: output of state s for a = LSB bit, b = MSB bit."""
    return tuple(tt[2 * g[0] + g[1]] for g in profile.geometry.gray_code)



# A value during composition: a stored page, or result bits on the host.
@dataclass
class PairValue:
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
            return self.not_value(PairValue(v.loc, v.bits))
        if v.bits is None:
            assert v.loc is not None
            return self.plain_read(v.loc)
        return v.bits

    def value(self, e: Expr, negate: bool = False) -> PairValue:
        if isinstance(e, Var):
            if e.name not in self.operands:
                raise UsageError(f"operand {e.name} is not stored")
            return PairValue(loc=self.operands[e.name], negated=negate)
        if isinstance(e, Not):
            return self.value(e.arg, not negate)
        return self.nary(e, negate)

    def nary(self, e: Op, negate: bool) -> PairValue:
        """An n-ary op; a negation on top goes into the truth table of the last pair."""
        tt = EXPR_KIND_TT[e.kind]
        last_tt = complement(tt) if negate else tt
        vals = [self.value(a) for a in e.args]
        bpc = self.profile.geometry.bits_per_cell

        def colocated(v: PairValue, w: PairValue) -> bool:
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
        items: list[tuple[PairValue, ...]] = []
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

    def pair(self, tt: TT, x: PairValue, y: PairValue) -> PairValue:
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
            comp = self.scheme.realize(state_outputs(self.profile, complement(tt)))
            if comp.predicted_error <= ERROR_FREE:
                bits = self.scheme.execute(comp, block, wl, self.plan)
                self.plan.notes.append(
                    f"{r.describe(self.profile)} would need a reference below L0; ran the "
                    "complement and a NOT instead"
                )
                return PairValue(bits=bits, negated=True)
        bits = self.scheme.execute(r, block, wl, self.plan)
        return PairValue(bits=bits)

    def align(self, x: PairValue, y: PairValue) -> tuple[int, int, bool]:
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

    def place(self, v: PairValue, block: int, wl: int, page_type: int) -> None:
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

    def not_value(self, v: PairValue) -> np.ndarray:
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


def complement(tt: TT) -> TT:
    return (1 - tt[0], 1 - tt[1], 1 - tt[2], 1 - tt[3])

