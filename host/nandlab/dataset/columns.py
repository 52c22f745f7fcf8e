"""The run folder's file names and the data dictionary of its measurement rows (contract 4).

A run folder holds `run.json` (what was run, on which bench), `run.sqlite`
(the run store: committed units and their rows, what makes a run resumable;
`nandlab.dataset.store`), `measurements.parquet` (the rows, written from the
store when the run completes; its sha256 is in run.json), `summary.md`,
`plots/` and `export/` (files written by `nandlab export`, each with a
`.sha256` file beside it).

`DICTIONARY` is the one source of every column's type, unit and meaning: the
Parquet schema carries them as field metadata and docs/data.md's table is
generated from it (`dictionary_markdown`; a test checks the page is current).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa

from nandlab.analysis import Rate

RUN_JSON = "run.json"
PARQUET = "measurements.parquet"
SUMMARY = "summary.md"
PLOTS = "plots"
RUN_LOCK = "run.lock"
"""Held (flock, `nandlab.locks`) by the command that is running or resuming the run."""
EXPORTS = "export"
PARTIAL_REPORT = "partial-report"
"""Where `nandlab report --partial` writes a report of an unfinished run; removed when the
run completes, so a finished folder never holds a summary of part of its rows."""

CONFIDENCE = 0.95
"""Two-sided confidence of the rber_low / rber_high columns (Wilson score interval)."""


@dataclass(frozen=True)
class Column:
    """One column of the measurement rows: its arrow type, unit ('' if none) and meaning."""

    name: str
    type: pa.DataType
    unit: str
    meaning: str


def _c(name: str, typ: pa.DataType, unit: str, meaning: str) -> Column:
    return Column(name, typ, unit, meaning)


# Bookkeeping, coordinates, then figures. Columns a row does not fill are null.
DICTIONARY: tuple[Column, ...] = (
    _c("run_id", pa.string(), "", "the run (its folder name, run.json's run_id)"),
    _c("unit_idx", pa.int32(), "", "index of the campaign unit that measured the row"),
    _c("time_utc", pa.timestamp("us", tz="UTC"), "UTC", "when the row's unit was committed"),
    _c("step", pa.string(), "", "campaign step: s<index>.<kind>"),
    _c("unit", pa.string(), "", "key of the campaign unit (step, chip, block, condition)"),
    _c("chip", pa.string(), "", "unique ID of the chip measured (hex)"),
    _c("ce", pa.int32(), "", "chip enable (target) of the chip"),
    _c("block", pa.int32(), "", "block address"),
    _c("wl", pa.int32(), "", "word line in the block"),
    _c("page", pa.int32(), "", "page address in the block"),
    _c("page_type", pa.string(), "", "page of the cell's bits: LSB, CSB, MSB, SLC, ..."),
    _c("slc", pa.bool_(), "", "the page was read in SLC mode"),
    _c("pec", pa.int64(), "cycles", "program / erase cycles of the block when measured"),
    _c("fast_forwarded", pa.bool_(), "", "wear fast-forwarded on the virtual die"),
    _c("fast_forwarded_cycles", pa.int64(), "cycles", "of the P/E cycles, how many were"
       " fast-forwarded"),
    _c("fast_forward_chip_s", pa.float64(), "s", "chip time the fast-forwarded cycles stand for"),
    _c("retention_age_h", pa.float64(), "h", "retention age at use temperature"),
    _c("retention_label", pa.string(), "", "retention condition as the campaign names it"),
    _c("bake_temp_C", pa.float64(), "°C", "temperature of the bake that aged the block"),
    _c("bake_h", pa.float64(), "h", "duration of that bake"),
    _c("activation_energy_eV", pa.float64(), "eV", "Arrhenius activation energy the bake was"
       " planned with"),
    _c("temp_C", pa.float64(), "°C", "chip temperature when measured"),
    _c("setpoint_C", pa.float64(), "°C", "thermal chamber setpoint"),
    _c("operation", pa.string(), "", "what was measured: rber, vth, read, program, erase,"
       " read_retry, compute:<op>, ..."),
    _c("pattern", pa.string(), "", "data pattern written"),
    _c("seed", pa.int64(), "", "seed of the pattern or of the unit's noise stream"),
    _c("offsets", pa.list_(pa.int32()), "DAC codes", "read reference offsets applied"),
    _c("reference", pa.string(), "", "read reference (vth), or what a result is compared with"),
    _c("state", pa.string(), "", "programmed state of the cells (vth rows)"),
    _c("vth_mV", pa.float64(), "mV", "threshold voltage bin centre (vth rows)"),
    _c("cells", pa.int64(), "cells", "cells counted in the bin or state"),
    _c("bits", pa.int64(), "bits", "bits compared"),
    _c("errors_0to1", pa.int64(), "bits", "bits written 0 (programmed) read as 1"),
    _c("errors_1to0", pa.int64(), "bits", "bits written 1 (erased) read as 0"),
    _c("rber", pa.float64(), "errors/bit", "measured raw bit error rate (errors / bits)"),
    _c("rber_low", pa.float64(), "errors/bit", "lower bound of the rate's 95 % Wilson interval"),
    _c("rber_high", pa.float64(), "errors/bit", "upper bound of the rate's 95 % Wilson interval"
       " (with 0 errors: the rate's upper bound)"),
    _c("latency_us", pa.float64(), "µs", "busy time of the operation (R/B# low)"),
    _c("energy_uJ", pa.float64(), "µJ", "energy of the operation"),
    _c("status", pa.int32(), "", "status byte the chip returned"),
    _c("mode", pa.string(), "", "cell mode used: native (the part's own) or slc"),
    _c("chunk", pa.int32(), "", "chunk or repetition index within the measurement"),
    _c("disturb_reads", pa.int64(), "reads", "reads of the block before the measurement"),
    _c("offset_mV", pa.float64(), "mV", "read reference offset applied"),
    _c("energy_measured", pa.bool_(), "", "energy from a POWER window (else a datasheet estimate)"),
    _c("mean_mA", pa.float64(), "mA", "mean supply current over the operation"),
    _c("peak_mA", pa.float64(), "mA", "peak supply current over the operation"),
    _c("scheme", pa.string(), "", "in-flash computing scheme"),
    _c("expression", pa.string(), "", "bitwise expression computed in the chip"),
    _c("sensings", pa.int32(), "", "sensings the in-flash operation took"),
    _c("detail", pa.string(), "", "the scheme's plan, or why it cannot run (JSON)"),
    _c("interface", pa.string(), "", "data interface of the transfers (sdr, nv-ddr2, nv-ddr3)"),
    _c("timing_mode", pa.int32(), "", "timing mode of that interface"),
    _c("data_rate_mts", pa.float64(), "MT/s", "rated transfer rate of that mode"),
    _c("lane", pa.int32(), "", "byte lane of the data bus (eye scan)"),
    _c("capture_tap", pa.int32(), "", "DQS capture-delay tap of the lane"),
    _c("capture_delay_ps", pa.float64(), "ps",
       "capture delay after the DQS edge (eye_window: the window's centre)"),
    _c("bit_errors", pa.int64(), "", "bits read wrong, not split by direction (eye scan)"),
    _c("window_start_ps", pa.float64(), "ps", "first passing capture delay of the data eye"),
    _c("window_end_ps", pa.float64(), "ps", "last passing capture delay of the data eye"),
    _c("window_ps", pa.float64(), "ps", "width of the lane's data eye (end - start)"),
)

COLUMNS: dict[str, pa.DataType] = {c.name: c.type for c in DICTIONARY}
BOOKKEEPING = ("run_id", "unit_idx", "time_utc", "rber_low", "rber_high")
"""Columns the run folder adds to what a step measured (steps never set them)."""

SCHEMA = pa.schema(
    [
        pa.field(c.name, c.type, metadata={"unit": c.unit, "description": c.meaning})
        for c in DICTIONARY
    ],
    metadata={"nandlab.data_dictionary": "docs/data.md"},
)


def check_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """The row as a dict; ValueError naming any column the schema does not know."""
    unknown = set(row) - set(COLUMNS)
    if unknown:
        raise ValueError(f"unknown measurement columns {sorted(unknown)}; known: {list(COLUMNS)}")
    return dict(row)


def _rate_bounds(row: Mapping[str, Any]) -> tuple[float | None, float | None]:
    """The row's Wilson interval, for rows that compared bits and counted errors."""
    bits, e01, e10 = row.get("bits"), row.get("errors_0to1"), row.get("errors_1to0")
    if not bits or e01 is None or e10 is None:
        return None, None
    return Rate(int(e01) + int(e10), int(bits), CONFIDENCE).interval


