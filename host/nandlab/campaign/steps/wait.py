"""`wait`: idle for some hours at the controller's temperature (virtual on a sim bench)."""

from __future__ import annotations

from pydantic import Field

from nandlab.campaign.fields import Strict
from nandlab.campaign.steps.base import At, Context, Outcome, StepKind
from nandlab.campaign.steps.thermal import hold, mean, oven
from nandlab.campaign.unit import Unit
from nandlab.characterize.retention import acceleration_factor


class WaitStep(Strict):
    """Idle for `hours` (virtual on a sim bench) at the controller's temperature."""

    hours: float = Field(ge=0, le=1e6)


class Wait(StepKind[WaitStep]):
    name = "wait"
    per_block = False

    def apply(self, unit: Unit, ctx: Context) -> None:
        hours = self.params(unit).hours
        env = ctx.profile.environment
        af = acceleration_factor(env.ambient_temp_C, ctx.temp_C, env.activation_energy_eV)
        for b in ctx.blocks.values():
            if b.written is not None:
                b.retention_age_h += hours * af

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        hours = self.params(unit).hours
        bench = at.bench
        if bench.has("oven"):
            readings = oven(bench, ctx.temp_C, hours, ctx.temp_C)
        else:
            ctl = bench.thermal if bench.has("thermal") else None
            readings = hold(ctl, hours, f"waiting {hours:g} h", at.progress)
        row = self.bench_row(unit, at.chip_id, temp_C=mean(readings, ctx.temp_C), bake_h=hours)
        return Outcome([row])


STEP = Wait()
