"""Datasets (contract 4): one folder per run.

`run.json` (what was run, on which bench), `run.sqlite` (the run store that
makes a run resumable: committed units and their rows), `measurements.parquet`
(the rows), `summary.md` and `plots/`. `columns` holds the row schema and the
file names, `store` the run store, `summary` / `plots` the shared tables and
figures.
"""

from nandlab.dataset.columns import COLUMNS, SCHEMA, rows_to_table

__all__ = ["COLUMNS", "SCHEMA", "rows_to_table"]
