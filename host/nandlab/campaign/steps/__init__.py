"""Campaign step kinds, registered in one place.

Each kind is one module here: its parameter model (what a campaign file
gives) and a `StepKind` (see `base`) that checks a unit and changes the run's
context (`apply`, pure: a resumed run replays it for the units it skips) and
measures it (`run`). To add a step kind, write its module and add its `STEP`
to `STEPS` below (docs/campaigns.md, "How to add a campaign step").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from nandlab.bench import Bench
from nandlab.campaign.steps import (
    bake,
    compute,
    cox_pm,
    cycle,
    disturb,
    erase,
    esp_program,
    expression,
    eye,
    holds,
    mcflash,
    measure,
    mws,
    onboard,
    program,
    sim_search,
    temperature,
    wait,
)
from nandlab.campaign.steps.base import At, BlockState, Context, Outcome, StepKind, UnitError
from nandlab.campaign.steps.thermal import THERMAL_HINT
from nandlab.campaign.unit import Unit
from nandlab.characterize.progress import ProgressFn, no_progress
from nandlab.errors import UsageError

if TYPE_CHECKING:
    from nandlab.onfi.chip import Chip

STEPS: dict[str, StepKind[Any]] = {
    kind.name: kind
    for kind in (
        cycle.STEP,
        erase.STEP,
        program.STEP,
        esp_program.STEP,
        holds.STEP,
        bake.STEP,
        disturb.STEP,
        measure.STEP,
        compute.STEP,
        mcflash.STEP,
        expression.STEP,
        mws.STEP,
        mws.BLOCKS_STEP,
        mws.POWER_STEP,
        mws.OPS_STEP,
        sim_search.STORE_STEP,
        sim_search.STEP,
        cox_pm.STORE_STEP,
        cox_pm.STEP,
        wait.STEP,
        temperature.STEP,
        onboard.STEP,
        eye.STEP,
    )
}


def apply(unit: Unit, ctx: Context) -> None:
    """Change `ctx` as `unit` does; UnitError when the unit cannot run in this context."""
    STEPS[unit.kind].apply(unit, ctx)


def execute(
    unit: Unit,
    ctx: Context,
    bench: Bench,
    chip: Chip | None,
    chip_id: str,
    progress: ProgressFn = no_progress,
) -> Outcome:
    """Run `unit` (ctx holds the state before it); rows are complete when this returns.

    On a bench with a temperature controller, the rows of chip operations carry the
    temperature measured as the unit starts.
    """
    measured = bench.thermal.read_C() if unit.ce is not None and bench.has("thermal") else None
    outcome = STEPS[unit.kind].run(unit, ctx, At(bench, chip, chip_id, progress))
    if chip is not None:
        # every P/E cycle the unit caused, as the chip layer counted it (scratch and operand
        # blocks of schemes included), is the unit's wear in the ledger
        outcome.ledger += [
            {
                "kind": "cycle",
                "block": block,
                "pec_delta": w.erases,
                "fast_forwarded": w.fast_forwarded,
            }
            for block, w in chip.wear.take().items()
        ]
    if measured is not None:
        for row in outcome.rows:
            row["temp_C"] = float(measured)
    return outcome


def writing_steps(steps: Sequence[Mapping[str, Any]]) -> list[str]:
    """'step N kind' for each step of a campaign's `steps` that erases or programs blocks."""
    return [
        f"step {i + 1} {kind}"
        for i, step in enumerate(steps)
        for kind in step
        if kind in STEPS and STEPS[kind].writes_chip
    ]


def check_bench(bench: Bench, kinds: set[str]) -> None:
    """UsageError before a run starts when its bake / temperature steps, or a step
    the bench's capabilities rule out (`StepKind.bench_problem`), cannot run."""
    for kind in sorted(kinds):
        problem = STEPS[kind].bench_problem(bench)
        if problem is not None:
            raise UsageError(f"campaign step {kind}: {problem}")
    if bench.has("oven") or bench.has("thermal"):
        return
    needs = sorted(k for k in kinds if STEPS[k].temperature_control)
    if needs:
        raise UsageError(
            f"bench {bench.url} has no temperature control for the campaign's "
            f"{' and '.join(needs)} steps: {THERMAL_HINT}"
        )


__all__ = [
    "STEPS",
    "BlockState",
    "Context",
    "Outcome",
    "StepKind",
    "UnitError",
    "apply",
    "check_bench",
    "execute",
]
