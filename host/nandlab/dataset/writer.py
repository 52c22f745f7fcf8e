"""Run directory writer: rows survive a crash, the parquet is always whole.

Each measured row is appended to ``measurements.jsonl`` and fsynced before
`append` returns, so an interrupted run loses no measured row. At the end of
every campaign step (`checkpoint`) and on `close`, ``measurements.parquet``
is rewritten from all rows through a temporary file and ``os.replace``, so a
reader never sees a half-written parquet.

Resuming: rows carry the name of their campaign `step`; `checkpoint(step)`
records the step as done in run.json. Reopening a run directory keeps the
rows of finished steps, drops the partial rows of an unfinished one (the
campaign measures that step again) and a torn last line, so a resumed run
neither loses nor duplicates a row.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

import nandlab

RUN_JSON = "run.json"
JOURNAL = "measurements.jsonl"
PARQUET = "measurements.parquet"
SUMMARY = "summary.md"
PLOTS = "plots"

# Coordinates first, then figures. Columns a row does not fill are null.
COLUMNS: dict[str, pa.DataType] = {
    "step": pa.string(),
    "chip": pa.string(),
    "ce": pa.int32(),
    "block": pa.int32(),
    "wl": pa.int32(),
    "page": pa.int32(),
    "page_type": pa.string(),
    "slc": pa.bool_(),
    "pec": pa.int64(),
    "fast_forwarded": pa.bool_(),
    "fast_forwarded_cycles": pa.int64(),
    "fast_forward_chip_s": pa.float64(),
    "retention_age_h": pa.float64(),
    "retention_label": pa.string(),
    "bake_temp_C": pa.float64(),
    "bake_h": pa.float64(),
    "temp_C": pa.float64(),
    "setpoint_C": pa.float64(),
    "operation": pa.string(),
    "pattern": pa.string(),
    "seed": pa.int64(),
    "offsets": pa.list_(pa.int32()),
    "reference": pa.string(),
    "state": pa.string(),
    "vth_mV": pa.float64(),
    "cells": pa.int64(),
    "bits": pa.int64(),
    "errors_0to1": pa.int64(),
    "errors_1to0": pa.int64(),
    "rber": pa.float64(),
    "latency_us": pa.float64(),
    "energy_uJ": pa.float64(),
    "status": pa.int32(),
    # campaign runs (nandlab.campaign): the unit that measured the row and its conditions
    "unit": pa.string(),
    "mode": pa.string(),
    "chunk": pa.int32(),
    "disturb_reads": pa.int64(),
    "offset_mV": pa.float64(),
    "energy_measured": pa.bool_(),
    "mean_mA": pa.float64(),
    "peak_mA": pa.float64(),
    # in-flash computing (compute steps): the scheme, the expression and its sensings
    "scheme": pa.string(),
    "expression": pa.string(),
    "sensings": pa.int32(),
    # expression steps (nandlab compute): the scheme's plan, or why it cannot run, as JSON
    "detail": pa.string(),
}
SCHEMA = pa.schema(list(COLUMNS.items()))


def utc_now() -> str:
    """Current UTC time, ISO 8601 with a Z suffix."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def new_run_dir(parent: str | Path, name: str) -> Path:
    """A new, empty run directory `parent/<name>-<UTC time>` (suffixed if taken)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    base = Path(parent) / f"{name}-{stamp}"
    path, n = base, 1
    while True:
        try:
            path.mkdir(parents=True)
            return path
        except FileExistsError:
            n += 1
            path = base.with_name(f"{base.name}-{n}")


def _fsync_write(path: Path, data: bytes) -> None:
    """Write `data` to `path` atomically: temp file, fsync, os.replace."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _check_row(row: Mapping[str, Any]) -> dict[str, Any]:
    unknown = set(row) - set(COLUMNS)
    if unknown:
        raise ValueError(f"unknown measurement columns {sorted(unknown)}; known: {list(COLUMNS)}")
    return dict(row)


def read_journal(run_dir: str | Path) -> list[dict[str, Any]]:
    """Rows of a run's journal; a torn last line (crash mid-write) is skipped."""
    path = Path(run_dir) / JOURNAL
    if not path.exists():
        return []
    rows: list[dict[str, Any]] = []
    lines = path.read_bytes().split(b"\n")
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            if i < len(lines) - 1 and any(x.strip() for x in lines[i + 1 :]):
                raise ValueError(f"{path}: line {i + 1} is corrupt") from None
    return rows


def rows_to_table(rows: Iterable[Mapping[str, Any]]) -> pa.Table:
    """Tidy rows to an arrow table with the dataset schema (missing columns null)."""
    rows = list(rows)
    return pa.Table.from_pydict(
        {name: [r.get(name) for r in rows] for name in COLUMNS}, schema=SCHEMA
    )


