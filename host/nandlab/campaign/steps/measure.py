"""`measure`: RBER, Vth histograms, read-retry search, read latency and read energy of the
programmed WLs."""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import Field, field_validator

from nandlab.campaign.fields import Strict, WlList
from nandlab.campaign.steps.base import At, Context, Outcome, StepKind, base_row
from nandlab.campaign.unit import Unit
from nandlab.characterize.common import op_row
from nandlab.characterize.readback import (
    DataSpec,
    energy_row,
    measure_pages,
    page_address,
    page_data,
    page_types,
)
from nandlab.characterize.retry import search_offsets
from nandlab.characterize.vth import measure_vth
from nandlab.onfi.power import read_energy

MEASUREMENTS = ("rber", "vth", "retry", "latency", "power")

Row = dict[str, Any]


class MeasureStep(Strict):
    """Measurements of the programmed WLs; `what` lists them (rber, vth, retry, latency, power)."""

    what: list[Literal["rber", "vth", "retry", "latency", "power"]] = Field(min_length=1)
    wls: WlList | None = None
    chunk_bytes: int | None = Field(default=None, ge=16, le=65536)
    vth_wl: int | None = Field(default=None, ge=0)
    code_step: int = Field(default=1, ge=1, le=64)
    retry_code_step: int = Field(default=4, ge=1, le=64)
    repeats: int = Field(default=1, ge=1, le=1000)

    @field_validator("what", mode="before")
    @classmethod
    def _what(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


class Measure(StepKind[MeasureStep]):
    name = "measure"

    def apply(self, unit: Unit, ctx: Context) -> None:
        p = self.params(unit)
        native = "vth and retry need native-mode data" if {"vth", "retry"} & set(p.what) else None
        held = self.holding_data(unit, ctx, p.wls, native)
        if held.written.mlc and set(p.what) != {"rber"}:
            raise self.refuse(
                unit, f"block {held.block} holds MLC-mode data (test mode): measure only rber"
            )

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        p = self.params(unit)
        held = self.holding_data(unit, ctx, p.wls)
        spec = held.written
        wls = list(p.wls or held.state.wls)
        base = base_row(unit, ctx, at.chip_id)
        chip, block, profile = at.chip, held.block, ctx.profile
        rows: list[Row] = []
        if "rber" in p.what:
            chip.reset_read_offsets()
            rows += measure_pages(chip, block, wls, spec, base, chunk_bytes=p.chunk_bytes)
        if "latency" in p.what:
            for _ in range(p.repeats):
                for wl in wls:
                    rows += self._latency(at, ctx, spec, block, wl, base)
        if "power" in p.what:
            for _ in range(p.repeats):
                for pt, name in page_types(profile, spec.slc):
                    page = page_address(profile, wls[0], pt, spec.slc)
                    m = read_energy(chip, block, page, slc=spec.slc, length=1)
                    where = {"block": block, "wl": wls[0], "page": page, "page_type": name}
                    rows.append(energy_row(m, {**base, **where}))
        if "retry" in p.what:
            rows += search_offsets(chip, block, wls[0], spec, base, code_step=p.retry_code_step)
        if "vth" in p.what:
            wl = p.vth_wl if p.vth_wl is not None else wls[min(2, len(wls) - 1)]
            if wl not in held.state.wls:
                raise self.refuse(unit, f"vth_wl {wl} was not programmed")
            written = {
                pt: page_data(profile, spec, block, wl, pt) for pt, _ in page_types(profile, False)
            }
            result = measure_vth(chip, profile, block, wl, written, code_step=p.code_step)
            rows += result.rows(base)
        for r in rows:
            if isinstance(r.get("vth_mV"), float) and math.isnan(r["vth_mV"]):
                r["vth_mV"] = None
        return Outcome(rows)

    @staticmethod
    def _latency(at: At, ctx: Context, spec: DataSpec, block: int, wl: int, base: Row) -> list[Row]:
        rows = []
        for pt, name in page_types(ctx.profile, spec.slc):
            page = page_address(ctx.profile, wl, pt, spec.slc)
            got = at.chip.read_page(block, page, slc=spec.slc, length=1)
            where = {"block": block, "wl": wl, "page": page, "page_type": name}
            rows.append(
                op_row(ctx.profile, "read", got.busy_ns, {**base, **where}, energy_measured=False)
            )
        return rows


STEP = Measure()
