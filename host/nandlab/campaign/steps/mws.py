"""Multi-wordline sensing (MWS) steps, all in the chip's test mode. On blocks a cycle step
has just erased, writing their own operands: `mws_timing` and `mws_blocks_timing`, the
minimum error-free sensing time (Flash-Cosmos Figs. 12 and 13), and `mws_power`, the chip
power of inter-block MWS against a page read (Fig. 14). On operands an `esp_program` step
wrote: `mws_ops`, the bit errors of AND / NAND / OR / NOR over many operands (Sec. 5.2)."""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import replace
from typing import Annotated, Any, Literal, TypeVar

from pydantic import Field, model_validator

from nandlab.campaign.fields import Strict
from nandlab.campaign.steps.base import At, Context, Outcome, StepKind, UnitError, base_row
from nandlab.campaign.unit import Unit
from nandlab.characterize.mws_ops import INVERSE_OPS, PLAIN_OPS, measure_mws_ops
from nandlab.characterize.mws_power import measure_mws_power
from nandlab.characterize.mws_timing import Search, measure_inter_block, measure_intra_block

Counts = Annotated[list[Annotated[int, Field(ge=1, le=1024)]], Field(min_length=1)]
"""Numbers of blocks or operands sensed at once."""


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

    counts: Counts


class MwsPowerStep(Strict):
    """Inter-block power, once per chip: WL 0 of every campaign block programmed to 0, then
    a page read and an MWS over the first n blocks for each n in `counts` (within the
    profile's power budget), each over its POWER window."""

    counts: Counts
    allow_test_mode: bool = False


class MwsOpsStep(Strict):
    """Operations over the block's ESP-stored operand WLs (AND / NAND on data stored as it
    is, OR / NOR on data stored inverted), each run with 2.. operands cycling through
    `operands` until `bits` result bits were compared with the host's answer."""

    ops: list[Literal["AND", "NAND", "OR", "NOR"]] = Field(min_length=1)
    operands: Counts = Field(default_factory=lambda: [2, 8, 16, 32, 48])
    bits: float = Field(default=1e9, gt=0, le=1e12)
    allow_test_mode: bool = False


M = TypeVar("M", MwsTimingStep, MwsBlocksTimingStep, MwsPowerStep, MwsOpsStep)


class _Mws(StepKind[M]):
    """An MWS kind: it runs only in the test mode of a profile that declares MWS."""

    def apply(self, unit: Unit, ctx: Context) -> None:
        p = self.params(unit)
        if not p.allow_test_mode:
            raise self.refuse(
                unit, "MWS steps run in the chip's test mode: set allow_test_mode: true"
            )
        if ctx.profile.vendor.mws is None:
            raise self.refuse(unit, f"profile {ctx.profile.name} declares no MWS")
        self.take(unit, ctx, p)

    @abstractmethod
    def take(self, unit: Unit, ctx: Context, p: M) -> None:
        """The kind's own checks; then the blocks it writes are no longer erased."""


def _take_erased(unit: Unit, ctx: Context, block: int) -> None:
    assert unit.ce is not None
    b = ctx.blocks[(unit.ce, block)]
    if not b.erased:
        raise UnitError(f"unit {unit.key}: block {block} must be erased by a cycle step first")
    b.erased = False  # the step writes its operands over the block's strings


class MwsTiming(_Mws[MwsTimingStep]):
    name = "mws_timing"
    writes_chip = True
    partition = True

    def take(self, unit: Unit, ctx: Context, p: MwsTimingStep) -> None:
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


class MwsBlocksTiming(_Mws[MwsBlocksTimingStep]):
    name = "mws_blocks_timing"
    writes_chip = True
    per_block = False
    per_chip = True

    def take(self, unit: Unit, ctx: Context, p: MwsBlocksTimingStep) -> None:
        _take_plane(unit, ctx, p)

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        p = self.params(unit)
        blocks, base = campaign_blocks(unit, ctx), _plane_base(self, unit, ctx, at)
        return Outcome(measure_inter_block(at.chip, blocks, p.counts, unit.seed, base, p.search()))


class MwsPower(_Mws[MwsPowerStep]):
    name = "mws_power"
    writes_chip = True
    per_block = False
    per_chip = True

    def take(self, unit: Unit, ctx: Context, p: MwsPowerStep) -> None:
        mws = ctx.profile.vendor.mws
        if mws is not None and max(p.counts) > mws.max_blocks:
            raise self.refuse(
                unit,
                f"MWS power is measured within the profile's budget of {mws.max_blocks} blocks "
                "at once",
            )
        _take_plane(unit, ctx, p)

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        p = self.params(unit)
        blocks, base = campaign_blocks(unit, ctx), _plane_base(self, unit, ctx, at)
        return Outcome(measure_mws_power(at.chip, blocks, p.counts, base))


class MwsOps(_Mws[MwsOpsStep]):
    name = "mws_ops"
    partition = True

    def take(self, unit: Unit, ctx: Context, p: MwsOpsStep) -> None:
        held = self.holding_data(unit, ctx, None)
        if not held.written.slc:
            raise self.refuse(unit, f"block {unit.block} holds no SLC operands: use esp_program")
        if max(p.operands) > len(held.state.wls):
            raise self.refuse(
                unit, f"operand counts {p.operands}: the block holds {len(held.state.wls)} WLs"
            )
        fits = INVERSE_OPS if held.written.inverse else PLAIN_OPS
        wrong = [op for op in p.ops if op not in fits]
        if wrong:
            stored = "inverted" if held.written.inverse else "as they are"
            raise self.refuse(
                unit,
                f"block {unit.block} holds its operands {stored}: it runs {', '.join(fits)}, "
                f"not {', '.join(wrong)}",
            )

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        p = self.params(unit)
        held = self.holding_data(unit, ctx, None)
        base = base_row(unit, ctx, at.chip_id)
        wls = sorted(held.state.wls)
        return Outcome(
            measure_mws_ops(at.chip, held.block, wls, held.written, p.ops, p.operands, p.bits, base)
        )


STEP = MwsTiming()
BLOCKS_STEP = MwsBlocksTiming()
POWER_STEP = MwsPower()
OPS_STEP = MwsOps()