def rows_to_table(rows: Iterable[Mapping[str, Any]], run_id: str | None = None) -> pa.Table:
    """Tidy rows to an arrow table with the dataset schema (missing columns null); each row
    gets `run_id` and its error rate's confidence interval."""
    rows = list(rows)
    data = {name: [r.get(name) for r in rows] for name in COLUMNS}
    bounds = [_rate_bounds(r) for r in rows]
    data["rber_low"] = [b[0] for b in bounds]
    data["rber_high"] = [b[1] for b in bounds]
    data["time_utc"] = [_timestamp(t) for t in data["time_utc"]]
    if run_id is not None:
        data["run_id"] = [run_id] * len(rows)
    return pa.Table.from_pydict(data, schema=SCHEMA)


def _timestamp(text: str | None) -> datetime | None:
    if text is None:
        return None
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def dictionary_markdown() -> str:
    """The data dictionary as a Markdown table (docs/data.md holds this text)."""
    lines = ["| column | type | unit | meaning |", "|---|---|---|---|"]
    lines += [f"| `{c.name}` | {c.type} | {c.unit or '-'} | {c.meaning} |" for c in DICTIONARY]
    return "\n".join(lines) + "\n"


def json_default(value: Any) -> Any:
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"cannot store {type(value).__name__} in a measurement row")
