"""`temperature`: set the temperature controller and wait until it settles (virtual on a sim
bench: the virtual controller is where it is set)."""

from __future__ import annotations

from pydantic import Field

from nandlab.campaign.fields import Strict
from nandlab.campaign.steps.base import At, Context, Outcome, StepKind
from nandlab.campaign.unit import Unit


class TemperatureStep(Strict):
    """Set the temperature controller (virtual on a sim bench) to `temp_C`."""

    temp_C: float = Field(ge=-40, le=150)


class Temperature(StepKind[TemperatureStep]):
    name = "temperature"
    per_block = False
    temperature_control = True

    def apply(self, unit: Unit, ctx: Context) -> None:
        ctx.temp_C = self.params(unit).temp_C

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        target = self.params(unit).temp_C
        bench = at.bench
        if bench.has("oven") and not bench.has("thermal"):
            measured = target  # a virtual bench holds its dies where they are set
        else:
            measured = float(bench.thermal.settle(target))
        row = self.bench_row(unit, at.chip_id, temp_C=measured, setpoint_C=target)
        return Outcome([row])


STEP = Temperature()
