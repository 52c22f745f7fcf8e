"""`mcflash`: MCFlash's Table 1 operations in place on the data a block holds, one row per
operation and WL, errors against the operation on the data written (MCFlash Table 2,
Figs. 6-8, Sec. 4.3: `characterization/mcflash/`).

Unlike `compute`, nothing is copied: each operation is a single (offset-shifted) read of
the stored WL, so its errors are those of the block's own wear and retention. NOT reads
its operand where the paper stores it, in the MSB page over an LSB page of 0s (pattern
`random-msb`); the two-operand operations need both pages random. A step runs the
operations the block's layout allows.

The planner knows the chip only by measuring it: before the first operation on a block
group (blocks of one chip with the same P/E count, retention age and data pattern), a Vth
sweep of a calibration WL (every offset code of every reference, through SET FEATURES)
gives the states it plans every edge against (`StateModel.from_vth`). The sweep's rows go
into the dataset (operation `vth`) and its model serves the group's other blocks and later
steps until the group's history changes (a bake, more cycles; with `recalibrate: false` a
bake keeps the group's first model); a resumed run sweeps again.
The calibration WL is the block's first held WL (on a random-msb block WL 0, which holds
random data in both pages).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import Field, field_validator

from nandlab.analysis import cell_bit_errors, unpack_cells
from nandlab.campaign.fields import Strict, WlList
from nandlab.campaign.steps.base import At, Context, Outcome, StepKind, base_row
from nandlab.campaign.unit import Unit
from nandlab.characterize.compute import PAIR_OPS
from nandlab.characterize.readback import RANDOM_MSB, page_data, wl_data
from nandlab.characterize.vth import measure_vth
from nandlab.schemes.base import Plan
from nandlab.schemes.expr import parse
from nandlab.schemes.mcflash import McFlash, Realization
from nandlab.schemes.mcflash_model import StateModel
from nandlab.schemes.pairs import OPS
from nandlab.schemes.reference import evaluate

NOT = "NOT"


class McflashStep(Strict):
    """Operations of the paper's Table 1 on each held WL, in place.

    `vref0_codes`: instead of the planned offset of VREF0, each of these DAC codes in turn
    (VREF2 stays planned; OR only: Fig. 7). `allow_test_mode`: NAND / NOR / XOR with the
    inverse read (without it they run Table 1's rows without, as in Sec. 4.3).
    `recalibrate`: sweep again once the block group has aged (a bake since its last sweep);
    false: keep the offsets planned on the group's freshest data, as a test that holds its
    read offsets over a retention sweep does (MCFlash Fig. 6).
    """

    ops: list[str] = Field(min_length=1)
    wls: WlList | None = None
    allow_test_mode: bool = False
    vref0_codes: list[int] | None = None
    recalibrate: bool = True

    @field_validator("ops", mode="before")
    @classmethod
    def _ops(cls, value: Any) -> Any:
        ops = [value] if isinstance(value, str) else value
        bad = [op for op in ops if str(op).upper() not in (*OPS, NOT)]
        if bad:
            raise ValueError(f"operation {bad[0]!r}: allowed {', '.join(OPS)}, {NOT}")
        return [str(op).upper() for op in ops]


class Mcflash(StepKind[McflashStep]):
    name = "mcflash"

    def apply(self, unit: Unit, ctx: Context) -> None:
        p = self.params(unit)
        lacks = McFlash.datasheet_lacks(ctx.profile)
        if lacks is not None:
            raise self.refuse(unit, lacks)
        held = self.holding_data(unit, ctx, p.wls, "MCFlash reads MLC WLs")
        if held.written.pattern == RANDOM_MSB and 0 not in held.state.wls:
            raise self.refuse(unit, f"{RANDOM_MSB} data without WL 0, its calibration WL")
        if p.vref0_codes is not None and p.ops != ["OR"]:
            raise self.refuse(unit, "vref0_codes sweeps OR's VREF0 only: ops: [OR]")

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        p = self.params(unit)
        held = self.holding_data(unit, ctx, p.wls)
        chip, profile, spec = at.chip, ctx.profile, held.written
        wls = list(p.wls or held.state.wls)
        # NOT runs on the NOT layout only, the pair operations on random pairs only
        not_layout = spec.pattern == RANDOM_MSB
        ops = [op for op in p.ops if (op == NOT) == not_layout]
        if not ops:
            return Outcome([])
        base = base_row(unit, ctx, at.chip_id)
        rows: list[dict[str, Any]] = []
        state = held.state
        group = (self.name, unit.ce, state.pec, spec.pattern)
        ages = sorted(k[-1] for k in ctx.calibrations if k[:-1] == group)
        age = state.retention_age_h if p.recalibrate or not ages else ages[0]
        model = ctx.calibrations.get((*group, age))
        if not isinstance(model, StateModel):
            wl0 = 0 if not_layout else held.state.wls[0]
            vth = measure_vth(
                chip, profile, held.block, wl0, wl_data(profile, spec, held.block, wl0)
            )
            model = StateModel.from_vth(vth.states, f"Vth of b{held.block}/wl{wl0}")
            ctx.calibrations[(*group, state.retention_age_h)] = model
            rows += vth.rows(base)
        m = McFlash(chip, model=model, variant="table1", allow_test_mode=p.allow_test_mode)
        real: dict[str, Realization] = {}
        for op in ops:
            if op == NOT:
                r, page, const = m.realize_not()
                if (page, const) != (1, 0):
                    raise self.refuse(unit, "NOT planned on another layout than MSB over 0s")
                real[op] = r
            else:
                real[op] = m.realize_op(op, inverse=None if p.allow_test_mode else False)
        step_mV = profile.read_offsets.step_mV
        nbits = profile.geometry.page_bytes * 8
        for wl in wls:  # WL by WL, every op on it in turn: each sees the same read disturb
            pages = {
                name: unpack_cells(
                    page_data(profile, spec, held.block, wl, pt)[: nbits // 8], nbits
                )
                for pt, name in enumerate(("A", "B"))
            }
            for op in ops:
                if op == NOT and pages["A"].any():  # the calibration WL of a random-msb block
                    continue
                want = np.asarray(
                    evaluate(parse(PAIR_OPS["NOT-MSB" if op == NOT else op]), pages), dtype=np.uint8
                )
                r = real[op]
                points: list[tuple[Realization, dict[str, Any]]] = [(r, {})]
                if p.vref0_codes is not None:
                    points = [
                        (
                            Realization("read", 1, r.refs, r.gaps, (code, r.codes[1])),
                            {"offset_mV": code * step_mV, "reference": "VREF0"},
                        )
                        for code in p.vref0_codes
                    ]
                for real_at, extra in points:
                    plan = Plan("mcflash", op)
                    got = m.execute(real_at, held.block, wl, plan)
                    read = plan.ops[-1]
                    rows.append(
                        {
                            **base,
                            "block": held.block,
                            "wl": wl,
                            "operation": f"mcflash:{op}",
                            "page_type": ("LSB", "MSB")[real_at.page_type],
                            "offsets": [int(c) for c in real_at.codes],
                            **cell_bit_errors(want, got).as_row(),
                            "sensings": read.sensings,
                            "latency_us": read.busy_us,
                            "energy_uJ": read.energy_uJ,
                            "energy_measured": False,
                            **extra,
                        }
                    )
        chip.reset_read_offsets()
        return Outcome(rows)


STEP = Mcflash()
