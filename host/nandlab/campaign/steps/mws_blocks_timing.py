"""`mws_blocks_timing`: the minimum error-free sensing time of an inter-block MWS over 1..N
of the campaign's blocks at once (Flash-Cosmos Fig. 13), once per chip, on blocks a cycle
step has just erased."""

from __future__ import annotations

from dataclasses import replace

from pydantic import Field, model_validator

from nandlab.campaign.fields import Strict
from nandlab.campaign.steps.base import At, Context, Outcome, StepKind, UnitError, base_row
from nandlab.campaign.unit import Unit
from nandlab.characterize.mws_timing import measure_inter_block


class MwsBlocksTimingStep(Strict):
    """Write MWS operands on WL 0 of every campaign block (at most one block's cell conducts
    per bitline), then for each count n the shortest strobe (µs, 10 ns grid in [min_us,
    max_us]) at which `reads` MWS sensings of the first n blocks in a row are error free.
    Counts above the profile's power budget for MWS blocks override it. Needs the chip's
    test mode (MWS, ESP, sensing time)."""

    counts: list[int] = Field(min_length=1)
    reads: int = Field(default=2, ge=1, le=100)
    min_us: float = Field(default=10.0, gt=0, le=1000)
    max_us: float = Field(default=40.0, gt=0, le=1000)
    allow_test_mode: bool = False

    @model_validator(mode="after")
    def _check(self) -> MwsBlocksTimingStep:
        if min(self.counts) < 1:
            raise ValueError("every count of blocks sensed at once must be >= 1")
        if self.min_us >= self.max_us:
            raise ValueError(f"min_us {self.min_us} must be below max_us {self.max_us}")
        return self


def campaign_blocks(unit: Unit, ctx: Context) -> list[int]:
    """The campaign's blocks on the unit's chip, in the campaign's order."""
    return [block for (ce, block) in ctx.blocks if ce == unit.ce]


class MwsBlocksTiming(StepKind[MwsBlocksTimingStep]):
    name = "mws_blocks_timing"
    model = MwsBlocksTimingStep
    per_block = False
    per_chip = True

    def apply(self, unit: Unit, ctx: Context) -> None:
        p = self.params(unit)
        if not p.allow_test_mode:
            raise UnitError(
                f"unit {unit.key}: MWS timing runs in the chip's test mode: set "
                "allow_test_mode: true"
            )
        if ctx.profile.vendor.mws is None:
            raise UnitError(f"unit {unit.key}: profile {ctx.profile.name} declares no MWS")
        blocks = campaign_blocks(unit, ctx)
        if max(p.counts) > len(blocks):
            raise UnitError(
                f"unit {unit.key}: {max(p.counts)} blocks sensed at once, but the campaign "
                f"has {len(blocks)}"
            )
        planes = ctx.profile.geometry.planes
        if len({block % planes for block in blocks}) > 1:
            raise UnitError(
                f"unit {unit.key}: inter-block MWS shares bitlines: every block must be on "
                f"one plane ({planes} planes, block b on plane b % {planes})"
            )
        assert unit.ce is not None
        for block in blocks:
            b = ctx.blocks[(unit.ce, block)]
            if not b.erased:
                raise UnitError(
                    f"unit {unit.key}: block {block} must be erased by a cycle step first"
                )
            b.erased = False  # the step writes its operands over the block's strings

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        p = self.params(unit)
        blocks = campaign_blocks(unit, ctx)
        # the blocks went through the same steps: the first one's coordinates stand for all
        base = base_row(replace(unit, block=blocks[0]), self.after(unit, ctx), at.chip_id)
        rows = measure_inter_block(
            at.chip,
            blocks,
            p.counts,
            unit.seed,
            base,
            reads=p.reads,
            lo_us=p.min_us,
            hi_us=p.max_us,
        )
        return Outcome(rows)


STEP = MwsBlocksTiming()
