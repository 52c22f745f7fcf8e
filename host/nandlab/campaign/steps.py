"""What each step kind does: its effect on the run's context, and its measurement.

`apply(unit, ctx)` is pure: it changes the context (P/E count, data written,
retention age, disturb reads, temperature) exactly as running the unit does,
so a resumed run rebuilds the context of the units it skips. `execute(unit,
ctx, bench)` runs the unit on the chip and returns its rows and the chip
time it stands for. To add a step kind: a schema model in `schema.py`, an
entry in STEP_KINDS, and a branch here in `apply` and in `execute`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nandlab.campaign.schema import (
    BakeStep,
    ComputeStep,
    CycleStep,
    DisturbStep,
    MeasureStep,
    ProgramStep,
    TemperatureStep,
    WaitStep,
)
from nandlab.campaign.sweep import Unit
from nandlab.characterize.common import op_row
from nandlab.characterize.compute import measure_compute
from nandlab.characterize.disturb import read_disturb
from nandlab.characterize.progress import ProgressFn, no_progress
from nandlab.characterize.readback import (
    DataSpec,
    energy_row,
    measure_pages,
    page_address,
    page_data,
    page_types,
    program_pages,
)
from nandlab.characterize.retention import acceleration_factor, bake_hours, parse_retention
from nandlab.characterize.retry import search_offsets
from nandlab.characterize.vth import measure_vth
from nandlab.errors import UnsupportedCapability, UsageError

if TYPE_CHECKING:
    from nandlab.onfi.chip import Chip
    from nandlab.profiles import Profile
    from nandlab.transport.base import Transport


@dataclass
class BlockState:
    """What the run knows of one block: wear, data written and what happened since."""

    pec: int
    fast_forwarded_cycles: int = 0
    erased: bool = False
    written: DataSpec | None = None
    wls: tuple[int, ...] = ()
    retention_age_h: float = 0.0
    retention_label: str | None = None
    bake_temp_C: float | None = None
    bake_h: float = 0.0
    disturb_reads: int = 0


@dataclass
class Context:
    """The run's state between units; built from the ledger snapshot at the run's start."""

    profile: Profile
    blocks: dict[tuple[int, int], BlockState]
    temp_C: float
    fast_forward: bool = False
    """The bench can fast-forward wear (a virtual die)."""
    campaign_dir: Path | None = None
    files: dict[str, bytes] = field(default_factory=dict)

    def block(self, unit: Unit) -> BlockState:
        assert unit.ce is not None and unit.block is not None
        return self.blocks[(unit.ce, unit.block)]


class UnitError(UsageError):
    """A unit cannot run in the run's context (e.g. measure before program)."""


def mode_of(profile: Profile, mode: str) -> bool:
    """True for SLC mode; 'native' is the profile's own cell type."""
    return mode == "slc" and profile.geometry.bits_per_cell > 1


def data_spec(
    ctx: Context, unit: Unit, pattern: str, scramble: bool, inverse: bool, slc: bool
) -> DataSpec:
    file_data = b""
    if pattern.startswith("file:"):
        file_data = ctx.files.get(pattern, b"")
    return DataSpec(pattern, unit.seed, scramble, inverse, slc, file_data)


def load_pattern_file(ctx: Context, pattern: str) -> None:
    """Read a file: pattern (relative to the campaign file) into the context once."""
    if not pattern.startswith("file:") or pattern in ctx.files:
        return
    path = Path(pattern[5:])
    if not path.is_absolute() and ctx.campaign_dir is not None:
        path = ctx.campaign_dir / path
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"pattern {pattern}: cannot read {path}: {exc.strerror or exc}") from None
    if not data:
        raise UsageError(f"pattern {pattern}: {path} is empty")
    ctx.files[pattern] = data


def bake_plan(ctx: Context, p: BakeStep) -> tuple[float, float, float, str]:
    """(oven temperature °C, oven hours, equivalent age h at use temperature, label)."""
    ea = p.activation_energy_eV or ctx.profile.physics.activation_energy_eV
    if p.retention is not None:
        retention = parse_retention(p.retention)
        temp = p.temp_C if p.temp_C is not None else ctx.profile.environment.bake_temp_C
        return temp, bake_hours(retention, temp, ea), retention.age_h, retention.label
    assert p.hours is not None and p.temp_C is not None
    use = ctx.profile.environment.ambient_temp_C
    age = p.hours * acceleration_factor(use, p.temp_C, ea)
    return p.temp_C, p.hours, age, f"{p.hours:g}h@{p.temp_C:g}C"


