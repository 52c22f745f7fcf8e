"""`esp_program`: program WLs in SLC mode through the chip's test mode with enhanced SLC
programming (ESP: Flash-Cosmos Fig. 11), or regular SLC programming through the same path,
or in a TLC die's MLC mode (Flash-Cosmos Fig. 8); rows carry each page's program time
(tESP / tPROG) and the SLC setting."""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from pydantic import Field, model_validator

from nandlab.campaign.steps.base import At, Context, Outcome, base_row
from nandlab.campaign.steps.program import ProgramKind, ProgramStep
from nandlab.campaign.unit import Unit
from nandlab.characterize.common import op_row
from nandlab.characterize.readback import page_data, spec_page, spec_pages
from nandlab.onfi import TestMode


class EspProgramStep(ProgramStep):
    """ESP raises the SLC verify level by `verify_raise_mV` with ISPP steps of `esp_step_mV`
    (more loops: longer tESP, wider margins); `verify_raise_mV: null` programs regular SLC;
    `mlc: true` programs 2 bits a cell in a TLC die's MLC mode instead (no ESP there). Needs
    the chip's test mode."""

    mode: Literal["slc"] = "slc"
    mlc: bool = False
    esp_step_mV: float = Field(default=100.0, gt=0, le=1000)
    verify_raise_mV: float | None = Field(default=None, ge=0, le=5000)
    allow_test_mode: bool = False

    @model_validator(mode="after")
    def _no_power(self) -> EspProgramStep:
        if self.power:
            raise ValueError("esp_program measures program time, not energy: leave power off")
        if self.mlc and self.verify_raise_mV is not None:
            raise ValueError("ESP is an SLC-mode program: leave verify_raise_mV null with mlc")
        return self

    def setting(self) -> str:
        """The setting as the rows' `expression` says it."""
        if self.verify_raise_mV is None:
            return "regular SLC"
        return f"ESP step {self.esp_step_mV:g} mV, verify +{self.verify_raise_mV:g} mV"


class EspProgram(ProgramKind):
    name = "esp_program"
    model: type[ProgramStep] = EspProgramStep

    def apply(self, unit: Unit, ctx: Context) -> None:
        p = self.params(unit)
        assert isinstance(p, EspProgramStep)
        if not p.allow_test_mode:
            raise self.refuse(
                unit, "ESP programs in the chip's test mode: set allow_test_mode: true"
            )
        if p.mlc:
            if ctx.profile.vendor.mlc_mode is None:
                raise self.refuse(unit, f"profile {ctx.profile.name} declares no MLC mode")
        elif ctx.profile.vendor.esp is None:
            raise self.refuse(unit, f"profile {ctx.profile.name} declares no ESP")
        super().apply(unit, ctx)
        b = ctx.block(unit)
        assert b.written is not None
        if p.mlc:
            b.written = replace(b.written, slc=False, mlc=True)

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        p = self.params(unit)
        assert isinstance(p, EspProgramStep) and unit.block is not None
        after = self.after(unit, ctx)
        spec = after.block(unit).written
        assert spec is not None
        profile, block = ctx.profile, unit.block
        base = {**base_row(unit, after, at.chip_id), "block": block}
        tm = TestMode(at.chip, allow_test_mode=True)
        rows = []
        if spec.mlc:
            for wl in sorted(set(p.wls)):
                for pt, name in spec_pages(profile, spec):
                    page = spec_page(profile, spec, wl, pt)
                    done = tm.program_mlc(block, page, page_data(profile, spec, block, wl, pt))
                    where = {"wl": wl, "page": page, "page_type": name}
                    rows.append(op_row(profile, "program", done.busy_ns, {**base, **where}))
            return Outcome(rows)
        if p.verify_raise_mV is None:
            tm.clear_esp()
        else:
            tm.set_esp(step_mV=p.esp_step_mV, verify_raise_mV=p.verify_raise_mV)
        try:
            for wl in sorted(set(p.wls)):
                done = tm.program_esp(block, wl, page_data(profile, spec, block, wl, 0))
                rows.append(
                    op_row(
                        profile,
                        "program",
                        done.busy_ns,
                        {**base, "page_type": "SLC"},
                        wl=wl,
                        page=wl,
                        expression=p.setting(),
                    )
                )
        finally:
            tm.clear_esp()
        return Outcome(rows)


STEP = EspProgram()
