"""`erase`: erase each block once, one real P/E cycle (a cycle step to one more than the
block's count); the block is then ready for a program step. What a one-off measurement
such as `nandlab vth` does before it programs its WL."""

from __future__ import annotations

from nandlab.campaign.fields import Strict
from nandlab.campaign.steps.base import At, BlockState, Context, Outcome, StepKind, base_row
from nandlab.campaign.unit import Unit
from nandlab.characterize.common import op_row


def erased_once(unit: Unit, ctx: Context, *, ready: bool) -> None:
    """The unit's block after one more erase: P/E + 1, no data; `ready` for a program step
    (False when the unit writes data of its own that later steps cannot regenerate)."""
    b = ctx.block(unit)
    assert unit.ce is not None and unit.block is not None
    ctx.blocks[(unit.ce, unit.block)] = BlockState(
        pec=b.pec + 1, fast_forwarded_cycles=b.fast_forwarded_cycles, erased=ready
    )


class EraseStep(Strict):
    """Erase each block once; its P/E count (chip ledger) goes up by one."""


class Erase(StepKind[EraseStep]):
    name = "erase"
    writes_chip = True

    def apply(self, unit: Unit, ctx: Context) -> None:
        erased_once(unit, ctx, ready=True)

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        assert unit.block is not None
        result = at.chip.erase_block(unit.block)
        base = {**base_row(unit, self.after(unit, ctx), at.chip_id), "block": unit.block}
        row = op_row(
            ctx.profile,
            "erase",
            result.busy_ns,
            base,
            status=result.status,
            energy_measured=False,
        )
        return Outcome([row])


STEP = Erase()
