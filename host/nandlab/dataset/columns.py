"""The run folder's file names and the schema of its measurement rows (contract 4).

A run folder holds `run.json` (what was run, on which bench), `run.sqlite`
(the run store: committed units and their rows, what makes a run resumable;
`nandlab.dataset.store`), `measurements.parquet` (the rows, rewritten from the
store as units commit), `summary.md` and `plots/`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa

RUN_JSON = "run.json"
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


def check_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """The row as a dict; ValueError naming any column the schema does not know."""
    unknown = set(row) - set(COLUMNS)
    if unknown:
        raise ValueError(f"unknown measurement columns {sorted(unknown)}; known: {list(COLUMNS)}")
    return dict(row)


def rows_to_table(rows: Iterable[Mapping[str, Any]]) -> pa.Table:
    """Tidy rows to an arrow table with the dataset schema (missing columns null)."""
    rows = list(rows)
    return pa.Table.from_pydict(
        {name: [r.get(name) for r in rows] for name in COLUMNS}, schema=SCHEMA
    )


def json_default(value: Any) -> Any:
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"cannot store {type(value).__name__} in a measurement row")
