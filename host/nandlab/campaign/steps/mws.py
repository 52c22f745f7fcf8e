"""Multi-wordline sensing (MWS) on blocks a cycle step has just erased, each kind writing its
own operands (test mode: MWS, ESP, sensing time): `mws_timing` and `mws_blocks_timing`, the
minimum error-free sensing time (Flash-Cosmos Figs. 12 and 13), and `mws_power`, the chip
power of inter-block MWS against a page read (Fig. 14)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic import Field, model_validator

from nandlab.campaign.fields import Strict
from nandlab.campaign.steps.base import At, Context, Outcome, StepKind, UnitError, base_row
from nandlab.campaign.unit import Unit
from nandlab.characterize.mws_power import measure_mws_power
from nandlab.characterize.mws_timing import Search, measure_inter_block, measure_intra_block


class MwsSearchStep(Strict):
    """The strobe search: the shortest strobe (µs, 10 ns grid in [min_us, max_us]) at which
    `reads` MWS sensings in a row are error free."""

    reads: int = Field(default=2, ge=1, le=100)
    min_us: float = Field(default=10.0, gt=0, le=1000)
    max_us: float = Field(default=40.0, gt=0, le=1000)
    allow_test_mode: bool = False

    @model_validator(mode="after")
    def _range(self) -> MwsSearchStep:
        if self.min_us >= self.max_us:
            raise ValueError(f"min_us {self.min_us} must be below max_us {self.max_us}")
        return self

    def search(self) -> Search:
        return Search(self.reads, self.min_us, self.max_us)


class MwsTimingStep(MwsSearchStep):
    """Intra-block: operands on `wls` WLs of one string of each block (every non-conducting
    string has exactly one 0 among them), then the strobe search."""

    wls: int = Field(ge=1, le=512)


class MwsBlocksTimingStep(MwsSearchStep):
    """Inter-block, once per chip: operands on WL 0 of every campaign block (per bitline at
    most one block's cell conducts), then the strobe search over the first n blocks for
    each n in `counts`, overriding the profile's power budget above its block count."""

    counts: list[int] = Field(min_length=1)

    @model_validator(mode="after")
    def _counts(self) -> MwsBlocksTimingStep:
        if min(self.counts) < 1:
            raise ValueError("every count of blocks sensed at once must be >= 1")
        return self


class MwsPowerStep(Strict):
    """Inter-block power, once per chip: WL 0 of every campaign block programmed to 0, then
    a page read and an MWS over the first n blocks for each n in `counts` (within the
    profile's power budget), each over its POWER window."""

    counts: list[int] = Field(min_length=1)
    allow_test_mode: bool = False

    @model_validator(mode="after")
    def _counts(self) -> MwsPowerStep:
        if min(self.counts) < 1:
            raise ValueError("every count of blocks sensed at once must be >= 1")
        return self


def _check(unit: Unit, ctx: Context, p: MwsSearchStep | MwsPowerStep) -> None:
    if not p.allow_test_mode:
        raise UnitError(
            f"unit {unit.key}: MWS timing runs in the chip's test mode: set allow_test_mode: true"
        )
    if ctx.profile.vendor.mws is None:
        raise UnitError(f"unit {unit.key}: profile {ctx.profile.name} declares no MWS")


def _take_erased(unit: Unit, ctx: Context, block: int) -> None:
    assert unit.ce is not None
    b = ctx.blocks[(unit.ce, block)]
    if not b.erased:
        raise UnitError(f"unit {unit.key}: block {block} must be erased by a cycle step first")
    b.erased = False  # the step writes its operands over the block's strings


class MwsTiming(StepKind[MwsTimingStep]):
    name = "mws_timing"
    model = MwsTimingStep
    partition = True

    def apply(self, unit: Unit, ctx: Context) -> None:
        p = self.params(unit)
        _check(unit, ctx, p)
        strings = ctx.profile.geometry.wls_per_string
        if p.wls > strings:
            raise UnitError(f"unit {unit.key}: {p.wls} WLs, but a string has {strings}")
        assert unit.block is not None
        _take_erased(unit, ctx, unit.block)

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        p = self.params(unit)
        assert unit.block is not None
        base = base_row(unit, self.after(unit, ctx), at.chip_id)
        return Outcome(measure_intra_block(at.chip, unit.block, p.wls, unit.seed, base, p.search()))


def campaign_blocks(unit: Unit, ctx: Context) -> list[int]:
    """The campaign's blocks on the unit's chip, in the campaign's order."""
    return [block for (ce, block) in ctx.blocks if ce == unit.ce]


def _take_plane(unit: Unit, ctx: Context, p: MwsBlocksTimingStep | MwsPowerStep) -> None:
    """Checks of a per-chip MWS kind over the campaign's blocks, which it then writes."""
    _check(unit, ctx, p)
    blocks = campaign_blocks(unit, ctx)
    if max(p.counts) > len(blocks):
        raise UnitError(
            f"unit {unit.key}: {max(p.counts)} blocks sensed at once, but the campaign has "
            f"{len(blocks)}"
        )
    planes = ctx.profile.geometry.planes
    if len({block % planes for block in blocks}) > 1:
        raise UnitError(
            f"unit {unit.key}: inter-block MWS shares bitlines: every block must be on one "
            f"plane ({planes} planes, block b on plane b % {planes})"
        )
    for block in blocks:
        _take_erased(unit, ctx, block)


def _plane_base(kind: StepKind[Any], unit: Unit, ctx: Context, at: At) -> dict[str, Any]:
    """Row coordinates of a per-chip unit: the blocks went through the same steps, so the
    first one's stand for all."""
    blocks = campaign_blocks(unit, ctx)
    return base_row(replace(unit, block=blocks[0]), kind.after(unit, ctx), at.chip_id)


class MwsBlocksTiming(StepKind[MwsBlocksTimingStep]):
    name = "mws_blocks_timing"
    model = MwsBlocksTimingStep
    per_block = False
    per_chip = True

    def apply(self, unit: Unit, ctx: Context) -> None:
        _take_plane(unit, ctx, self.params(unit))

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        p = self.params(unit)
        blocks, base = campaign_blocks(unit, ctx), _plane_base(self, unit, ctx, at)
        return Outcome(measure_inter_block(at.chip, blocks, p.counts, unit.seed, base, p.search()))


class MwsPower(StepKind[MwsPowerStep]):
    name = "mws_power"
    model = MwsPowerStep
    per_block = False
    per_chip = True

    def apply(self, unit: Unit, ctx: Context) -> None:
        p = self.params(unit)
        if ctx.profile.vendor.mws is not None and max(p.counts) > ctx.profile.vendor.mws.max_blocks:
            raise UnitError(
                f"unit {unit.key}: MWS power is measured within the profile's budget of "
                f"{ctx.profile.vendor.mws.max_blocks} blocks at once"
            )
        _take_plane(unit, ctx, p)

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        p = self.params(unit)
        blocks, base = campaign_blocks(unit, ctx), _plane_base(self, unit, ctx, at)
        return Outcome(measure_mws_power(at.chip, blocks, p.counts, base))


STEP = MwsTiming()
BLOCKS_STEP = MwsBlocksTiming()
POWER_STEP = MwsPower()
