"""ParaBit (shared/papers/parabit.txt): bitwise operations by sequencing the page buffer.

The page buffer of each bitline: sense node SO, latch L1 (nodes A, C = not A)
and latch L2 (nodes B, OUT = not B); transistors M1 (A |= SO), M2 (A &= ~SO)
and M3 (OUT |= A); sensing at VREAD0 (below every state) and VREAD1..3 (the
read references between states). The chip layer runs these as test-mode
micro-operations (`nandlab.onfi.testmode`); this module holds the paper's
sequences as data and runs them.

Operands: `a` in the LSB page and `b` in the MSB page of one WL (Table 1;
states E, S1, S2, S3 = (1,1), (1,0), (0,0), (0,1)). `SEQUENCES` are Fig. 5
(AND, OR), Fig. 6 (XNOR) and Tables 2-5 (NAND, NOR, XOR, NOT-LSB, NOT-MSB).
Location-free ParaBit (Sec. 4.2, Tables 6-7, Fig. 8) computes AND, OR and
XOR of pages on different WLs of one plane, sensing each WL in turn into the
same latches; AND and XOR need the second operand in an LSB page (one
sensing), and XOR uses the extra SO inverter. `latch_model` evaluates a
sequence on the four states symbolically, so the truth table of every
sequence is checked without a chip.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from nandlab.analysis import unpack_cells
from nandlab.errors import UnsupportedCapability, UsageError
from nandlab.onfi.testmode import Step, TestMode, init_l1, init_l2, m1, m2, m3, sense
from nandlab.onfi_spec.testmode import LatchOp
from nandlab.schemes.base import PageLoc, Plan, Scheme, Scratch, chip_op, register
from nandlab.schemes.expr import Expr
from nandlab.schemes.pairs import OPS, TT, PairComposer, PairValue

if TYPE_CHECKING:
    from nandlab.onfi import Chip
    from nandlab.profiles import Profile

_CAPABILITIES = ("test_mode", "latch_ops")
"""The profile's vendor operations ParaBit runs on (latch sequences inside the test mode)."""

# Paper's VREADk = sense(k): VREAD0 below E, VREAD1 E|S1, VREAD2 S1|S2, VREAD3 S2|S3.
SEQUENCES: dict[str, tuple[Step, ...]] = {
    "AND": (init_l1(), init_l2(), sense(1), m2(), m3()),  # Fig. 5(a)
    "OR": (init_l1(), init_l2(), sense(2), m2(), sense(3), m1(), m3()),  # Fig. 5(b)
    "XNOR": (  # Fig. 6, steps 1-6
        init_l1(),
        init_l2(),
        sense(1),
        m2(),
        m3(),
        sense(0),
        m2(),
        sense(2),
        m1(),
        sense(3),
        m2(),
        m3(),
    ),
    "NAND": (init_l1(True), init_l2(), sense(1), m1(), m3()),  # Table 2
    "NOR": (init_l1(True), init_l2(), sense(2), m1(), sense(3), m2(), m3()),  # Table 3
    "XOR": (  # Table 4
        init_l1(True),
        init_l2(),
        sense(3),
        m1(),
        m3(),
        sense(0),
        m2(),
        sense(1),
        m1(),
        sense(2),
        m2(),
        m3(),
    ),
    "NOT-LSB": (init_l1(True), init_l2(), sense(2), m1(), m3()),  # Table 5
    "NOT-MSB": (init_l1(True), init_l2(), sense(1), m1(), sense(3), m2(), m3()),  # Table 5
}

# Reading one page into node A (from A = 1), or its complement (from A = 0).
_READ_INTO_A = {0: (sense(2), m2()), 1: (sense(1), m2(), sense(3), m1())}
_READ_NOT_INTO_A = {0: (sense(2), m1()), 1: (sense(1), m1(), sense(3), m2())}


