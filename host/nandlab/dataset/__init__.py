"""Datasets (contract 4): one directory per run.

`run.json` (what was run), `measurements.parquet` (tidy rows),
`measurements.jsonl` (the crash-safe journal the parquet is rebuilt from),
`summary.md` and `plots/`.
"""

from nandlab.dataset.writer import (
    COLUMNS,
    RunWriter,
    new_run_dir,
    read_journal,
    read_measurements,
)

__all__ = ["COLUMNS", "RunWriter", "new_run_dir", "read_journal", "read_measurements"]
