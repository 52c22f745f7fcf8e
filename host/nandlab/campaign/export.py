"""`nandlab export`: a run's measurements as Parquet, CSV or HDF5.

HDF5 layout: group ``/measurements`` with one dataset per column (strings
UTF-8, the `offsets` lists as JSON text) and, for a column with nulls, a
boolean ``<column>__valid`` mask; run.json is the ``run_json`` attribute.
`read_export` reads any of the three back into an arrow table.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from nandlab.dataset.columns import COLUMNS, RUN_JSON, SCHEMA, rows_to_table
from nandlab.dataset.store import RunStore
from nandlab.errors import UsageError
from nandlab.paths import write_atomic

FORMATS = ("parquet", "csv", "hdf5")
SUFFIX = {"parquet": ".parquet", "csv": ".csv", "hdf5": ".h5"}


def run_table(run_dir: str | Path) -> pa.Table:
    store = RunStore(Path(run_dir))
    try:
        return rows_to_table(store.rows())
    finally:
        store.close()


def export(run_dir: str | Path, fmt: str, out: str | Path | None = None) -> Path:
    """Write the run's rows in `fmt` to `out` (default: <run>/measurements.<ext>)."""
    run = Path(run_dir)
    if not (run / RUN_JSON).exists():
        raise UsageError(f"{run} is not a run directory (no {RUN_JSON})")
    if fmt not in FORMATS:
        raise UsageError(f"format '{fmt}' is unknown: use one of {', '.join(FORMATS)}")
    path = Path(out) if out is not None else run / f"measurements{SUFFIX[fmt]}"
    table = run_table(run)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        if fmt == "parquet":
            pq.write_table(table, tmp)
        elif fmt == "csv":
            pacsv.write_csv(_flat(table), tmp)
        else:
            _write_hdf5(table, tmp, (run / RUN_JSON).read_text())
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def _flat(table: pa.Table) -> pa.Table:
    """Lists as JSON text (CSV has no lists)."""
    offsets = [None if v is None else json.dumps(v) for v in table.column("offsets").to_pylist()]
    i = table.schema.get_field_index("offsets")
    return table.set_column(i, "offsets", pa.array(offsets, pa.string()))


def _write_hdf5(table: pa.Table, path: Path, run_json: str) -> None:
    import h5py

    flat = _flat(table)
    with h5py.File(path, "w") as f:
        f.attrs["run_json"] = run_json
        g = f.create_group("measurements")
        for name in flat.column_names:
            col = flat.column(name)
            values = col.to_pylist()
            valid = np.array([v is not None for v in values], dtype=bool)
            typ = flat.schema.field(name).type
            if pa.types.is_string(typ):
                data = np.array(["" if v is None else v for v in values], dtype=object)
                g.create_dataset(name, data=data, dtype=h5py.string_dtype())
            elif pa.types.is_boolean(typ):
                g.create_dataset(name, data=np.array([bool(v) for v in values], dtype=bool))
            elif pa.types.is_floating(typ):
                g.create_dataset(
                    name,
                    data=np.array([np.nan if v is None else v for v in values], dtype=np.float64),
                )
            else:
                g.create_dataset(
                    name,
                    data=np.array(
                        [0 if v is None else v for v in values], dtype=typ.to_pandas_dtype()
                    ),
                )
            if not valid.all():
                g.create_dataset(f"{name}__valid", data=valid)


def read_export(path: str | Path) -> pa.Table:
    """Read an exported file back into a table with the dataset schema."""
    p = Path(path)
    if p.suffix == ".parquet":
        return pq.read_table(p)
    if p.suffix == ".csv":
        opts = pacsv.ConvertOptions(
            column_types={n: (pa.string() if n == "offsets" else t) for n, t in COLUMNS.items()},
            strings_can_be_null=True,
        )
        return _unflat(pacsv.read_csv(p, convert_options=opts))
    import h5py

    cols: dict[str, list[object]] = {}
    with h5py.File(p, "r") as f:
        g = f["measurements"]
        for name in COLUMNS:
            raw = g[name][()]
            values = [v.decode() if isinstance(v, bytes) else v.item() for v in raw]
            if f"{name}__valid" in g:
                values = [
                    v if ok else None for v, ok in zip(values, g[f"{name}__valid"][()], strict=True)
                ]
            cols[name] = values
    cols["offsets"] = [None if v is None else v for v in cols["offsets"]]
    flat = pa.table(
        {n: pa.array(v, pa.string() if n == "offsets" else COLUMNS[n]) for n, v in cols.items()}
    )
    return _unflat(flat)


def _unflat(table: pa.Table) -> pa.Table:
    offsets = [None if v is None else json.loads(v) for v in table.column("offsets").to_pylist()]
    i = table.schema.get_field_index("offsets")
    table = table.set_column(i, "offsets", pa.array(offsets, COLUMNS["offsets"]))
    return table.select(list(COLUMNS)).cast(SCHEMA)


__all__ = ["FORMATS", "export", "read_export", "run_table", "write_atomic"]