def latch_model(steps: Sequence[Step], states: int = 4) -> dict[str, tuple[int, ...]]:
    """Node values per state E, S1, S2, S3 after `steps` (one WL; the paper's L(X) notation).

    SO after sensing VREADk is 1 for states >= k (the cell does not conduct).
    """
    a = [1] * states
    out = [0] * states
    so = [0] * states
    for st in steps:
        if st.op == LatchOp.INIT_L1:
            a = [0 if st.arg & 1 else 1] * states
        elif st.op == LatchOp.INIT_L2:
            out = [0] * states
        elif st.op == LatchOp.SENSE:
            so = [int(s >= st.arg) for s in range(states)]
        elif st.op == LatchOp.M1:
            x = [1 - v for v in so] if st.arg & 1 else so
            a = [p | q for p, q in zip(a, x, strict=True)]
        elif st.op == LatchOp.M2:
            x = [1 - v for v in so] if st.arg & 1 else so
            a = [p & (1 - q) for p, q in zip(a, x, strict=True)]
        elif st.op == LatchOp.M3:
            out = [p | q for p, q in zip(out, a, strict=True)]
        elif st.op == LatchOp.XOR:
            out = [p ^ q for p, q in zip(out, a, strict=True)]
    return {
        "A": tuple(a),
        "C": tuple(1 - v for v in a),
        "OUT": tuple(out),
        "B": tuple(1 - v for v in out),
    }


def sensings(steps: Sequence[Step]) -> int:
    return sum(1 for st in steps if st.op == LatchOp.SENSE)


@dataclass(frozen=True)
class LocFreeStep:
    """One latch_run of a location-free sequence: the page it senses and its steps."""

    loc: PageLoc
    steps: tuple[Step, ...]


def location_free(
    op: str, first: PageLoc, second: PageLoc, bits_per_cell: int
) -> list[LocFreeStep]:
    """Location-free AND / OR / XOR of `first` (any page) and `second` (different WL).

    AND and XOR sense `second` once, so it must be an LSB page (Sec. 4.2).
    """
    pf, ps = first.page_type(bits_per_cell), second.page_type(bits_per_cell)
    if op in ("AND", "XOR") and ps != 0:
        raise UsageError(f"location-free {op} needs its second operand in an LSB page")
    if op == "AND":  # Table 6
        return [
            LocFreeStep(first, (init_l1(), init_l2(), *_READ_INTO_A[pf])),
            LocFreeStep(second, (sense(2), m2(), m3())),
        ]
    if op == "OR":  # Table 7
        return [
            LocFreeStep(first, (init_l1(), init_l2(), *_READ_INTO_A[pf], m3())),
            LocFreeStep(second, (init_l1(), *_READ_INTO_A[ps], m3())),
        ]
    if op == "XOR":  # Fig. 8: ~M N, then M ~N through the SO inverter
        return [
            LocFreeStep(first, (init_l1(True), init_l2(), *_READ_NOT_INTO_A[pf])),
            LocFreeStep(second, (sense(2), m2(), m3())),
            LocFreeStep(first, (init_l1(), *_READ_INTO_A[pf])),
            LocFreeStep(second, (sense(2), m2(inverted_so=True), m3())),
        ]
    raise UsageError(f"location-free ParaBit supports AND, OR, XOR, not {op}")


