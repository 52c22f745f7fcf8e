"""Datasets (contract 4): one folder per run.

`run.json` (what was run, on which bench, by which software), `run.sqlite`
(the run store that makes a run resumable: committed units and their rows),
`parts/` (Parquet parts of the committed rows while the run goes),
`measurements.parquet` (the rows, checksum in run.json), `summary.md`,
`plots/` and `export/`. `columns` holds the data dictionary and the file
names, `store` the run store, `parts` the parts, `load` the readers
(`load_run`), `summary` /
`plots` the shared tables and figures. docs/data.md describes the format.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nandlab.dataset.columns import COLUMNS, DICTIONARY, SCHEMA, rows_to_table
    from nandlab.dataset.load import load_run, run_arrow

__all__ = ["COLUMNS", "DICTIONARY", "SCHEMA", "load_run", "rows_to_table", "run_arrow"]

# Imported on first use: they bring pyarrow, which a module of the package that does
# not need it (sqlite, used by the ledger that `nandlab info` writes) must not load.
_HOME = {
    "COLUMNS": "columns", "DICTIONARY": "columns", "SCHEMA": "columns",
    "rows_to_table": "columns", "load_run": "load", "run_arrow": "load",
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
