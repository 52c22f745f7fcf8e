"""Run and resume campaigns: units in order, each committed with its rows and die checkpoint.

    result = start_run("characterization/campaigns/mlc-vth-sweep.yaml", "runs/")
    result = resume_run(result.run_dir)     # after a kill or a bench fault

A unit's rows, its "done" mark and the name of the die checkpoint taken
after it are committed in one SQLite transaction (`dataset.store`); the
ledger's events are written before that commit and are idempotent, so a
unit repeated on resume is counted once. A bench fault stops the run
cleanly (`RunStopped` names the unit) and `resume_run` retries that unit.
"""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nandlab.campaign.bench_session import BenchSession, Opener
from nandlab.campaign.blocks import choose_blocks
from nandlab.campaign.chip_history import (
    book_partial_wear,
    book_unit,
    start_blocks,
    start_state,
)
from nandlab.campaign.preflight import dry_run, preflight
from nandlab.campaign.run_dir import RunDirError, new_run_dir
from nandlab.campaign.runlog import log, logged_run
from nandlab.campaign.schema import (
    Campaign,
    LoadedCampaign,
    campaign_text,
    load_campaign,
    parse_campaign,
)
from nandlab.campaign.steps import Context, apply, check_bench, execute
from nandlab.campaign.stops import reason, signal_of, wind_down
from nandlab.campaign.sweep import Plan, expand
from nandlab.characterize.progress import ProgressFn, no_progress
from nandlab.dataset.columns import RUN_JSON
from nandlab.dataset.parts import PartWriter, drop_parts
from nandlab.dataset.provenance import provenance
from nandlab.dataset.sqlite import utc_now
from nandlab.dataset.store import RunStore, finish_dataset
from nandlab.errors import ChipStatusFail, Interrupted, NandlabError, UsageError
from nandlab.ledger import Ledger
from nandlab.paths import write_atomic
from nandlab.transport import open_bench

StepProgress = Callable[[str, int, int, int], None]
"""progress(step label, units done in the step, units in the step, step index)."""

UnitsRunner = Callable[..., "RunResult"]
"""Runs a prepared run's units: `_run_units` here, or `ray_runner`'s shards on a cluster;
called as (session, plan, ctx, meta, run_dir, ledger, ids, progress, unit_progress)."""


class RunStopped(NandlabError):
    """A run stopped before its end (bench fault, refused write); `nandlab resume` continues
    it. A signal stops it as `errors.Interrupted`, with the same message."""

    def __init__(self, message: str, run_dir: Path, unit: str | None) -> None:
        super().__init__(message)
        self.run_dir = run_dir
        self.unit = unit


@dataclass
class RunResult:
    run_dir: Path
    status: str
    units: int
    units_run: int
    chip_time_ns: int
    wall_s: float

    def rows(self) -> list[dict[str, Any]]:
        """The run's rows committed so far, in unit order then measuring order."""
        store = RunStore(self.run_dir)
        try:
            return store.rows()
        finally:
            store.close()

    @property
    def speed(self) -> float:
        """Chip time over wall time of the units run (higher is better)."""
        return self.chip_time_ns / 1e9 / self.wall_s if self.wall_s > 0 else float("inf")


def write_meta(run_dir: Path, meta: dict[str, Any]) -> None:
    write_atomic(run_dir / RUN_JSON, (json.dumps(meta, indent=2, default=str) + "\n").encode())


def read_meta(run_dir: Path) -> dict[str, Any]:
    path = Path(run_dir) / RUN_JSON
    try:
        meta = json.loads(path.read_text())
    except FileNotFoundError:
        raise UsageError(f"{run_dir} is not a run directory (no {RUN_JSON})") from None
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path} cannot be read: {exc}") from None
    if "campaign_text" not in meta:
        raise UsageError(f"{run_dir} was not written by a campaign run (nandlab run)")
    return dict(meta)


def run_context(session: BenchSession, meta: dict[str, Any]) -> Context:
    """The campaign state at the run's start, for the units to run on the session's bench."""
    bench = session.bench
    assert bench is not None and bench.transport.profile is not None
    profile = bench.transport.profile
    blocks = start_blocks(meta)
    return Context(
        profile,
        blocks,
        float(meta["temperatures_C"]["ambient"]),
        bench.has("wear"),
        _campaign_dir(meta),
    )