class ParaBit(Scheme):
    """ParaBit on one chip: latch micro-operations in the chip's test mode.

    allow_test_mode must be True: the latch sequences are test-mode operations.
    """

    name = "parabit"
    title = "ParaBit: latch-sequenced reads"
    needs_test_mode = True

    def __init__(self, chip: Chip, *, allow_test_mode: bool = False) -> None:
        super().__init__(chip)
        reason = self.unsupported(chip)
        if reason:
            raise UnsupportedCapability(reason)
        self.profile = chip.profile
        self.tm = TestMode(chip, allow_test_mode=allow_test_mode)

    @classmethod
    def unsupported(cls, chip: Chip) -> str | None:
        profile = chip.transport.profile
        if profile is None:
            return "ParaBit needs an MLC chip profile"
        lacks = cls.datasheet_lacks(profile)
        if lacks is not None:
            return lacks
        for cap in _CAPABILITIES:
            if not chip.transport.supports(cap):
                return f"ParaBit needs the test-mode capability '{cap}', which the bench lacks"
        return None

    @classmethod
    def datasheet_lacks(cls, profile: Profile) -> str | None:
        if profile.geometry.cell != "mlc":
            return "ParaBit needs an MLC chip profile"
        for cap in _CAPABILITIES:
            if getattr(profile.vendor, cap, None) is None:
                return (
                    f"ParaBit needs the test-mode capability '{cap}', which profile "
                    f"{profile.name} does not declare"
                )
        return None

    def reset_offsets(self, plan: Plan) -> None:
        """ParaBit reads at the default references (nothing to undo)."""

    def run_steps(
        self, loc: PageLoc, steps: Sequence[Step], plan: Plan, what: str, read: bool = True
    ) -> np.ndarray | None:
        from nandlab.onfi.testmode import Node

        res = self.tm.latch_run(loc.block, loc.page, steps, read=Node.OUT if read else None)
        plan.add(
            chip_op(
                self.profile,
                "latch",
                f"{what} ({len(steps)} micro-ops)",
                res.busy_ns,
                res.sensings,
                steps=len(steps),
            )
        )
        if not read:
            return None
        return unpack_cells(res.data, self.profile.geometry.page_bytes * 8)

    def operation(self, op: str, block: int, wl: int, plan: Plan) -> np.ndarray:
        """One of SEQUENCES on WL (block, wl) (a = LSB, b = MSB); the OUT node's bits."""
        if op not in SEQUENCES:
            raise UsageError(f"ParaBit operation {op!r}: allowed {', '.join(SEQUENCES)}")
        page = wl * self.profile.geometry.bits_per_cell
        bits = self.run_steps(
            PageLoc(block, page), SEQUENCES[op], plan, f"ParaBit {op} block {block} WL {wl}"
        )
        assert bits is not None
        return bits

    def location_free(self, op: str, first: PageLoc, second: PageLoc, plan: Plan) -> np.ndarray:
        """Location-free AND / OR / XOR of two pages on one plane."""
        geo = self.chip.geometry
        if geo.plane_of(first.block) != geo.plane_of(second.block):
            raise UsageError("location-free ParaBit needs both operands on one plane")
        parts = location_free(op, first, second, self.profile.geometry.bits_per_cell)
        bits = None
        for i, part in enumerate(parts):
            bits = self.run_steps(
                part.loc,
                part.steps,
                plan,
                f"ParaBit location-free {op} part {i + 1} on {part.loc}",
                read=i == len(parts) - 1,
            )
        assert bits is not None
        return bits

    def evaluate(
        self, expr: Expr, operands: Mapping[str, PageLoc], scratch: Scratch, plan: Plan
    ) -> np.ndarray:
        return ParaBitComposer(self, operands, scratch, plan).evaluate(expr)


_SYMMETRIC = {tt: name for name, tt in OPS.items()}


class ParaBitComposer(PairComposer):
    """Expression lowering for ParaBit: pair sequences, location-free ops, reallocation."""

    def pair(self, tt: TT, x: PairValue, y: PairValue) -> PairValue:
        bpc = self.profile.geometry.bits_per_cell
        if x.negated:
            tt = (tt[2], tt[3], tt[0], tt[1])
        if y.negated:
            tt = (tt[1], tt[0], tt[3], tt[2])
        x, y = PairValue(x.loc, x.bits), PairValue(y.loc, y.bits)
        if tt not in _SYMMETRIC:  # a & ~b and the like: materialise the NOT of one input
            x = PairValue(bits=self.not_value(x))
            tt = (tt[2], tt[3], tt[0], tt[1])
            if tt not in _SYMMETRIC:
                raise UsageError(f"ParaBit cannot lower truth table {tt}")
        op = _SYMMETRIC[tt]
        scheme: ParaBit = self.scheme
        xl, yl = x.loc if x.bits is None else None, y.loc if y.bits is None else None
        geo = scheme.chip.geometry
        if (
            xl is not None
            and yl is not None
            and not xl.slc
            and not yl.slc
            and (xl.block, xl.wl(bpc)) != (yl.block, yl.wl(bpc))
            and geo.plane_of(xl.block) == geo.plane_of(yl.block)
            and op in ("AND", "OR", "XOR")
        ):
            if op == "OR" or yl.page_type(bpc) == 0:
                return PairValue(bits=scheme.location_free(op, xl, yl, self.plan))
            if xl.page_type(bpc) == 0:
                return PairValue(bits=scheme.location_free(op, yl, xl, self.plan))
        block, wl, _ = self.align(x, y)  # symmetric ops: the order does not matter
        return PairValue(bits=scheme.operation(op, block, wl, self.plan))

    def not_value(self, v: PairValue) -> np.ndarray:
        scheme: ParaBit = self.scheme
        bpc = self.profile.geometry.bits_per_cell
        loc = v.loc if v.bits is None else None
        if loc is None or loc.slc:
            block, wl = self.scratch.take_wl(self.plan)
            self.place(v, block, wl, 0)
            loc = PageLoc(block, wl * bpc)
        op = "NOT-MSB" if loc.page_type(bpc) == 1 else "NOT-LSB"
        return scheme.operation(op, loc.block, loc.wl(bpc), self.plan)


register(ParaBit)
