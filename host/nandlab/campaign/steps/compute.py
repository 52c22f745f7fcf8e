"""`compute`: in-flash bitwise operations over the programmed data through a scheme, checked
bit by bit against the host's result."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from nandlab.campaign.fields import Strict, WlList
from nandlab.campaign.steps.base import At, Context, Outcome, StepKind, base_row
from nandlab.campaign.unit import Unit
from nandlab.characterize.compute import measure_compute
from nandlab.errors import UsageError


class ComputeStep(Strict):
    """In-flash bitwise operations over the programmed data, checked against the host.

    `layout: pair` takes A = LSB page and B = MSB page of each WL; `layout: wordlines`
    takes the WLs as operands W0, W1, ... (nandlab.characterize.compute).
    """

    scheme: str = Field(min_length=1)
    ops: list[str] = Field(min_length=1)
    layout: Literal["pair", "wordlines"] = "pair"
    wls: WlList | None = None
    scratch: list[int] = Field(default_factory=list)
    allow_test_mode: bool = False
    against_reads: bool = False
    options: dict[str, bool | int | float | str] = Field(default_factory=dict)

    @field_validator("ops", mode="before")
    @classmethod
    def _ops(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("scheme")
    @classmethod
    def _scheme(cls, value: str) -> str:
        from nandlab.schemes.compute import load_schemes

        known = load_schemes()
        if value not in known:
            raise ValueError(f"scheme '{value}' is unknown (allowed: {', '.join(known)})")
        return value

    @model_validator(mode="after")
    def _expressions(self) -> ComputeStep:
        from nandlab.characterize.compute import check_ops
        from nandlab.schemes.compute import load_schemes

        try:
            check_ops(self.ops, self.layout, len(self.wls) if self.wls else 64)
        except UsageError as exc:
            raise ValueError(str(exc)) from None
        if load_schemes()[self.scheme].needs_test_mode and not self.allow_test_mode:
            raise ValueError(
                f"scheme {self.scheme} runs in the chip's test mode: set allow_test_mode: true"
            )
        return self


class Compute(StepKind[ComputeStep]):
    name = "compute"
    writes_chip = True

    def apply(self, unit: Unit, ctx: Context) -> None:
        from nandlab.schemes.compute import load_schemes

        p = self.params(unit)
        lacks = load_schemes()[p.scheme].datasheet_lacks(ctx.profile)
        if lacks is not None:
            raise self.refuse(unit, lacks)
        native = "the pair layout needs LSB and MSB pages (use layout: wordlines)"
        if p.layout == "pair" and ctx.profile.geometry.bits_per_cell < 2:
            raise self.refuse(unit, f"{native}; profile {ctx.profile.name} is SLC")
        self.holding_data(unit, ctx, p.wls, native if p.layout == "pair" else None)
        overlap = sorted(set(p.scratch) & {blk for (ce, blk) in ctx.blocks if ce == unit.ce})
        if overlap:
            raise self.refuse(
                unit,
                f"scratch block {overlap[0]} is one of the campaign's blocks: a scheme would "
                "erase its data; choose scratch blocks outside blocks:",
            )

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        p = self.params(unit)
        held = self.holding_data(unit, ctx, p.wls)
        options = dict(p.options)
        if p.allow_test_mode:
            options["allow_test_mode"] = True
        rows = measure_compute(
            at.chip,
            held.block,
            list(p.wls or held.state.wls),
            held.written,
            base_row(unit, ctx, at.chip_id),
            scheme=p.scheme,
            ops=p.ops,
            layout=p.layout,
            options=options,
            scratch=p.scratch,
            against_reads=p.against_reads,
        )
        at.chip.reset_read_offsets()
        return Outcome(rows)


STEP = Compute()