def read_measurements(run_dir: str | Path) -> pa.Table:
    """Load a run's measurements.parquet (or, if a crash left none, its journal)."""
    run = Path(run_dir)
    if (run / PARQUET).exists():
        return pq.read_table(run / PARQUET)
    if (run / JOURNAL).exists():
        return rows_to_table(read_journal(run))
    raise FileNotFoundError(f"{run} holds no {PARQUET} or {JOURNAL}")


class RunWriter:
    """Writes one run directory (contract 4).

    `meta` goes into run.json beside the start time (UTC) and nandlab's
    version; `update_meta` adds to it (chip IDs, temperatures...). If
    `run_dir` already holds a journal its rows are kept and new rows follow.
    """

    def __init__(self, run_dir: str | Path, meta: Mapping[str, Any]) -> None:
        self.dir = Path(run_dir)
        self.plots_dir = self.dir / PLOTS
        self.plots_dir.mkdir(parents=True, exist_ok=True)
        old: dict[str, Any] = {}
        if (self.dir / RUN_JSON).exists():
            old = json.loads((self.dir / RUN_JSON).read_text())
        self.steps_done: list[str] = list(old.get("steps_done", []))
        kept = [r for r in read_journal(self.dir) if r.get("step") in (None, *self.steps_done)]
        self.rows: list[dict[str, Any]] = []
        if (self.dir / JOURNAL).exists():
            _fsync_write(self.dir / JOURNAL, b"".join(_encode(r) for r in kept))
            self.rows = kept
        self.meta: dict[str, Any] = {
            **old,
            "nandlab_version": nandlab.__version__,
            "start_utc": old.get("start_utc", utc_now()),
            "stop_utc": None,
            **dict(meta),
            "steps_done": self.steps_done,
        }
        self._write_meta()
        self._journal = open(self.dir / JOURNAL, "ab")  # noqa: SIM115 - kept open for the run
        self._converted: tuple[int, pa.Table, list[dict[str, Any]]] | None = None
        self.closed = False

    def _write_meta(self) -> None:
        text = json.dumps(self.meta, indent=2, sort_keys=False, default=str) + "\n"
        _fsync_write(self.dir / RUN_JSON, text.encode())

    def update_meta(self, **fields: Any) -> None:
        """Add or replace run.json fields (written at once)."""
        self.meta.update(fields)
        self._write_meta()

    def append(self, rows: Mapping[str, Any] | Iterable[Mapping[str, Any]]) -> None:
        """Journal one row or a batch of rows; durable (fsynced) on return."""
        batch = [_check_row(rows)] if isinstance(rows, Mapping) else [_check_row(r) for r in rows]
        if not batch:
            return
        encoded = [_encode(r) for r in batch]
        self._journal.write(b"".join(encoded))
        self._journal.flush()
        os.fsync(self._journal.fileno())
        self.rows.extend(json.loads(line) for line in encoded)

    def is_done(self, step: str) -> bool:
        """True if `step` was completed (checkpointed) by this or an earlier session."""
        return step in self.steps_done

    def _table(self) -> pa.Table:
        """Every row so far as an arrow table; rows already converted at an earlier checkpoint
        are kept as a table (rows are only ever appended), so a checkpoint converts the new
        ones only."""
        done = self._converted
        if done is None or done[0] > len(self.rows) or done[2] is not self.rows:
            done = (0, rows_to_table([]), self.rows)
        n, table, _ = done
        if n < len(self.rows):
            table = pa.concat_tables([table, rows_to_table(self.rows[n:])]).combine_chunks()
        self._converted = (len(self.rows), table, self.rows)
        return table

    def checkpoint(self, step: str | None = None) -> None:
        """Rewrite measurements.parquet from every row so far (atomically); mark `step` done."""
        table = self._table()
        tmp = self.dir / f".{PARQUET}.tmp"
        pq.write_table(table, tmp)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, self.dir / PARQUET)
        if step is not None and step not in self.steps_done:
            self.steps_done.append(step)
            self._write_meta()

    def write_summary(self, markdown: str) -> Path:
        path = self.dir / SUMMARY
        _fsync_write(path, markdown.encode())
        return path

    def close(self, **final_meta: Any) -> None:
        """Write the parquet and the stop time; further appends are refused."""
        if self.closed:
            return
        self.checkpoint()
        self._journal.close()
        self.meta.update(final_meta)
        self.meta["stop_utc"] = utc_now()
        self._write_meta()
        self.closed = True

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _encode(row: Mapping[str, Any]) -> bytes:
    return json.dumps(row, default=_json_default).encode() + b"\n"


def _json_default(value: Any) -> Any:
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"cannot store {type(value).__name__} in a measurement row")
