"""`disturb`: many reads of WLs next to the programmed ones, which disturb the block's others."""

from __future__ import annotations

from pydantic import Field

from nandlab.campaign.fields import Mode, Strict, WlList
from nandlab.campaign.steps.base import At, BlockState, Context, Outcome, StepKind, base_row
from nandlab.campaign.unit import Unit
from nandlab.characterize.disturb import read_disturb


class DisturbStep(Strict):
    """Read disturb: `reads` reads of WLs next to the programmed ones (or of `wls`)."""

    reads: int = Field(ge=1, le=10_000_000)
    wls: WlList | None = None
    mode: Mode = "native"


def disturb_wls(state: BlockState, p: DisturbStep, wls_per_block: int) -> list[int]:
    if p.wls is not None:
        return list(p.wls)
    written = set(state.wls)
    near = {w + d for w in written for d in (-1, 1)} - written
    return sorted(w for w in near if 0 <= w < wls_per_block)


class Disturb(StepKind[DisturbStep]):
    name = "disturb"

    def apply(self, unit: Unit, ctx: Context) -> None:
        p = self.params(unit)
        b = self.holding_data(unit, ctx, None).state
        if not disturb_wls(b, p, ctx.profile.geometry.wls_per_block):
            raise self.refuse(unit, "no WL next to the programmed ones: give wls")
        b.disturb_reads += p.reads

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        p = self.params(unit)
        held = self.holding_data(unit, ctx, None)
        wls = disturb_wls(held.state, p, ctx.profile.geometry.wls_per_block)
        res = read_disturb(
            at.chip, held.block, wls, p.reads, slc=held.written.slc, progress=at.progress
        )
        row = {
            **base_row(unit, self.after(unit, ctx), at.chip_id),
            "block": held.block,
            "operation": "disturb",
            "latency_us": res.busy_ns_total / res.reads / 1000.0,
        }
        return Outcome([row])


STEP = Disturb()