def start_run(
    campaign_file: str | Path,
    out: str | Path,
    *,
    run_id: str | None = None,
    opener: Opener = open_bench,
    progress: StepProgress | None = None,
    unit_progress: ProgressFn = no_progress,
    run_units: UnitsRunner | None = None,
) -> RunResult:
    """Validate a campaign file, open the bench, choose blocks, expand, then run every unit
    (in this process, or through `run_units`: `campaign.ray_runner`).

    `file:` patterns are read relative to the campaign file's folder."""
    loaded = load_campaign(campaign_file)
    return _start(
        loaded,
        Path(out),
        source=str(campaign_file),
        command=f"nandlab run {campaign_file}",
        campaign_dir=Path(campaign_file).resolve().parent,
        run_id=run_id,
        opener=opener,
        progress=progress,
        unit_progress=unit_progress,
        run_units=run_units or _run_units,
    )


def run_campaign(
    campaign: Campaign,
    out: str | Path,
    *,
    run_id: str | None = None,
    on_progress: StepProgress | None = None,
    unit_progress: ProgressFn = no_progress,
    command: str | None = None,
    campaign_dir: Path | None = None,
    opener: Opener = open_bench,
) -> RunResult:
    """Run an in-memory campaign into a new run directory under `out`, as `nandlab run` does.

    The run keeps the campaign as YAML text in run.json, so `nandlab resume`, `report`
    and `export` take its folder like any other. `command` is what run.json records as
    the command (default `nandlab run <name>`); `file:` patterns are read relative to
    `campaign_dir` (default: the working directory). `result.rows()` gives the rows.
    """
    text = campaign_text(campaign)
    source = f"<{campaign.name}>"
    loaded = parse_campaign(text, source)
    return _start(
        loaded,
        Path(out),
        source=source,
        command=command or f"nandlab run {source}",
        campaign_dir=(campaign_dir or Path.cwd()).resolve(),
        run_id=run_id,
        opener=opener,
        progress=on_progress,
        unit_progress=unit_progress,
        run_units=_run_units,
    )


def _start(
    loaded: LoadedCampaign,
    out: Path,
    *,
    source: str,
    command: str,
    campaign_dir: Path,
    run_id: str | None,
    opener: Opener,
    progress: StepProgress | None,
    unit_progress: ProgressFn,
    run_units: UnitsRunner,
) -> RunResult:
    c = loaded.campaign
    preflight(loaded, campaign_dir)
    run_dir = new_run_dir(out, c.name, run_id)
    # checked before the bench opens: a damaged ledger leaves the chip as it was
    ledger = Ledger()
    session = BenchSession(c.bench, list(c.chips), run_dir, opener)
    try:
        bench = session.open(fresh=c.fresh)
    except BaseException:
        ledger.close()
        raise
    created = False
    try:
        ids = {ce: chip.identification.unique_id for ce, chip in session.chips.items()}
        run_name = run_dir.name
        # a fresh virtual die has no history; its ledger is reset only once every check
        # below has passed, so a refused campaign leaves the chip's history as it was
        history = None if c.fresh and session.virtual else ledger
        if history is None:
            for chip in session.chips.values():
                chip.forget_bad_blocks()
        blocks = choose_blocks(loaded, session, history, ids)
        plan = expand(loaded, blocks)
        assert bench.transport.profile is not None
        profile = bench.transport.profile
        snapshot = bench.snapshot()
        chip0 = session.chips[c.chips[0]]
        meta: dict[str, Any] = {
            "command": command,
            "run_id": run_name,
            "campaign": c.name,
            "campaign_file": source,
            "campaign_dir": str(campaign_dir),
            "campaign_text": loaded.text,
            "campaign_sha256": hashlib.sha256(loaded.text.encode()).hexdigest(),
            "bench_url": session.url,
            "bench": snapshot,
            "fresh": c.fresh,
            "profile": profile.name,
            "seed": c.seed,
            "chips": [
                {
                    "ce": ce,
                    "unique_id": ids[ce],
                    "id_bytes": ch.identification.id_bytes.hex(),
                    "manufacturer": ch.identification.manufacturer,
                    "model": ch.identification.model,
                }
                for ce, ch in session.chips.items()
            ],
            "blocks": blocks,
            **start_state(history, ids, c.chips, blocks),
            "temperatures_C": {
                "ambient": profile.environment.ambient_temp_C,
                "bake": profile.environment.bake_temp_C,
                "measured_at_start": snapshot["temperatures_C"]["measured"],
            },
            "busy_source": snapshot["busy_source"],
            "units": len(plan.units),
            "unit_seeds": "sha256(campaign seed / unit key), first 63 bits",
            **provenance(),
            "start_utc": utc_now(),
            "stop_utc": None,
            "status": "running",
            "t_prog_us": chip0.identification.fields.get("t_prog_us"),
        }
        ctx = run_context(session, meta)
        dry_run(plan, ctx)
        check_bench(bench, {u.kind for u in plan.units})
        if history is None:
            for uid in ids.values():
                ledger.reset_chip(uid, run_name, "virtual die started fresh")
            for chip in session.chips.values():
                chip.keep_bad_blocks()  # the fresh die's markers, read above
        try:
            run_dir.mkdir(parents=True, exist_ok=True)
            created = True
            meta["initial_checkpoint"] = session.checkpoint("init")
            write_meta(run_dir, meta)
        except OSError as exc:
            raise RunDirError(
                f"cannot write the run directory {run_dir}: {exc.strerror or exc}"
            ) from None
        for uid in ids.values():
            ledger.touch_chip(uid, profile.name, session.virtual, session.url)
            ledger.run_started(uid, run_name, c.name, str(run_dir.resolve()))
    except BaseException:
        if created:
            session.close()
        else:  # refused before the run began: the chip's saved state stays as it was
            session.abandon()
        ledger.close()
        if created and not (run_dir / RUN_JSON).exists():
            shutil.rmtree(run_dir, ignore_errors=True)
        raise
    return run_units(session, plan, ctx, meta, run_dir, ledger, ids, progress, unit_progress)


