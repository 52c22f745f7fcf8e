"""`program`: program WLs of each block (just erased by a cycle step) with a data pattern."""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from pydantic import Field, field_validator

from nandlab.campaign.fields import Mode, Strict, WlList, check_pattern
from nandlab.campaign.steps.base import At, Context, Outcome, StepKind, base_row
from nandlab.campaign.unit import Unit
from nandlab.characterize.readback import program_pages


class ProgramStep(Strict):
    """Program WLs of each block (just erased by a cycle step) with a pattern."""

    wls: WlList = Field(default_factory=lambda: list(range(8)))
    pattern: str = "random"
    scramble: bool = False
    inverse: bool = False
    mode: Mode = "native"
    power: bool = False
    order: Literal["wl", "mlc"] = "wl"
    """Page programming order (nandlab.characterize.readback.page_order): WL by WL, or the
    MLC page order (a WL's MSB page after its string neighbour's LSB page)."""
    seed: int | None = Field(default=None, ge=0, le=2**63 - 1)
    """Pattern seed; None: the unit's seed (from the campaign seed and the unit key)."""

    _pattern = field_validator("pattern")(check_pattern)


class ProgramKind(StepKind[ProgramStep]):
    name = "program"
    writes_chip = True
    partition = True

    def apply(self, unit: Unit, ctx: Context) -> None:
        p = self.params(unit)
        geo = ctx.profile.geometry
        b = ctx.block(unit)
        if not b.erased:
            raise self.refuse(
                unit, f"block {unit.block} must be erased by a cycle step before it is programmed"
            )
        bad = [w for w in p.wls if not 0 <= w < geo.wls_per_block]
        if bad:
            raise self.refuse(unit, f"WL {bad[0]} outside 0..{geo.wls_per_block - 1}")
        b.written = self.data_written(unit, ctx, p.pattern, p.mode, p.scramble, p.inverse)
        if p.seed is not None:
            b.written = replace(b.written, seed=p.seed)
        b.wls = tuple(sorted(set(p.wls)))
        b.erased = False
        b.retention_age_h, b.retention_label, b.bake_h, b.bake_temp_C = 0.0, None, 0.0, None
        b.disturb_reads = 0

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        p = self.params(unit)
        after = self.after(unit, ctx)
        b = after.block(unit)
        assert b.written is not None and unit.block is not None
        rows = program_pages(
            at.chip, unit.block, b.wls, b.written, base_row(unit, after, at.chip_id),
            power=p.power,
            order=p.order,
        )
        return Outcome(rows)


STEP = ProgramKind()
