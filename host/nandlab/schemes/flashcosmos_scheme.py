"""Flash-Cosmos as a `Scheme`: any bitwise expression, lowered onto multi-wordline sensing.

The chip-level operations live in `nandlab.schemes.flashcosmos.FlashCosmos`;
this module plans an expression onto them, so `nandlab compute` and campaign
`compute` steps can run Flash-Cosmos beside the other schemes:

- a literal (an operand or its NOT) must sit in an SLC WL of the plane the
  expression runs on; an operand stored elsewhere (an MLC / TLC page, another
  plane) is read once and programmed with ESP into a scratch SLC WL, and a
  negated operand inside AND / OR is stored inverted the same way (the paper's
  De Morgan layout), each move counted in the plan;
- AND / NAND of literals: intra-block MWS, accumulated in the S-latch across
  strings; OR / NOR: inter-block MWS within the profile's block budget,
  accumulated in the C-latch; XOR / XNOR: the latch XOR; NOT: inverse read;
- a sum of products whose products each sit in one string: one MWS command
  (equation (1)); other nestings are evaluated bottom-up, each intermediate
  result stored with ESP into scratch (noted in the plan).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from nandlab.analysis import pack_cells, unpack_cells
from nandlab.errors import UsageError
from nandlab.schemes.base import PageLoc, Plan, Scheme, Scratch, chip_op, register
from nandlab.schemes.expr import Expr, Not, Op, Var
from nandlab.schemes.flashcosmos import FcResult, FlashCosmos

if TYPE_CHECKING:
    from nandlab.onfi import Chip
    from nandlab.profiles import Profile

Operand = tuple[int, int]

_SENSING_KINDS = {"mws": 1, "read": 1}


class FlashCosmosScheme(Scheme):
    """Flash-Cosmos on one chip (test-mode MWS, ESP and latch XOR; allow_test_mode=True)."""

    name = "flashcosmos"
    title = "Flash-Cosmos: multi-wordline sensing on ESP-programmed SLC operands"
    needs_test_mode = True

    def __init__(self, chip: Chip, *, allow_test_mode: bool = False) -> None:
        super().__init__(chip)
        self.fc = FlashCosmos(chip, allow_test_mode=allow_test_mode)
        self.profile = chip.profile

    @classmethod
    def unsupported(cls, chip: Chip) -> str | None:
        return FlashCosmos.unsupported(chip)

    @classmethod
    def datasheet_lacks(cls, profile: Profile) -> str | None:
        return FlashCosmos.datasheet_lacks(profile)

    @classmethod
    def layout(cls, names: list[str], block: int, profile: Profile) -> dict[str, PageLoc]:
        """One operand per SLC WL, WLs of sub-block 0 first, so AND operands share a string."""
        geo = profile.geometry
        order = sorted(range(geo.wls_per_block), key=lambda wl: (wl % geo.sub_blocks, wl))
        if len(names) > len(order):
            raise UsageError(f"{len(names)} operands do not fit one block: at most {len(order)}")
        return {n: PageLoc(block, order[i], True) for i, n in enumerate(names)}

    def evaluate(
        self, expr: Expr, operands: Mapping[str, PageLoc], scratch: Scratch, plan: Plan
    ) -> np.ndarray:
        return _Lowering(self, operands, scratch, plan).evaluate(expr)


class _Lowering:
    def __init__(
        self,
        scheme: FlashCosmosScheme,
        operands: Mapping[str, PageLoc],
        scratch: Scratch,
        plan: Plan,
    ) -> None:
        self.fc = scheme.fc
        self.chip = scheme.chip
        self.profile = scheme.profile
        self.operands = operands
        self.scratch = scratch
        self.plan = plan
        self.nbits = self.profile.geometry.page_bytes * 8
        first = next(iter(operands.values()), None)
        self.plane = None if first is None else self.chip.geometry.plane_of(first.block)
        self._moved: dict[tuple[str, bool], Operand] = {}
        self._host: dict[str, np.ndarray] = {}

    # ------------------------------------------------------------ placement

    def _operand_bits(self, name: str) -> np.ndarray:
        """The operand's bits as a plain read returns them (one read, counted, cached)."""
        if name not in self._host:
            loc = self.operands[name]
            got = self.chip.read_page(
                loc.block, loc.page, slc=loc.slc, length=self.profile.geometry.page_bytes
            )
            self.plan.add(
                chip_op(self.profile, "read", f"read operand {name} at {loc}", got.busy_ns, 1)
            )
            self._host[name] = unpack_cells(got.data, self.nbits)
        return self._host[name]

    def _store(self, bits: np.ndarray, what: str) -> Operand:
        block, wl = self.scratch.take_slc_wl(self.plan, self.plane)
        res = self.fc.store(block, wl, pack_cells(bits))
        self.plan.add(
            chip_op(self.profile, "program", f"ESP program {what} -> b{block}/wl{wl}", res.busy_ns)
        )
        return block, wl

    def literal(self, name: str, inverted: bool = False) -> Operand:
        """(block, WL) of the operand (or its inverse) in an SLC WL of the working plane."""
        key = (name, inverted)
        if key in self._moved:
            return self._moved[key]
        loc = self.operands[name]
        in_place = loc.slc and not inverted and self.chip.geometry.plane_of(loc.block) == self.plane
        if in_place:
            self._moved[key] = (loc.block, loc.page)
        else:
            bits = self._operand_bits(name)
            self._moved[key] = self._store(
                1 - bits if inverted else bits, f"{'~' if inverted else ''}{name}"
            )
            self.plan.notes.append(
                f"operand {'~' if inverted else ''}{name} moved to an ESP-programmed SLC WL"
            )
        return self._moved[key]

    # ------------------------------------------------------------ evaluation

    def _done(self, res: FcResult, what: str) -> np.ndarray:
        for kind, busy_ns, blocks in res.ops:
            detail = {"blocks": blocks} if kind == "mws" else {}
            self.plan.add(
                chip_op(
                    self.profile,
                    kind,
                    f"{kind.upper()} {what}",
                    busy_ns,
                    _SENSING_KINDS.get(kind, 0),
                    **detail,
                )
            )
        return unpack_cells(res.data, self.nbits)

    @staticmethod
    def _literal_of(e: Expr) -> tuple[str, bool] | None:
        if isinstance(e, Var):
            return e.name, False
        if isinstance(e, Not) and isinstance(e.arg, Var):
            return e.arg.name, True
        return None

    def evaluate(self, e: Expr) -> np.ndarray:
        lit = self._literal_of(e)
        if lit is not None:
            name, inverted = lit
            op = self.literal(name)
            if inverted:
                return self._done(self.fc.not_(op), f"NOT {name}")
            return self._done(self.fc.and_([op]), f"read {name}")
        if isinstance(e, Not) and isinstance(e.arg, Op):
            return self.nary(e.arg, invert=True)
        if isinstance(e, Op):
            return self.nary(e, invert=False)
        assert isinstance(e, Not)  # NOT of NOT (the parser keeps it): inverse of the inner
        return 1 - self.evaluate(e.arg)

    def _as_operand(self, e: Expr, inverted_ok: bool) -> Operand:
        """A child as a stored operand: a literal in place, else its result stored in scratch."""
        lit = self._literal_of(e)
        if lit is not None and (inverted_ok or not lit[1]):
            return self.literal(lit[0], lit[1])
        bits = self.evaluate(e)
        self.plan.notes.append(f"intermediate {e} stored in scratch")
        return self._store(bits, str(e))

    def nary(self, e: Op, *, invert: bool) -> np.ndarray:
        kind = e.kind
        args = list(e.args)
        if kind == "or" and all(isinstance(a, Op) and a.kind == "and" for a in args):
            sop = self._sum_of_products(args, invert)
            if sop is not None:
                return sop
        if kind in ("and", "or"):
            ops = [self._as_operand(a, inverted_ok=True) for a in args]
            label = ("N" if invert else "") + kind.upper()
            res = (
                self.fc.and_(ops, invert=invert)
                if kind == "and"
                else self.fc.or_(ops, invert=invert)
            )
            return self._done(res, f"{label} of {len(ops)}")
        # xor; inverted (XNOR): the last operand read inversely, A ^ ... ^ ~Z
        ops = [self._as_operand(a, inverted_ok=True) for a in args]
        label = "XNOR" if invert else "XOR"
        return self._done(self.fc.xor(ops, xnor=invert), f"{label} of {len(ops)}")

    def _sum_of_products(self, terms: Sequence[Expr], invert: bool) -> np.ndarray | None:
        """Equation (1) in one MWS command when every product lies in one string."""
        products: list[list[Operand]] = []
        used: set[tuple[int, int]] = set()
        for t in terms:
            assert isinstance(t, Op)
            lits = [self._literal_of(a) for a in t.args]
            if any(lit is None for lit in lits):
                return None
            ops = [self.literal(n, inv) for n, inv in lits if n is not None]  # type: ignore[misc]
            strings = {(b, wl % self.fc.sub_blocks) for b, wl in ops}
            if len(strings) != 1 or strings <= used:  # two products in one string would AND
                return None
            used |= strings
            products.append(ops)
        blocks = {b for term in products for b, _ in term}
        if len(blocks) > self.fc.max_blocks:
            return None
        res = self.fc.sop(products, invert=invert)
        return self._done(res, f"sum of {len(products)} products (equation 1)")


register(FlashCosmosScheme)
