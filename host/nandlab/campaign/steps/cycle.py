"""`cycle`: bring each block to a P/E count, fast-forwarding all but the last cycle when the
bench can (a virtual die's wear model); the last erase is real and measured."""

from __future__ import annotations

from dataclasses import replace

from pydantic import Field, field_validator

from nandlab.campaign.fields import Mode, Strict, check_pattern
from nandlab.campaign.steps.base import At, BlockState, Context, Outcome, StepKind, base_row
from nandlab.campaign.unit import Unit
from nandlab.characterize.common import op_row
from nandlab.characterize.readback import energy_row, page_address, page_data, page_types
from nandlab.onfi.power import erase_energy

MAX_PEC = 1_000_000


class CycleStep(Strict):
    """P/E cycle each block up to `pec` cycles (erase count) with a data pattern."""

    pec: int = Field(ge=1, le=MAX_PEC)
    pattern: str = "random"
    mode: Mode = "native"
    fast_forward: bool = True
    power: bool = False

    _pattern = field_validator("pattern")(check_pattern)


def fast_forwarded(p: CycleStep, pec_before: int, bench_can: bool) -> int:
    """Cycles a cycle step fast-forwards: all but the last, when allowed and possible."""
    needed = p.pec - pec_before
    return needed - 1 if needed > 1 and p.fast_forward and bench_can else 0


class Cycle(StepKind[CycleStep]):
    name = "cycle"
    writes_chip = True
    partition = True

    def apply(self, unit: Unit, ctx: Context) -> None:
        p = self.params(unit)
        b = ctx.block(unit)
        if b.pec >= p.pec:
            raise self.refuse(
                unit,
                f"block {unit.block} already has {b.pec} P/E cycles (chip ledger), not fewer "
                f"than the target {p.pec}: start the virtual die fresh (fresh: true), raise the "
                "target or choose other blocks",
            )
        ff = fast_forwarded(p, b.pec, ctx.fast_forward)
        assert unit.ce is not None and unit.block is not None
        ctx.blocks[(unit.ce, unit.block)] = BlockState(
            pec=p.pec, fast_forwarded_cycles=b.fast_forwarded_cycles + ff, erased=True
        )
        self.data_written(unit, ctx, p.pattern, p.mode)

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        p = self.params(unit)
        assert unit.block is not None and unit.ce is not None
        chip, block = at.chip, unit.block
        before = ctx.block(unit).pec
        needed = p.pec - before
        spec = self.data_written(unit, ctx, p.pattern, p.mode)
        slc = spec.slc
        ff = fast_forwarded(p, before, ctx.fast_forward)
        ff_ns = 0
        if ff:
            ff_ns = at.bench.wear.fast_forward_wear(unit.ce, block, ff, slc=slc)
            # no program ran these cycles: tell the chip layer, which counts the wear
            chip.wear.fast_forwarded(block, ff)
        real = needed - 1 - ff
        geo = ctx.profile.geometry
        for cycle in range(real):
            chip.erase_block(block)
            cyc = replace(spec, seed=(spec.seed + cycle) & (2**63 - 1))
            for wl in range(geo.wls_per_block):
                for pt, _ in page_types(ctx.profile, slc):
                    chip.program_page(
                        block,
                        page_address(ctx.profile, wl, pt, slc),
                        page_data(ctx.profile, cyc, block, wl, pt),
                        slc=slc,
                        blank_check=False,
                    )
            at.progress(f"cycling block {block}", cycle + 1, real)
        base = {
            **base_row(unit, self.after(unit, ctx), at.chip_id),
            "block": block,
            "pattern": p.pattern,
            "mode": "slc" if slc else geo.cell,
        }
        if p.power:
            row = energy_row(erase_energy(chip, block), base)
        else:
            result = chip.erase_block(block)
            row = op_row(
                ctx.profile,
                "erase",
                result.busy_ns,
                base,
                status=result.status,
                energy_measured=False,
            )
        row["fast_forward_chip_s"] = ff_ns / 1e9
        return Outcome([row])


STEP = Cycle()