def resume_run(
    run_dir: str | Path,
    *,
    opener: Opener = open_bench,
    progress: StepProgress | None = None,
    unit_progress: ProgressFn = no_progress,
    run_units: UnitsRunner | None = None,
) -> RunResult:
    """Continue a stopped or killed run: restore the die to the last committed unit, run the
    rest (in this process, or through `run_units`). A complete run is left as it is."""
    run = Path(run_dir)
    meta = read_meta(run)
    loaded = parse_campaign(meta["campaign_text"], meta["campaign_file"])
    plan = expand(loaded, list(meta["blocks"]))
    if meta.get("status") == "complete":
        store = RunStore(run)
        n, chip_ns, wall = store.totals()
        store.close()
        drop_parts(run)  # left by a kill between completing and removing them
        return RunResult(run, "complete", len(plan.units), 0, chip_ns, wall)
    ledger = Ledger()  # checked before the die is restored or the bench opened
    session = BenchSession(meta["bench_url"], list(loaded.campaign.chips), run, opener)
    store = RunStore(run)
    # on Ray the shards' checkpoints are their own (ray_runner); this session only opens
    tag = None if "ray" in meta else store.last_checkpoint()
    tag = tag or meta.get("initial_checkpoint")
    store.close()
    if tag is not None and meta["bench_url"].startswith("sim:"):
        session.restore(tag)
    session.open()
    ids = {int(ch["ce"]): str(ch["unique_id"]) for ch in meta["chips"]}
    for ce, chip in session.chips.items():
        if chip.identification.unique_id != ids[ce]:
            session.close()
            ledger.close()
            raise UsageError(
                f"CE {ce} holds chip {chip.identification.unique_id}, but run "
                f"{run} was measured on chip {ids[ce]}: put that chip back"
            )
    ctx = run_context(session, meta)
    for uid in ids.values():
        ledger.run_started(uid, meta["run_id"], meta["campaign"], str(run.resolve()))
    meta["status"] = "running"
    meta.update({k: v for k, v in provenance().items() if k in ("pid", "host")})
    meta.setdefault("resumed_utc", []).append(utc_now())
    assert session.bench is not None
    # the bench may have changed in between (another instrument, a reloaded bitstream)
    meta.setdefault("bench_on_resume", []).append(session.bench.snapshot())
    write_meta(run, meta)
    run_units = run_units or _run_units
    return run_units(session, plan, ctx, meta, run, ledger, ids, progress, unit_progress)


