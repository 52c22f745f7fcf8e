"""`bake`: retention by a bake, given as hours at an oven temperature or as the equivalent of
an age at use temperature (Arrhenius).

The bake time of a retention target follows the test method's activation energy: the
step's `activation_energy_eV`, else the part's datasheet value (profile `environment`,
JEDEC's 1.1 eV unless the part states another). Never the virtual die's own mechanisms:
a bake is planned as a lab plans it, and the die then ages by its own physics.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field, field_validator, model_validator

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

EA_RANGE_EV = (0.1, 2.0)
"""Activation energies a bake may be planned with (eV): data-retention mechanisms of NAND
parts lie well inside (JEDEC's data-retention default 1.1 eV)."""
_EA_TEXT = re.compile(r"^\s*(?P<value>\d+(?:\.\d*)?|\.\d+)\s*(?P<unit>eV|meV)\s*$")


def activation_energy(value: Any) -> float:
    """An activation energy in eV from a number (eV) or a text with its unit ("1.1 eV",
    "700 meV"); ValueError naming the form and the allowed range otherwise."""
    if isinstance(value, bool):
        raise ValueError("activation_energy_eV is a number in eV, e.g. 1.1 or '1.1 eV'")
    if isinstance(value, str):
        match = _EA_TEXT.match(value)
        if match is None:
            raise ValueError(
                f"activation_energy_eV {value!r}: give a number in eV (1.1) or a value with "
                "its unit ('1.1 eV', '700 meV')"
            )
        value = float(match["value"]) / (1000.0 if match["unit"] == "meV" else 1.0)
    if not isinstance(value, (int, float)):
        raise ValueError("activation_energy_eV is a number in eV, e.g. 1.1 or '1.1 eV'")
    lo, hi = EA_RANGE_EV
    if not lo <= float(value) <= hi:
        raise ValueError(
            f"activation energy {float(value):g} eV is outside {lo:g}..{hi:g} eV (JEDEC data "
            "retention: 1.1 eV; use the value the test method or the part's datasheet states)"
        )
    return float(value)


class BakeStep(Strict):
    """Retention: bake for `hours` at `temp_C`, or for the equivalent of `retention` (AGE@TEMP).

    `activation_energy_eV`: the test method's Arrhenius activation energy (eV, 0.1..2), a
    number or a text with its unit ("1.1 eV", "700 meV"); default: the part's datasheet
    value (profile environment), JEDEC's 1.1 eV unless it states another.
    """

    retention: str | None = None
    temp_C: float | None = Field(default=None, ge=-40, le=300)
    hours: float | None = Field(default=None, ge=0, le=1e6)
    activation_energy_eV: float | None = None

    @field_validator("activation_energy_eV", mode="before")
    @classmethod
    def _ea(cls, value: Any) -> float | None:
        return None if value is None else activation_energy(value)

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


def planning_ea(ctx: Context, p: BakeStep) -> float:
    """The activation energy (eV) the bake is planned with: the step's, else the datasheet's."""
    if p.activation_energy_eV is not None:
        return p.activation_energy_eV
    return ctx.profile.environment.activation_energy_eV


def bake_plan(ctx: Context, p: BakeStep) -> tuple[float, float, float, str]:
    """(oven temperature °C, oven hours, equivalent age h at use temperature, label)."""
    ea = planning_ea(ctx, p)
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
        p = self.params(unit)
        temp, hours, age, label = bake_plan(ctx, p)
        readings = oven(at.bench, temp, hours, ctx.temp_C, at.progress)
        row = self.bench_row(
            unit,
            at.chip_id,
            bake_temp_C=temp,
            bake_h=hours,
            retention_age_h=age,
            retention_label=label,
            activation_energy_eV=planning_ea(ctx, p),
            temp_C=mean(readings, temp),
            setpoint_C=temp,
        )
        # age_h: the data's equivalent age, for data that later runs find on the chip
        event = {"kind": "bake", "temp_C": temp, "hours": hours, "label": label, "age_h": age}
        return Outcome([row], ledger=[event])


STEP = Bake()
