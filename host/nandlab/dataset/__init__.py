"""Datasets (contract 4): one folder per run.

`run.json` (what was run, on which bench, by which software), `run.sqlite`
(the run store that makes a run resumable: committed units and their rows),
`measurements.parquet` (the rows, checksum in run.json), `summary.md`,
`plots/` and `export/`. `columns` holds the data dictionary and the file
names, `store` the run store, `load` the readers (`load_run`), `summary` /
`plots` the shared tables and figures. docs/data.md describes the format.
"""

from nandlab.dataset.columns import COLUMNS, DICTIONARY, SCHEMA, rows_to_table
from nandlab.dataset.load import load_run, run_arrow

__all__ = ["COLUMNS", "DICTIONARY", "SCHEMA", "load_run", "rows_to_table", "run_arrow"]
