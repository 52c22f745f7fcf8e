"""`mws_timing`: the minimum error-free multi-wordline sensing time of an intra-block MWS
(Flash-Cosmos Fig. 12) on each block, which a cycle step has just erased."""

from __future__ import annotations

from pydantic import Field, model_validator

from nandlab.campaign.fields import Strict
from nandlab.campaign.steps.base import At, Context, Outcome, StepKind, UnitError, base_row
from nandlab.campaign.unit import Unit
from nandlab.characterize.mws_timing import measure_intra_block


class MwsTimingStep(Strict):
    """Write MWS operands on `wls` WLs of one string per block, then search the shortest
    strobe (µs, 10 ns grid in [min_us, max_us]) at which `reads` MWS sensings in a row are
    error free. Needs the chip's test mode (MWS, ESP, sensing time)."""

    wls: int = Field(ge=1, le=512)
    reads: int = Field(default=2, ge=1, le=100)
    min_us: float = Field(default=10.0, gt=0, le=1000)
    max_us: float = Field(default=40.0, gt=0, le=1000)
    allow_test_mode: bool = False

    @model_validator(mode="after")
    def _range(self) -> MwsTimingStep:
        if self.min_us >= self.max_us:
            raise ValueError(f"min_us {self.min_us} must be below max_us {self.max_us}")
        return self


class MwsTiming(StepKind[MwsTimingStep]):
    name = "mws_timing"
    model = MwsTimingStep
    partition = True

    def apply(self, unit: Unit, ctx: Context) -> None:
        p = self.params(unit)
        b = ctx.block(unit)
        if not p.allow_test_mode:
            raise UnitError(
                f"unit {unit.key}: MWS timing runs in the chip's test mode: set "
                "allow_test_mode: true"
            )
        if ctx.profile.vendor.mws is None:
            raise UnitError(f"unit {unit.key}: profile {ctx.profile.name} declares no MWS")
        strings = ctx.profile.geometry.wls_per_string
        if p.wls > strings:
            raise UnitError(f"unit {unit.key}: {p.wls} WLs, but a string has {strings}")
        if not b.erased:
            raise UnitError(
                f"unit {unit.key}: block {unit.block} must be erased by a cycle step first"
            )
        b.erased = False  # the step writes its operands over the block's strings

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        p = self.params(unit)
        assert unit.block is not None
        base = base_row(unit, self.after(unit, ctx), at.chip_id)
        rows = measure_intra_block(
            at.chip,
            unit.block,
            p.wls,
            unit.seed,
            base,
            reads=p.reads,
            lo_us=p.min_us,
            hi_us=p.max_us,
        )
        return Outcome(rows)


STEP = MwsTiming()
