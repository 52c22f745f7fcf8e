"""`--dry-run`: what a command would do to a chip, printed instead of done.

A plan names the operations, the chip time they would take at most (the datasheet maxima
tR / tPROG / tBERS of the chip's ONFI parameter page, read from a bench opened read-only)
and the P/E cycles each block would gain. Nothing is written: no die image, no ledger
event, no run folder.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from nandlab.cli.common import open_chip, print_json, stdout_console


@dataclass(frozen=True)
class Datasheet:
    """The chip's declared worst-case busy times (µs) and its block size."""

    t_r_us: float
    t_prog_us: float
    t_bers_us: float
    pages_per_block: int
    bits_per_cell: int
    profile: str


def datasheet(url: str, fresh: bool) -> Datasheet:
    """Open the bench read-only and read the chip's parameter page timings."""
    with open_chip(url, fresh, read_only=True) as (_, chip):
        f = chip.identification.fields
        geo = chip.geometry
        name = chip.transport.profile.name if chip.transport.profile is not None else "-"
    return Datasheet(
        float(f["t_r_us"]),
        float(f["t_prog_us"]),
        float(f["t_bers_us"]),
        geo.pages_per_block,
        geo.bits_per_cell,
        name,
    )


@dataclass
class Plan:
    """Operations with their counts and busy time each, the wear per block, notes."""

    command: str
    sheet: Datasheet
    ops: Counter[str] = field(default_factory=Counter)
    busy_us: dict[str, float] = field(default_factory=dict)
    wear: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def add(self, op: str, count: int, each_us: float) -> None:
        self.ops[op] += count
        self.busy_us[op] = self.busy_us.get(op, 0.0) + count * each_us

    def read(self, pages: int) -> None:
        self.add("READ page", pages, self.sheet.t_r_us)

    def program(self, pages: int) -> None:
        self.add("PROGRAM page", pages, self.sheet.t_prog_us)

    def erase(self, block: str, count: int = 1) -> None:
        self.add("ERASE block", count, self.sheet.t_bers_us)
        self.wear[block] = self.wear.get(block, 0) + count

    def to_dict(self) -> dict[str, Any]:
        return {
            "dry_run": True,
            "command": self.command,
            "profile": self.sheet.profile,
            "operations": [
                {"operation": op, "count": n, "chip_time_us_at_most": self.busy_us[op]}
                for op, n in self.ops.items()
            ],
            "chip_time_s_at_most": sum(self.busy_us.values()) / 1e6,
            "wear_pec_added": self.wear,
            "notes": self.notes,
        }


def show(plan: Plan, as_json: bool) -> None:
    """Print the plan (one JSON document with --json)."""
    if as_json:
        print_json(plan.to_dict())
        return
    console = stdout_console()
    console.print(f"dry run of {plan.command} on {plan.sheet.profile}: nothing is changed")
    for op, n in plan.ops.items():
        console.print(f"  {op:14s} x {n:<8d} at most {plan.busy_us[op] / 1e6:.4g} s")
    console.print(
        f"  chip time at most {sum(plan.busy_us.values()) / 1e6:.4g} s (datasheet maxima)"
    )
    wear = ", ".join(f"{b}: +{n}" for b, n in plan.wear.items()) or "none"
    console.print(f"  P/E cycles added per block: {wear}")
    for note in plan.notes:
        console.print(f"  note: {note}")


def campaign_plan(
    loaded: Any,
    campaign_dir: Path | None,
    command: str,
    done: frozenset[str] | set[str] = frozenset(),
) -> Plan:
    """The plan of a campaign's units not yet `done` (their keys): each applied to a copy of the
    campaign's context (as the preflight does), the P/E cycles it adds read off the blocks'
    state, its chip time from the datasheet maxima."""
    from nandlab.campaign.preflight import preflight
    from nandlab.campaign.steps import apply

    plan_units = preflight(loaded, campaign_dir)
    c = loaded.campaign
    if plan_units is None:
        raise click.UsageError(
            f"the bench URL {c.bench} names no profile, so its units cannot be planned without "
            "the chip: add ?profile=NAME to the URL for a dry run"
        )
    plan = Plan(command, datasheet(c.bench, c.fresh))
    ctx = _fresh_context(loaded, plan_units, campaign_dir)
    unestimated: set[str] = set()
    for unit in plan_units.units:
        key = (unit.ce, unit.block)
        before = ctx.blocks.get(key)
        pec, ff = (before.pec, before.fast_forwarded_cycles) if before else (0, 0)
        apply(unit, ctx)
        if unit.key in done:
            continue
        after = ctx.blocks.get(key)
        _unit_ops(plan, unit, before, after, pec, ff, unestimated)
    if unestimated:
        plan.notes.append(
            f"chip time of {', '.join(sorted(unestimated))} units is not estimated "
            "(their reads depend on the data)"
        )
    plan.notes.append(
        f"{len(plan_units.units) - len(done)} units to run; wear assumes the blocks are as the "
        "campaign starts them (fresh, or the chip ledger's P/E counts, checked at the start)"
    )
    return plan


def _fresh_context(loaded: Any, plan_units: Any, campaign_dir: Path | None) -> Any:
    from nandlab.campaign.preflight import bench_profile
    from nandlab.campaign.steps import BlockState, Context

    c = loaded.campaign
    profile = bench_profile(c.bench)
    assert profile is not None  # campaign_plan asked preflight, which found it
    blocks = {u.block for u in plan_units.units if u.block is not None}
    return Context(
        profile,
        {(ce, b): BlockState(pec=0) for ce in c.chips for b in blocks},
        profile.environment.ambient_temp_C,
        fast_forward=c.bench.startswith("sim:"),
        campaign_dir=campaign_dir,
    )


def _unit_ops(
    plan: Plan, unit: Any, before: Any, after: Any, pec: int, ff: int, unestimated: set[str]
) -> None:
    label = f"{unit.block}" if unit.ce in (None, 0) else f"ce{unit.ce}:{unit.block}"
    added = (after.pec - pec) if after is not None else 0
    skipped = (after.fast_forwarded_cycles - ff) if after is not None else 0
    bits = plan.sheet.bits_per_cell
    if unit.kind == "cycle":
        run_one_by_one = added - skipped
        plan.erase(label, run_one_by_one)
        plan.program(max(run_one_by_one - 1, 0) * plan.sheet.pages_per_block)
        if skipped:
            plan.wear[label] = plan.wear.get(label, 0) + skipped
            plan.notes.append(f"block {label}: {skipped} P/E cycles fast-forwarded (no chip time)")
    elif unit.kind == "erase":
        plan.erase(label, max(added, 1))
    elif unit.kind == "program" and after is not None:
        plan.program(len(after.wls) * bits)
    elif unit.kind == "measure" and after is not None and set(unit.params.what) == {"rber"}:
        plan.read(len(unit.params.wls or after.wls) * bits)
    elif unit.kind not in ("bake", "wait", "holds", "temperature"):
        unestimated.add(unit.kind)


def chip_plan(
    command: str, url: str, fresh: bool, ops: Iterable[tuple[str, int]], wear: dict[int, int]
) -> Plan:
    """The plan of a one-off chip command: (operation, count) pairs, P/E added per block."""
    sheet = datasheet(url, fresh)
    plan = Plan(command, sheet)
    each = {"READ page": sheet.t_r_us, "PROGRAM page": sheet.t_prog_us}
    for op, count in ops:
        if op == "ERASE block":
            plan.add(op, count, sheet.t_bers_us)
        else:
            plan.add(op, count, each.get(op, 0.0))
    plan.wear = {str(b): n for b, n in wear.items()}
    return plan
