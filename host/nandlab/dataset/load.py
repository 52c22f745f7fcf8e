"""`load_run`: a run's measurement rows as a pandas DataFrame.

    from nandlab.dataset import load_run
    df = load_run("runs/demo-20261125T151622Z")
    df.groupby("pec")[["errors_0to1", "errors_1to0", "bits"]].sum()

Columns keep their arrow types (pandas ArrowDtype): integer columns with
gaps stay integers (a 64-bit seed keeps every digit), lists stay lists,
`time_utc` is a UTC timestamp. Each column's unit and meaning are in
`df.attrs["units"]` / `df.attrs["descriptions"]` (the data dictionary).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from nandlab.dataset.columns import DICTIONARY, PARQUET, RUN_JSON, SCHEMA
from nandlab.dataset.parts import committed_table
from nandlab.dataset.store import check_sidecar, store_table, verify_dataset
from nandlab.errors import DamagedFileError, UsageError

if TYPE_CHECKING:
    import pandas as pd


def run_arrow(path: str | Path) -> pa.Table:
    """The rows of a run folder (complete: its verified measurements.parquet; unfinished:
    the rows committed so far, from its verified Parquet parts and, for the units committed
    after the last part, its store) or of a Parquet file nandlab wrote."""
    p = Path(path)
    if p.is_file():
        check_sidecar(p)
        return conform(pq.read_table(p))
    if not (p / RUN_JSON).is_file():
        raise UsageError(f"{p} is neither a run folder (no {RUN_JSON}) nor a Parquet file")
    meta = _meta(p)
    if meta.get("status") == "complete" and (p / PARQUET).is_file():
        return _complete(p, meta)
    verify_dataset(p, meta)  # a complete run whose measurements.parquet went missing
    if meta.get("status") == "complete":
        return store_table(p)
    try:
        return committed_table(p)
    except DamagedFileError:
        # the run may have completed meanwhile (its parts removed once run.json said so)
        now = _meta(p)
        if now.get("status") == "complete" and (p / PARQUET).is_file():
            return _complete(p, now)
        raise


def _meta(run: Path) -> dict[str, Any]:
    try:
        return dict(json.loads((run / RUN_JSON).read_text()))
    except (OSError, ValueError) as exc:
        raise DamagedFileError(f"{run / RUN_JSON} cannot be read: {exc}") from None


def _complete(run: Path, meta: dict[str, Any]) -> pa.Table:
    """A complete run's verified measurements.parquet."""
    verify_dataset(run, meta)
    table = conform(pq.read_table(run / PARQUET))
    if table.column("run_id").null_count == table.num_rows:  # written before run_id
        run_id = pa.array([str(meta.get("run_id") or run.name)] * table.num_rows)
        table = table.set_column(0, table.schema.field(0), run_id)
    return table


def conform(table: pa.Table) -> pa.Table:
    """The table with every dictionary column, in dictionary order (a run written before a
    column existed gets it as nulls); columns the dictionary does not know stay, last."""
    n = table.num_rows
    columns = [
        table.column(f.name).cast(f.type) if f.name in table.column_names
        else pa.nulls(n, f.type)
        for f in SCHEMA
    ]
    extra = [c for c in table.column_names if c not in SCHEMA.names]
    return pa.Table.from_arrays(
        columns + [table.column(c) for c in extra],
        schema=pa.schema(list(SCHEMA) + [table.schema.field(c) for c in extra],
                         metadata=SCHEMA.metadata),
    )


def load_run(path: str | Path) -> pd.DataFrame:
    """The run's rows (see `run_arrow`) as a DataFrame with pyarrow-backed dtypes."""
    import pandas as pd

    df = run_arrow(path).to_pandas(types_mapper=pd.ArrowDtype)
    df.attrs["units"] = {c.name: c.unit for c in DICTIONARY}
    df.attrs["descriptions"] = {c.name: c.meaning for c in DICTIONARY}
    return df