def disturb_wls(state: BlockState, p: DisturbStep, wls_per_block: int) -> list[int]:
    if p.wls is not None:
        return list(p.wls)
    written = set(state.wls)
    near = {w + d for w in written for d in (-1, 1)} - written
    return sorted(w for w in near if 0 <= w < wls_per_block)


def fast_forwarded(p: CycleStep, pec_before: int, bench_can: bool) -> int:
    """Cycles a cycle step fast-forwards: all but the last, when allowed and possible."""
    needed = p.pec - pec_before
    return needed - 1 if needed > 1 and p.fast_forward and bench_can else 0


def apply(unit: Unit, ctx: Context) -> None:
    """Change `ctx` as `unit` does; UnitError when the unit cannot run in this context."""
    p = unit.params
    geo = ctx.profile.geometry
    if isinstance(p, CycleStep):
        b = ctx.block(unit)
        if b.pec >= p.pec:
            raise UnitError(
                f"unit {unit.key}: block {unit.block} already has {b.pec} P/E cycles (chip "
                f"ledger), not fewer than the target {p.pec}: start the virtual die fresh "
                "(fresh: true), raise the target or choose other blocks"
            )
        ff = fast_forwarded(p, b.pec, ctx.fast_forward)
        ctx.blocks[(unit.ce, unit.block)] = BlockState(  # type: ignore[index]
            pec=p.pec, fast_forwarded_cycles=b.fast_forwarded_cycles + ff, erased=True
        )
        if p.mode == "slc":
            _need_slc(ctx, unit)
        load_pattern_file(ctx, p.pattern)
    elif isinstance(p, ProgramStep):
        b = ctx.block(unit)
        if not b.erased:
            raise UnitError(
                f"unit {unit.key}: block {unit.block} must be erased by a cycle step before "
                "it is programmed"
            )
        bad = [w for w in p.wls if not 0 <= w < geo.wls_per_block]
        if bad:
            raise UnitError(f"unit {unit.key}: WL {bad[0]} outside 0..{geo.wls_per_block - 1}")
        if p.mode == "slc":
            _need_slc(ctx, unit)
        load_pattern_file(ctx, p.pattern)
        slc = mode_of(ctx.profile, p.mode)
        b.written = data_spec(ctx, unit, p.pattern, p.scramble, p.inverse, slc)
        b.wls = tuple(sorted(set(p.wls)))
        b.erased = False
        b.retention_age_h, b.retention_label, b.bake_h, b.bake_temp_C = 0.0, None, 0.0, None
        b.disturb_reads = 0
    elif isinstance(p, MeasureStep | DisturbStep | ComputeStep):
        b = ctx.block(unit)
        if b.written is None:
            raise UnitError(
                f"unit {unit.key}: block {unit.block} holds no data: add a program step first"
            )
        wls = p.wls if isinstance(p, MeasureStep | ComputeStep) else None
        if wls is not None and not set(wls) <= set(b.wls):
            raise UnitError(
                f"unit {unit.key}: WLs {sorted(set(wls) - set(b.wls))} were not programmed"
            )
        if isinstance(p, MeasureStep) and b.written.slc and {"vth", "retry"} & set(p.what):
            raise UnitError(
                f"unit {unit.key}: vth and retry need native-mode data; block {unit.block} was "
                "programmed in SLC mode"
            )
        overlap = (
            sorted(set(p.scratch) & {blk for (ce, blk) in ctx.blocks if ce == unit.ce})
            if isinstance(p, ComputeStep)
            else []
        )
        if overlap:
            raise UnitError(
                f"unit {unit.key}: scratch block {overlap[0]} is one of the campaign's blocks: "
                "a scheme would erase its data; choose scratch blocks outside blocks:"
            )
        if isinstance(p, ComputeStep) and p.layout == "pair" and b.written.slc:
            raise UnitError(
                f"unit {unit.key}: the pair layout needs LSB and MSB pages; block {unit.block} "
                "was programmed in SLC mode (use layout: wordlines)"
            )
        if isinstance(p, DisturbStep):
            if not disturb_wls(b, p, geo.wls_per_block):
                raise UnitError(f"unit {unit.key}: no WL next to the programmed ones: give wls")
            b.disturb_reads += p.reads
    elif isinstance(p, BakeStep):
        temp, hours, age, label = bake_plan(ctx, p)
        for b in ctx.blocks.values():
            if b.written is None:
                continue
            b.retention_age_h += age
            b.retention_label = (
                label if b.retention_label is None else f"{b.retention_label}+{label}"
            )
            b.bake_temp_C, b.bake_h = temp, b.bake_h + hours
    elif isinstance(p, WaitStep):
        use = ctx.profile.environment.ambient_temp_C
        af = acceleration_factor(use, ctx.temp_C, ctx.profile.physics.activation_energy_eV)
        for b in ctx.blocks.values():
            if b.written is not None:
                b.retention_age_h += p.hours * af
    elif isinstance(p, TemperatureStep):
        ctx.temp_C = p.temp_C


