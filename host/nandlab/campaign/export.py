"""`nandlab export`: a run's measurements as Parquet, CSV or HDF5, in a new file.

An export never writes over the run's own files (measurements.parquet,
run.sqlite, run.json, summaries): by default it goes to
``<run>/export/<run id>.<ext>``. It is written to a temp file, read back
and counted (fewer rows than the run store holds: refused), fsync'd, then
renamed into place; a ``<file>.sha256`` beside it (sha256sum format) lets
`read_export` and ``sha256sum -c`` tell a damaged copy.

HDF5 layout: group ``/measurements`` with one dataset per column (strings
UTF-8, the `offsets` lists as JSON text, `time_utc` as int64 µs since
1970-01-01 UTC), each with the column's ``unit`` and ``description``
attributes and, for a column with nulls, a boolean ``<column>__valid`` mask;
run.json is the ``run_json`` attribute.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from nandlab.campaign.runner import read_meta
from nandlab.dataset.columns import (
    COLUMNS,
    DICTIONARY,
    EXPORTS,
    PARQUET,
    RUN_JSON,
    RUN_LOCK,
    SCHEMA,
    SUMMARY,
)
from nandlab.dataset.parts import PARTS, rebuild_parts, verify_parts
from nandlab.dataset.provenance import run_alive
from nandlab.dataset.store import (
    STORE,
    check_sidecar,
    file_digest,
    finish_dataset,
    run_id_of,
    sidecar,
    store_table,
    verify_dataset,
)
from nandlab.errors import DamagedFileError, UsageError
from nandlab.locks import acquire
from nandlab.paths import file_mode, write_atomic

FORMATS = ("parquet", "csv", "hdf5")
SUFFIX = {"parquet": ".parquet", "csv": ".csv", "hdf5": ".h5"}
_RUN_FILES = (PARQUET, STORE, f"{STORE}-wal", f"{STORE}-shm", RUN_JSON, SUMMARY, "report.md")


@dataclass(frozen=True)
class Exported:
    path: Path
    rows: int
    partial: bool
    """The run was not complete: the file holds the rows committed so far."""


def run_table(run_dir: str | Path) -> pa.Table:
    """Every committed row of a run as a table (the run store, opened read-only)."""
    return store_table(run_dir)


def require_finished(run: Path, meta: Mapping[str, Any], partial: bool) -> bool:
    """Whether the run is unfinished; UsageError for an unfinished run without `partial`
    (its rows are only part of the campaign's)."""
    status = meta.get("status")
    if status == "complete":
        return False
    if partial:
        return True
    if status == "running" and run_alive(run, dict(meta)):
        why = f"is still running (pid {meta.get('pid')} on {meta.get('host')})"
        fix = "wait for it to finish"
    else:
        unit = meta.get("failed_unit")
        why = f"did not finish (status {'killed' if status == 'running' else status}" + (
            f", stopped at unit {unit})" if unit else ")"
        )
        fix = f"finish it with: nandlab resume {run}"
    raise UsageError(
        f"run {run} {why}: its rows are only part of the campaign's. {fix}, or give "
        "--partial to use the rows committed so far"
    )


def export(
    run_dir: str | Path, fmt: str, out: str | Path | None = None, *, partial: bool = False
) -> Exported:
    """Write the run's rows in `fmt` to a new file `out` (default:
    <run>/export/<run id>.<ext>); see the module doc for what it refuses."""
    run = Path(run_dir)
    if fmt not in FORMATS:
        raise UsageError(f"format '{fmt}' is unknown: use one of {', '.join(FORMATS)}")
    meta = read_meta(run)
    unfinished = require_finished(run, meta, partial)
    verify_dataset(run, meta)
    if unfinished:
        verify_parts(run)
    if out is None and not os.access(run, os.W_OK):
        raise UsageError(f"run folder {run} is read-only: give --out FILE for the export")
    path = Path(out) if out is not None else run / EXPORTS / f"{run_id_of(run)}{SUFFIX[fmt]}"
    _check_target(run, path)
    table = store_table(run)
    _check_not_shrunk(run, meta, table.num_rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.tmp{path.suffix}")
    try:
        if fmt == "parquet":
            pq.write_table(table, tmp)
        elif fmt == "csv":
            pacsv.write_csv(_flat(table), tmp)
        else:
            _write_hdf5(table, tmp, (run / RUN_JSON).read_text())
        written = read_export(tmp).num_rows
        if written != table.num_rows:
            raise DamagedFileError(
                f"{tmp} read back {written} rows of {table.num_rows}: nothing was exported"
            )
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        tmp.chmod(file_mode())
        digest = file_digest(tmp)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    write_atomic(sidecar(path), f"{digest}  {path.name}\n".encode())
    return Exported(path, table.num_rows, unfinished)


def rebuild(run_dir: str | Path) -> Path:
    """Rewrite from run.sqlite a complete run's measurements.parquet and its checksum in
    run.json, or an unfinished run's missing or damaged Parquet parts and their manifest
    entries (after a reader found one so); the file, or the folder of the parts."""
    run = Path(run_dir)
    with acquire(run / RUN_LOCK, f"run folder {run}", run=run.name):  # no resume meanwhile
        meta = read_meta(run)
        if meta.get("status") != "complete":
            rebuild_parts(run)
            return run / PARTS
        _check_not_shrunk(run, meta, store_table(run).num_rows)
        meta["dataset"] = finish_dataset(run)
        write_atomic(run / RUN_JSON, (json.dumps(meta, indent=2, default=str) + "\n").encode())
    return run / PARQUET


def _check_target(run: Path, path: Path) -> None:
    if path.resolve().parent == run.resolve() and path.name in _RUN_FILES:
        raise UsageError(f"{path} is one of the run's own files: export never writes over it")
    if path.exists() and not sidecar(path).exists():
        raise UsageError(
            f"{path} exists and is not a nandlab export: choose another --out, or remove it"
        )


def _check_not_shrunk(run: Path, meta: Mapping[str, Any], rows: int) -> None:
    entry = meta.get("dataset")
    had = int(entry.get("rows", 0)) if isinstance(entry, Mapping) else 0
    if rows < had:
        raise DamagedFileError(
            f"{run / STORE} holds {rows} rows, but the run completed with {had}: it was "
            f"damaged or replaced; the rows are in {run / PARQUET}"
        )


def _flat(table: pa.Table) -> pa.Table:
    """Lists as JSON text (CSV has no lists)."""
    offsets = [None if v is None else json.dumps(v) for v in table.column("offsets").to_pylist()]
    i = table.schema.get_field_index("offsets")
    return table.set_column(i, "offsets", pa.array(offsets, pa.string()))


def _write_hdf5(table: pa.Table, path: Path, run_json: str) -> None:
    import h5py

    flat = _flat(table)
    meaning = {c.name: c for c in DICTIONARY}
    with h5py.File(path, "w") as f:
        f.attrs["run_json"] = run_json
        g = f.create_group("measurements")
        for name in flat.column_names:
            col = flat.column(name)
            typ = flat.schema.field(name).type
            if pa.types.is_timestamp(typ):
                col = col.cast(pa.int64())
            values = col.to_pylist()
            valid = np.array([v is not None for v in values], dtype=bool)
            if pa.types.is_string(typ):
                data = np.array(["" if v is None else v for v in values], dtype=object)
                ds = g.create_dataset(name, data=data, dtype=h5py.string_dtype())
            elif pa.types.is_boolean(typ):
                ds = g.create_dataset(name, data=np.array([bool(v) for v in values], dtype=bool))
            elif pa.types.is_floating(typ):
                ds = g.create_dataset(
                    name,
                    data=np.array([np.nan if v is None else v for v in values], dtype=np.float64),
                )
            else:
                dtype = np.int64 if pa.types.is_timestamp(typ) else typ.to_pandas_dtype()
                ds = g.create_dataset(
                    name, data=np.array([0 if v is None else v for v in values], dtype=dtype)
                )
            ds.attrs["unit"] = meaning[name].unit
            ds.attrs["description"] = meaning[name].meaning
            if not valid.all():
                g.create_dataset(f"{name}__valid", data=valid)


def read_export(path: str | Path) -> pa.Table:
    """Read an exported file back into a table with the dataset schema; DamagedFileError when
    its .sha256 file says the content changed."""
    p = Path(path)
    check_sidecar(p)
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
    flat = pa.table(
        {
            n: pa.array(v, pa.string() if n == "offsets" else _stored_type(COLUMNS[n]))
            for n, v in cols.items()
        }
    )
    return _unflat(flat)


def _stored_type(typ: pa.DataType) -> pa.DataType:
    return pa.int64() if pa.types.is_timestamp(typ) else typ


def _unflat(table: pa.Table) -> pa.Table:
    offsets = [None if v is None else json.loads(v) for v in table.column("offsets").to_pylist()]
    i = table.schema.get_field_index("offsets")
    table = table.set_column(i, "offsets", pa.array(offsets, COLUMNS["offsets"]))
    return table.select(list(COLUMNS)).cast(SCHEMA)


__all__ = ["FORMATS", "Exported", "export", "read_export", "rebuild", "run_table"]