def _campaign_dir(meta: dict[str, Any]) -> Path:
    """Where the run's `file:` patterns are read from (older runs: the campaign file's folder)."""
    return Path(meta.get("campaign_dir") or Path(meta["campaign_file"]).resolve().parent)


@logged_run
def _run_units(
    session: BenchSession,
    plan: Plan,
    ctx: Context,
    meta: dict[str, Any],
    run_dir: Path,
    ledger: Ledger,
    ids: dict[int, str],
    progress: StepProgress | None,
    unit_progress: ProgressFn,
) -> RunResult:
    store = RunStore(run_dir)
    parts = PartWriter(run_dir, store)
    done = store.done()
    run_id = str(meta["run_id"])
    step_done: dict[int, int] = {}
    ran = 0
    current: str | None = None
    try:
        for unit in plan.units:
            current = unit.key
            if unit.key in done:
                if done[unit.key].seed != unit.seed:
                    raise UsageError(
                        f"unit {unit.key} was measured with another seed: the "
                        "run's campaign does not match its rows"
                    )
                apply(unit, ctx)
            else:
                bench = session.bench
                assert bench is not None
                clock0 = bench.chip_time_ns()
                wall0 = time.perf_counter()
                chip = session.chips.get(unit.ce) if unit.ce is not None else None
                chip_id = ids[unit.ce] if unit.ce is not None else ",".join(ids.values())
                try:
                    outcome = execute(unit, ctx, bench, chip, chip_id, unit_progress)
                except ChipStatusFail as exc:
                    if unit.block is not None:
                        ledger.mark_bad(chip_id, unit.block, f"status FAIL: {exc}", run_id)
                    raise
                chip_ns = bench.chip_time_ns() - clock0
                apply(unit, ctx)
                book_unit(ledger, unit, outcome, ids, run_id)
                tag = session.checkpoint(f"u{unit.index:05d}")
                wall = time.perf_counter() - wall0  # the checkpoint is part of the unit's cost
                store.commit_unit(
                    unit.index,
                    unit.key,
                    unit.seed,
                    outcome.rows,
                    checkpoint=tag,
                    chip_time_ns=chip_ns,
                    wall_s=wall,
                )
                parts.committed(len(outcome.rows))
                log.debug("unit %s committed: %d rows", unit.key, len(outcome.rows))
                session.prune(tag)
                ran += 1
            step_done[unit.step] = step_done.get(unit.step, 0) + 1
            if progress is not None:
                progress(
                    plan.step_label(unit.step),
                    step_done[unit.step],
                    plan.step_units[unit.step],
                    unit.step,
                )
    except (NandlabError, KeyboardInterrupt, OSError, sqlite3.OperationalError) as exc:
        status = "interrupted" if isinstance(exc, KeyboardInterrupt) else "stopped"
        why = reason(exc, run_dir)
        meta.update(status=status, failed_unit=current, error=why, stop_utc=utc_now())
        wind_down(
            lambda: write_meta(run_dir, meta),
            lambda: book_partial_wear(session, ledger, ids, run_id, current),
            session.close,
            parts.flush,
            store.close,
            *(functools.partial(ledger.run_finished, uid, run_id, status) for uid in ids.values()),
            ledger.close,
        )
        if isinstance(exc, UsageError):
            raise
        message = (
            f"run stopped at unit {current}: {why}. Rows of every earlier unit are kept; "
            f"'nandlab resume {run_dir}' retries {current}"
        )
        if isinstance(exc, KeyboardInterrupt):
            raise Interrupted(signal_of(exc), message) from exc
        raise RunStopped(message, run_dir, current) from exc
    session.close()
    n, chip_ns, wall = store.totals()
    store.close()
    dataset = finish_dataset(run_dir)
    session.prune(None)
    meta.update(
        status="complete",
        dataset=dataset,
        stop_utc=utc_now(),
        failed_unit=None,
        error=None,
        chip_time_s=chip_ns / 1e9,
        wall_s_units=wall,
    )
    write_meta(run_dir, meta)
    drop_parts(run_dir)  # after run.json says complete: readers then read measurements.parquet
    for uid in ids.values():
        ledger.run_finished(uid, run_id, "complete")
    ledger.close()
    return RunResult(run_dir, "complete", len(plan.units), ran, chip_ns, wall)