def _need_slc(ctx: Context, unit: Unit) -> None:
    if ctx.profile.geometry.bits_per_cell > 1 and ctx.profile.vendor.slc_mode is None:
        raise UnitError(f"unit {unit.key}: profile {ctx.profile.name} has no SLC mode")


def base_row(unit: Unit, ctx: Context, chip_id: str) -> dict[str, Any]:
    row: dict[str, Any] = {
        "step": f"s{unit.step:02d}.{unit.kind}",
        "unit": unit.key,
        "chip": chip_id,
        "temp_C": ctx.temp_C,
    }
    if unit.ce is not None:
        b = ctx.block(unit)
        row.update(
            ce=unit.ce,
            pec=b.pec,
            fast_forwarded=b.fast_forwarded_cycles > 0,
            fast_forwarded_cycles=b.fast_forwarded_cycles,
            retention_age_h=b.retention_age_h,
            retention_label=b.retention_label or "fresh",
            disturb_reads=b.disturb_reads,
        )
        if b.bake_temp_C is not None:
            row.update(bake_temp_C=b.bake_temp_C, bake_h=b.bake_h)
        if b.written is not None:
            row.update(
                pattern=b.written.pattern
                + (" scrambled" if b.written.scramble else "")
                + (" inverse" if b.written.inverse else ""),
                seed=b.written.seed,
                mode="slc" if b.written.slc else ctx.profile.geometry.cell,
            )
    return row


@dataclass
class Outcome:
    rows: list[dict[str, Any]]
    ledger: list[dict[str, Any]] = field(default_factory=list)


def execute(
    unit: Unit,
    ctx: Context,
    transport: Transport,
    chip: Chip | None,
    chip_id: str,
    progress: ProgressFn = no_progress,
) -> Outcome:
    """Run `unit` (ctx holds the state before it); rows are complete when this returns.

    On a bench with a temperature controller, the rows of chip operations carry the
    temperature measured as the unit starts (virtual benches: the set temperature).
    """
    ctl = temperature_controller(transport) if unit.ce is not None else None
    measured = float(ctl.read_C()) if ctl is not None else None
    outcome = _execute(unit, ctx, transport, chip, chip_id, progress)
    if measured is not None:
        for row in outcome.rows:
            row["temp_C"] = measured
    return outcome


def _execute(
    unit: Unit,
    ctx: Context,
    transport: Transport,
    chip: Chip | None,
    chip_id: str,
    progress: ProgressFn,
) -> Outcome:
    p = unit.params
    if isinstance(p, CycleStep):
        assert chip is not None
        return _cycle(unit, p, ctx, transport, chip, chip_id, progress)
    if isinstance(p, ProgramStep):
        assert chip is not None
        after = _after(unit, ctx)
        b = after.block(unit)
        assert b.written is not None and unit.block is not None
        rows = program_pages(
            chip, unit.block, b.wls, b.written, base_row(unit, after, chip_id), power=p.power
        )
        return Outcome(rows)
    if isinstance(p, MeasureStep):
        assert chip is not None
        return Outcome(_measure(unit, p, ctx, chip, chip_id))
    if isinstance(p, ComputeStep):
        assert chip is not None
        return _compute(unit, p, ctx, chip, chip_id)
    if isinstance(p, DisturbStep):
        assert chip is not None
        b = ctx.block(unit)
        assert b.written is not None and unit.block is not None
        wls = disturb_wls(b, p, ctx.profile.geometry.wls_per_block)
        res = read_disturb(chip, unit.block, wls, p.reads, slc=b.written.slc, progress=progress)
        after = _after(unit, ctx)
        row = {
            **base_row(unit, after, chip_id),
            "block": unit.block,
            "operation": "disturb",
            "latency_us": res.busy_ns_total / res.reads / 1000.0,
        }
        return Outcome([row])
    if isinstance(p, BakeStep):
        temp, hours, age, label = bake_plan(ctx, p)
        readings = _oven(transport, temp, hours, ctx.temp_C, progress)
        row = {
            "step": f"s{unit.step:02d}.bake",
            "unit": unit.key,
            "chip": chip_id,
            "operation": "bake",
            "bake_temp_C": temp,
            "bake_h": hours,
            "retention_age_h": age,
            "retention_label": label,
            "temp_C": sum(readings) / len(readings) if readings else temp,
            "setpoint_C": temp,
        }
        return Outcome(
            [row], ledger=[{"kind": "bake", "temp_C": temp, "hours": hours, "label": label}]
        )
    if isinstance(p, WaitStep):
        if transport.supports("bake"):
            readings = _oven(transport, ctx.temp_C, p.hours, ctx.temp_C)
        else:
            ctl = temperature_controller(transport)
            readings = _hold(ctl, p.hours, f"waiting {p.hours:g} h", progress)
        row = {
            "step": f"s{unit.step:02d}.wait",
            "unit": unit.key,
            "chip": chip_id,
            "operation": "wait",
            "temp_C": sum(readings) / len(readings) if readings else ctx.temp_C,
            "bake_h": p.hours,
        }
        return Outcome([row])
    if isinstance(p, TemperatureStep):
        ctl = temperature_controller(transport)
        if ctl is not None:
            measured = float(ctl.settle(p.temp_C))
        elif transport.supports("bake"):
            measured = p.temp_C  # the virtual controller is where it is set
        else:
            raise UnsupportedCapability(
                f"bench {transport.url} has no temperature controller: {THERMAL_HINT}"
            )
        row = {
            "step": f"s{unit.step:02d}.temperature",
            "unit": unit.key,
            "chip": chip_id,
            "operation": "temperature",
            "temp_C": measured,
            "setpoint_C": p.temp_C,
        }
        return Outcome([row])
    raise AssertionError(f"no executor for {unit.kind}")  # pragma: no cover


