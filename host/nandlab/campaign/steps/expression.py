"""`expression`: evaluate one bitwise expression over named operands in flash with each scheme,
checked bit by bit against the host's result. What `nandlab compute` runs.

Operands are stored into each block first (`store`: NAME -> random:SEED, zeros, ones or
checker, in the layout of the first scheme) or are already on the chip (`located`: NAME ->
BLOCK:PAGE[:slc], their reference read back). One row per scheme: the result's bit errors,
the plan's sensings, busy time and energy, and in `detail` the plan (or why the scheme
cannot run) as JSON.
"""

from __future__ import annotations

import json

from pydantic import Field, field_validator, model_validator

from nandlab.analysis import cell_bit_errors
from nandlab.campaign.fields import Strict
from nandlab.campaign.steps.base import (
    At,
    Context,
    Outcome,
    StepKind,
    UnitError,
    base_row,
)
from nandlab.campaign.steps.erase import erased_once
from nandlab.campaign.unit import Unit
from nandlab.errors import UsageError


class ExpressionStep(Strict):
    """One expression with every scheme in `schemes` (none: every scheme the chip runs)."""

    expr: str = Field(min_length=1)
    store: dict[str, str] = Field(default_factory=dict)
    located: dict[str, str] = Field(default_factory=dict)
    schemes: list[str] = Field(default_factory=list)
    scratch: list[int] = Field(default_factory=list)
    options: dict[str, bool | int | float | str] = Field(default_factory=dict)
    """Passed to the schemes: allow_test_mode, variant, pec..."""
    show_bits: int = Field(default=0, ge=0, le=4096)
    """The first result bits each row's detail keeps."""

    @field_validator("schemes")
    @classmethod
    def _schemes(cls, value: list[str]) -> list[str]:
        from nandlab.schemes.compute import load_schemes

        known = load_schemes()
        unknown = [s for s in value if s not in known]
        if unknown:
            raise ValueError(f"scheme '{unknown[0]}' is unknown (allowed: {', '.join(known)})")
        return value

    @model_validator(mode="after")
    def _operands(self) -> ExpressionStep:
        from nandlab.schemes.base import PageLoc
        from nandlab.schemes.compute import load_schemes, spec_bytes
        from nandlab.schemes.expr import parse, variables

        try:
            names = variables(parse(self.expr))
            for spec in self.store.values():
                spec_bytes(spec, 1, 0, 0)
            for loc in self.located.values():
                PageLoc.parse(loc)
        except UsageError as exc:
            raise ValueError(str(exc)) from None
        test_mode = [s for s in self.schemes if load_schemes()[s].needs_test_mode]
        if test_mode and self.options.get("allow_test_mode") is not True:
            raise ValueError(
                f"scheme {test_mode[0]} runs in the chip's test mode: set "
                "options.allow_test_mode: true (nandlab compute: --allow-test-mode)"
            )
        both = sorted(set(self.store) & set(self.located))
        if both:
            raise ValueError(f"operand {', '.join(both)} is both stored and located")
        missing = [n for n in names if n not in self.store and n not in self.located]
        if missing:
            raise ValueError(f"operand {', '.join(missing)} of the expression is not stored")
        return self


class Expression(StepKind[ExpressionStep]):
    name = "expression"
    writes_chip = True

    def apply(self, unit: Unit, ctx: Context) -> None:
        p = self.params(unit)
        assert unit.ce is not None and unit.block is not None
        if unit.block in p.scratch:
            raise UnitError(
                f"unit {unit.key}: block {unit.block} is both the store block and a scratch block"
            )
        overlap = sorted(set(p.scratch) & {blk for (ce, blk) in ctx.blocks if ce == unit.ce})
        if overlap:
            raise UnitError(
                f"unit {unit.key}: scratch block {overlap[0]} is one of the campaign's blocks: "
                "a scheme would erase its data; choose scratch blocks outside blocks:"
            )
        self._check_places(unit, ctx, p)
        if p.store:
            erased_once(unit, ctx, ready=False)

    def _check_places(self, unit: Unit, ctx: Context, p: ExpressionStep) -> None:
        """Scratch blocks, located operands and the store layout inside the part (its
        datasheet geometry), so a misplaced operand is refused before the block is erased."""
        from nandlab.schemes.base import PageLoc
        from nandlab.schemes.compute import load_schemes

        for name in p.schemes:  # named schemes must run; "every scheme" skips those that cannot
            lacks = load_schemes()[name].datasheet_lacks(ctx.profile)
            if lacks is not None:
                raise self.refuse(unit, lacks)
        geo = ctx.profile.geometry
        for b in p.scratch:
            if not 0 <= b < geo.blocks:
                why = f"scratch block {b} is outside the chip (0..{geo.blocks - 1})"
                raise self.refuse(unit, why)
        for name, text in p.located.items():
            loc = PageLoc.parse(text)
            pages = geo.wls_per_block if loc.slc else geo.pages_per_block
            if not (0 <= loc.block < geo.blocks and 0 <= loc.page < pages):
                raise self.refuse(
                    unit,
                    f"operand {name} at {text} is outside the chip: blocks 0..{geo.blocks - 1}, "
                    f"pages 0..{pages - 1}",
                )
        if p.store:
            assert unit.block is not None
            layout = load_schemes()[p.schemes[0] if p.schemes else "mcflash"]
            layout.layout(list(p.store), unit.block, ctx.profile)

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        from nandlab.schemes.base import PageLoc
        from nandlab.schemes.compute import compute, read_operands, store_operands
        from nandlab.schemes.expr import parse, variables
        from nandlab.schemes.reference import evaluate

        p = self.params(unit)
        assert unit.block is not None
        chip = at.chip
        operands = {}
        if p.store:
            layout = p.schemes[0] if p.schemes else "mcflash"
            operands.update(store_operands(chip, p.store, block=unit.block, scheme=layout))
        if p.located:
            locs = {n: PageLoc.parse(v) for n, v in p.located.items()}
            operands.update(read_operands(chip, locs))
        report = compute(
            chip, p.expr, operands, schemes=p.schemes or None, scratch=p.scratch, **p.options
        )
        chip.reset_read_offsets()
        expr = parse(p.expr)
        reference = evaluate(expr, {n: operands[n].bits for n in variables(expr)})
        base = {**base_row(unit, self.after(unit, ctx), at.chip_id), "block": unit.block}
        rows = []
        for run in report.runs:
            detail = {
                **run.to_dict(),
                "reference_bits": report.bits,
                "reference_ones": report.reference_ones,
            }
            row = {**base, "operation": "expression", "scheme": run.scheme, "expression": p.expr}
            if run.result is not None:
                plan = run.result.plan
                row.update(
                    cell_bit_errors(reference, run.result.bits).as_row(),
                    sensings=plan.sensings,
                    latency_us=plan.latency_us,
                    energy_uJ=plan.energy_uJ,
                    energy_measured=False,
                )
                if p.show_bits:
                    detail["first_bits"] = "".join(
                        map(str, run.result.bits[: p.show_bits].tolist())
                    )
            row["detail"] = json.dumps(detail, default=str)
            rows.append(row)
        return Outcome(rows)


STEP = Expression()
