"""`bake`: retention by a bake, given as hours at an oven temperature or as the equivalent of
an age at use temperature (Arrhenius)."""

from __future__ import annotations

from pydantic import Field, model_validator

from nandlab.campaign.fields import Strict
from nandlab.campaign.steps.base import At, Context, Outcome, StepKind
from nandlab.campaign.steps.thermal import mean, oven
from nandlab.campaign.unit import Unit
from nandlab.characterize.retention import (
    acceleration_factor,
    bake_hours,
    parse_retention,
)
from nandlab.errors import UsageError


class BakeStep(Strict):
    """Retention: bake for `hours` at `temp_C`, or for the equivalent of `retention` (AGE@TEMP)."""

    retention: str | None = None
    temp_C: float | None = Field(default=None, ge=-40, le=300)
    hours: float | None = Field(default=None, ge=0, le=1e6)
    activation_energy_eV: float | None = Field(default=None, gt=0, le=3)

    @model_validator(mode="after")
    def _one_form(self) -> BakeStep:
        if (self.retention is None) == (self.hours is None):
            raise ValueError("give either retention (AGE@TEMP) or hours (with temp_C), not both")
        if self.hours is not None and self.temp_C is None:
            raise ValueError("hours needs temp_C (the oven temperature, °C)")
        if self.retention is not None:
            try:
                parse_retention(self.retention)
            except UsageError as exc:  # names the form, or the bound exceeded
                raise ValueError(str(exc)) from None
        return self


def bake_plan(ctx: Context, p: BakeStep) -> tuple[float, float, float, str]:
    """(oven temperature °C, oven hours, equivalent age h at use temperature, label)."""
    ea = p.activation_energy_eV or ctx.profile.environment.activation_energy_eV
    if p.retention is not None:
        retention = parse_retention(p.retention)
        temp = p.temp_C if p.temp_C is not None else ctx.profile.environment.bake_temp_C
        return temp, bake_hours(retention, temp, ea), retention.age_h, retention.label
    assert p.hours is not None and p.temp_C is not None
    use = ctx.profile.environment.ambient_temp_C
    age = p.hours * acceleration_factor(use, p.temp_C, ea)
    return p.temp_C, p.hours, age, f"{p.hours:g}h@{p.temp_C:g}C"


class Bake(StepKind[BakeStep]):
    name = "bake"
    per_block = False
    temperature_control = True

    def apply(self, unit: Unit, ctx: Context) -> None:
        temp, hours, age, label = bake_plan(ctx, self.params(unit))
        for b in ctx.blocks.values():
            if b.written is None:
                continue
            b.retention_age_h += age
            b.retention_label = (
                label if b.retention_label is None else f"{b.retention_label}+{label}"
            )
            b.bake_temp_C, b.bake_h = temp, b.bake_h + hours

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        temp, hours, age, label = bake_plan(ctx, self.params(unit))
        readings = oven(at.bench, temp, hours, ctx.temp_C, at.progress)
        row = self.bench_row(
            unit,
            at.chip_id,
            bake_temp_C=temp,
            bake_h=hours,
            retention_age_h=age,
            retention_label=label,
            temp_C=mean(readings, temp),
            setpoint_C=temp,
        )
        # age_h: the data's equivalent age, for data that later runs find on the chip
        event = {"kind": "bake", "temp_C": temp, "hours": hours, "label": label, "age_h": age}
        return Outcome([row], ledger=[event])


STEP = Bake()