def temperature_controller(transport: Transport) -> Any | None:
    """The bench's temperature controller (read_C / settle, e.g. a SCPI chamber), or None.

    Virtual benches have none: their oven (`bake`) and controller are virtual.
    """
    ctl = getattr(transport, "temperature", None)
    return ctl if ctl is not None and hasattr(ctl, "settle") else None


THERMAL_HINT = (
    "declare the board's temperature controller (board file section temperature:) and "
    "open the bench with instruments=1"
)


def check_thermal(transport: Transport, kinds: set[str]) -> None:
    """UsageError before a run starts when its bake / temperature / wait steps cannot run."""
    if transport.supports("bake") or temperature_controller(transport) is not None:
        return
    needs = sorted(kinds & {"bake", "temperature"})
    if needs:
        raise UsageError(
            f"bench {transport.url} has no temperature control for the campaign's "
            f"{' and '.join(needs)} steps: {THERMAL_HINT}"
        )


def _hold(
    ctl: Any | None, hours: float, what: str, progress: ProgressFn
) -> list[float]:
    """Let `hours` of real time pass (a real bench), reading the temperature once a minute."""
    readings: list[float] = []
    total = hours * 3600.0
    start = time.monotonic()
    while True:
        if ctl is not None:
            readings.append(float(ctl.read_C()))
        left = total - (time.monotonic() - start)
        progress(what, round(total - max(left, 0.0)), max(round(total), 1))
        if left <= 0:
            return readings
        time.sleep(min(60.0, left))


def _oven(
    transport: Transport,
    temp: float,
    hours: float,
    back_to: float,
    progress: ProgressFn = no_progress,
) -> list[float]:
    """Bake: the virtual oven of a sim bench, or the bench's chamber held at `temp` for
    `hours` of real time and then brought back to `back_to` (°C). Returns the readings."""
    bake = getattr(transport, "bake", None)
    if bake is not None and transport.supports("bake"):
        bake(temp, hours)
        return []
    ctl = temperature_controller(transport)
    if ctl is None:
        raise UnsupportedCapability(f"bench {transport.url} cannot bake: {THERMAL_HINT}")
    readings = [float(ctl.settle(temp))]
    readings += _hold(ctl, hours, f"baking at {temp:g} °C", progress)
    ctl.settle(back_to)
    return readings


def _after(unit: Unit, ctx: Context) -> Context:
    """A copy of the context with `unit` applied (rows carry the state after the unit)."""
    blocks = {k: replace(v) for k, v in ctx.blocks.items()}
    after = Context(ctx.profile, blocks, ctx.temp_C, ctx.fast_forward, ctx.campaign_dir, ctx.files)
    apply(unit, after)
    return after


