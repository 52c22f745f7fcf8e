"""A run's progress as the dashboard shows it, from the run folder alone.

Everything comes from files the run itself keeps (run.json, run.sqlite through the run
format's own readers), so a run started from a terminal, from the dashboard, or by a
dashboard that was restarted since, shows the same way.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from nandlab.campaign.schema import parse_campaign
from nandlab.campaign.sweep import expand
from nandlab.dataset.catalog import RunEntry, catalog, run_entry
from nandlab.dataset.columns import RUN_JSON
from nandlab.dataset.store import RunStore
from nandlab.errors import NandlabError


def find_run(out: Path, run_id: str) -> RunEntry | None:
    """The catalogue entry of `run_id` under `out` (None when there is no such run).

    A run's folder is named after its id (`nandlab run` and the dashboard name them so),
    which spares the progress events a scan of the whole folder twice a second; a folder
    renamed since is found by the scan."""
    named = out / run_id
    if named.parent == out and run_id not in (".", "..") and (named / RUN_JSON).is_file():
        entry = run_entry(named)
        if entry.run_id == run_id:
            return entry
    return next((e for e in catalog(out) if e.run_id == run_id), None)


def run_progress(entry: RunEntry) -> dict[str, Any]:
    """Units done / total, rows, rows per second, wall and chip time spent and left.

    Times left are the mean of the units done times the units left: a campaign whose
    units differ in length (a bake among reads) gets a rough estimate until it is
    well under way. Rates use the units' own wall time (measuring, not waiting)."""
    folder = Path(entry.folder)
    meta = json.loads((folder / RUN_JSON).read_text())
    total = int(meta.get("units") or 0)
    doc: dict[str, Any] = {
        "run_id": entry.run_id,
        "status": entry.status,
        "campaign": entry.campaign,
        "chips": entry.chips,
        "start_utc": entry.start_utc,
        "stop_utc": meta.get("stop_utc"),
        "units_total": total,
        "units_done": 0,
        "rows": entry.rows or 0,
        "last_unit": None,
        "current_unit": None,
        "wall_s": 0.0,
        "chip_s": 0.0,
        "rows_per_s": None,
        "eta_s": None,
        "chip_eta_s": None,
        "error": meta.get("error"),
        "bench": bench_status(meta),
    }
    try:
        store = RunStore(folder, readonly=True)
    except NandlabError:
        return doc  # no store yet (the run is starting) or none left: the counts stay 0
    try:
        done = store.done()
        units, chip_ns, wall_s = store.totals()
        rows = store.row_count()
    finally:
        store.close()
    last = max(done.values(), key=lambda u: u.idx) if done else None
    doc.update(
        units_done=units,
        rows=rows,
        last_unit=None if last is None else {"idx": last.idx, "key": last.key},
        wall_s=wall_s,
        chip_s=chip_ns / 1e9,
    )
    if entry.status == "running":
        doc["current_unit"] = _unit_in_flight(meta, {u.idx for u in done.values()})
    if units and wall_s > 0:
        doc["rows_per_s"] = rows / wall_s
    left = max(total - units, 0)
    if units and entry.status == "running":
        doc["eta_s"] = wall_s / units * left
        doc["chip_eta_s"] = chip_ns / 1e9 / units * left
    return doc


def _unit_in_flight(meta: dict[str, Any], done: set[int]) -> dict[str, Any] | None:
    """The unit a running campaign is measuring: the first of its plan not committed (the
    runner goes in plan order), with its chip, block and sweep point."""
    try:
        plan = _plan(meta["campaign_text"], meta["campaign_file"], tuple(meta["blocks"]))
    except (KeyError, TypeError, NandlabError):  # run.json without its plan (damaged, old)
        return None
    unit = next((u for u in plan if u.index not in done), None)
    if unit is None:
        return None
    return {"idx": unit.index, "key": unit.key, "kind": unit.kind, "ce": unit.ce,
            "block": unit.block, "point": unit.point}


@functools.lru_cache(maxsize=16)
def _plan(text: str, name: str, blocks: tuple[int, ...]) -> tuple[Any, ...]:
    # a run's plan never changes: expanded once, not at every progress event
    return tuple(expand(parse_campaign(text, name), list(blocks)).units)


def _text(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {_text(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value)
    return "-" if value is None else str(value)


def bench_status(meta: dict[str, Any]) -> list[tuple[str, str]]:
    """The bench as the run recorded it at start (run.json's `bench` snapshot, its
    temperatures, the software): (label, text) pairs. Whatever the transport adds to the
    snapshot (bitstream, firmware, die image...) is listed under its own name."""
    bench = meta.get("bench")
    if not isinstance(bench, dict):
        bench = {}
    shown = [
        ("bench", bench.get("url")),
        ("profile", bench.get("profile")),
        ("roles", bench.get("roles")),
        ("busy time from", bench.get("busy_source")),
    ]
    for role, inst in (bench.get("instruments") or {}).items():
        shown.append((f"{role} instrument", inst))
    shown.append(("temperatures (°C)", meta.get("temperatures_C")))
    listed = {"url", "profile", "roles", "busy_source", "instruments", "temperatures_C",
              "transport", "targets"}
    shown += [(k, v) for k, v in bench.items() if k not in listed]
    resumes = meta.get("bench_on_resume")
    if isinstance(resumes, list) and resumes:
        last = resumes[-1] if isinstance(resumes[-1], dict) else {}
        shown.append(("resumed", f"{len(resumes)} time(s), last on {last.get('url', '-')}"))
    commit = meta.get("git_commit")
    shown.append(("nandlab", f"{meta.get('nandlab_version', '-')}"
                  + (f" (git {str(commit)[:10]}{', dirty' if meta.get('git_dirty') else ''})"
                     if commit else "")))
    return [(label, _text(value)) for label, value in shown if value not in (None, [], {})]
