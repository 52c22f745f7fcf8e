"""`holds`: the blocks already hold known data, written before this run (by an earlier run
or command); nothing runs on the chip, later steps measure that data. What `nandlab vth
--no-program` uses."""

from __future__ import annotations

from pydantic import Field, field_validator

from nandlab.campaign.fields import Mode, Strict, WlList, check_pattern
from nandlab.campaign.steps.base import At, Context, Outcome, StepKind, UnitError, mode_of, need_slc
from nandlab.campaign.unit import Unit
from nandlab.characterize.readback import DataSpec


class HoldsStep(Strict):
    """The WLs `wls` of each block hold `pattern` of pattern seed `seed` (as a program step
    with that seed wrote it)."""

    wls: WlList
    pattern: str = "random"
    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    mode: Mode = "native"

    _pattern = field_validator("pattern")(check_pattern)


class Holds(StepKind[HoldsStep]):
    name = "holds"

    def apply(self, unit: Unit, ctx: Context) -> None:
        p = self.params(unit)
        n = ctx.profile.geometry.wls_per_block
        bad = [w for w in p.wls if not 0 <= w < n]
        if bad:
            raise UnitError(f"unit {unit.key}: WL {bad[0]} outside 0..{n - 1}")
        if p.pattern.startswith("file:"):
            raise UnitError(f"unit {unit.key}: holds takes a generated pattern, not a file")
        if p.mode == "slc":
            need_slc(ctx, unit)
        b = ctx.block(unit)
        b.written = DataSpec(p.pattern, p.seed, slc=mode_of(ctx.profile, p.mode))
        b.wls = tuple(sorted(set(p.wls)))
        b.erased = False

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        return Outcome([])


STEP = Holds()