def _cycle(
    unit: Unit,
    p: CycleStep,
    ctx: Context,
    transport: Transport,
    chip: Chip,
    chip_id: str,
    progress: ProgressFn,
) -> Outcome:
    from nandlab.onfi.power import erase_energy

    assert unit.block is not None and unit.ce is not None
    block = unit.block
    before = ctx.block(unit).pec
    needed = p.pec - before
    slc = mode_of(ctx.profile, p.mode)
    ff = fast_forwarded(p, before, ctx.fast_forward)
    ff_ns = 0
    if ff:
        ff_ns = transport.fast_forward_wear(  # type: ignore[attr-defined]
            unit.ce, block, ff, slc=slc
        )
    spec = data_spec(ctx, unit, p.pattern, False, False, slc)
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
        progress(f"cycling block {block}", cycle + 1, real)
    after = _after(unit, ctx)
    base = {
        **base_row(unit, after, chip_id),
        "block": block,
        "pattern": p.pattern,
        "mode": "slc" if slc else geo.cell,
    }
    if p.power:
        m = erase_energy(chip, block)
        row = energy_row(m, base)
    else:
        result = chip.erase_block(block)
        row = op_row(
            ctx.profile, "erase", result.busy_ns, base, status=result.status, energy_measured=False
        )
    row["fast_forward_chip_s"] = ff_ns / 1e9
    event = {"kind": "cycle", "pec_delta": needed, "fast_forwarded": ff}
    return Outcome([row], ledger=[event])


def _measure(
    unit: Unit, p: MeasureStep, ctx: Context, chip: Chip, chip_id: str
) -> list[dict[str, Any]]:
    from nandlab.onfi.power import read_energy

    assert unit.block is not None
    b = ctx.block(unit)
    spec = b.written
    assert spec is not None
    wls = list(p.wls or b.wls)
    base = base_row(unit, ctx, chip_id)
    rows: list[dict[str, Any]] = []
    block = unit.block
    profile = ctx.profile
    if "rber" in p.what:
        chip.reset_read_offsets()
        rows += measure_pages(chip, block, wls, spec, base, chunk_bytes=p.chunk_bytes)
    if "latency" in p.what:
        for _ in range(p.repeats):
            for wl in wls:
                for pt, name in page_types(profile, spec.slc):
                    page = page_address(profile, wl, pt, spec.slc)
                    got = chip.read_page(block, page, slc=spec.slc, length=1)
                    rows.append(
                        op_row(
                            profile,
                            "read",
                            got.busy_ns,
                            {**base, "block": block, "wl": wl, "page": page, "page_type": name},
                            energy_measured=False,
                        )
                    )
    if "power" in p.what:
        wl = wls[0]
        for _ in range(p.repeats):
            for pt, name in page_types(profile, spec.slc):
                page = page_address(profile, wl, pt, spec.slc)
                m = read_energy(chip, block, page, slc=spec.slc, length=1)
                rows.append(
                    energy_row(
                        m, {**base, "block": block, "wl": wl, "page": page, "page_type": name}
                    )
                )
    if "retry" in p.what:
        rows += search_offsets(chip, block, wls[0], spec, base, code_step=p.retry_code_step)
    if "vth" in p.what:
        wl = p.vth_wl if p.vth_wl is not None else wls[min(2, len(wls) - 1)]
        if wl not in b.wls:
            raise UnitError(f"unit {unit.key}: vth_wl {wl} was not programmed")
        written = {
            pt: page_data(profile, spec, block, wl, pt) for pt, _ in page_types(profile, False)
        }
        result = measure_vth(chip, profile, block, wl, written, code_step=p.code_step)
        rows += result.rows(base)
    for r in rows:
        if isinstance(r.get("vth_mV"), float) and math.isnan(r["vth_mV"]):
            r["vth_mV"] = None
    return rows


def _compute(unit: Unit, p: ComputeStep, ctx: Context, chip: Chip, chip_id: str) -> Outcome:
    assert unit.block is not None
    b = ctx.block(unit)
    assert b.written is not None
    erases: dict[int, int] = {}
    options = dict(p.options)
    if p.allow_test_mode:
        options["allow_test_mode"] = True
    rows = measure_compute(
        chip,
        unit.block,
        list(p.wls or b.wls),
        b.written,
        base_row(unit, ctx, chip_id),
        scheme=p.scheme,
        ops=p.ops,
        layout=p.layout,
        options=options,
        scratch=p.scratch,
        pec=b.pec,
        against_reads=p.against_reads,
        scratch_erases=erases,
    )
    chip.reset_read_offsets()
    # scratch blocks wear too: the chip ledger keeps their P/E counts
    ledger = [
        {"kind": "cycle", "block": blk, "pec_delta": n, "scratch": True}
        for blk, n in sorted(erases.items())
    ]
    return Outcome(rows, ledger=ledger)
