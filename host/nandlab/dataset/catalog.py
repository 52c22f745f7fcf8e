"""The runs of a data folder: a catalogue, and SQL over their rows with DuckDB.

    for run in catalog("runs"):
        print(run.run_id, run.status, run.rows)
    table = query("runs", "SELECT run_id, pec, SUM(bits) FROM rows GROUP BY ALL")

`query` sees two tables: `rows`, every committed row of every run (complete
runs: their measurements.parquet; unfinished ones: their Parquet parts and the
rows committed after the last part; checksums verified first; columns as in
the data dictionary, `run_id` naming the run), and `runs`, the catalogue
(`status` tells a complete run from an unfinished one).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from nandlab.dataset.columns import PARQUET, RUN_JSON, SCHEMA
from nandlab.dataset.parts import committed_sources
from nandlab.dataset.provenance import run_alive
from nandlab.dataset.store import RunStore, verify_dataset
from nandlab.errors import DamagedFileError, NandlabError, UsageError


@dataclass(frozen=True)
class RunEntry:
    """One run of the catalogue. `status` is run.json's, except "killed" for a run that
    says "running" but whose process is gone (`nandlab resume` finishes it)."""

    run_id: str
    folder: str
    start_utc: str | None
    campaign: str | None
    profile: str | None
    chips: str
    status: str
    rows: int | None
    """Rows committed (None when the run store cannot be read)."""


def run_entry(folder: Path) -> RunEntry:
    """The catalogue entry of one run folder, as `catalog` lists it (the dashboard follows
    one run without scanning the whole data folder)."""
    try:
        meta = json.loads((folder / RUN_JSON).read_text())
        if not isinstance(meta, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError):
        return RunEntry(folder.name, str(folder), None, None, None, "", "unreadable run.json", None)
    status = str(meta.get("status"))
    if status == "running" and not run_alive(folder, meta):
        status = "killed"
    dataset = meta.get("dataset")
    rows: int | None
    if status == "complete" and isinstance(dataset, dict):
        rows = int(dataset.get("rows", 0))
    elif status == "complete" and (folder / PARQUET).is_file():  # a run older than checksums
        rows = pq.ParquetFile(folder / PARQUET).metadata.num_rows
    else:
        try:
            store = RunStore(folder, readonly=True)
        except NandlabError:
            rows = None
        else:
            try:
                rows = store.row_count()
            finally:
                store.close()
    chips = meta.get("chips") or []
    return RunEntry(
        str(meta.get("run_id") or folder.name),
        str(folder),
        meta.get("start_utc"),
        meta.get("campaign"),
        meta.get("profile"),
        ",".join(str(c.get("unique_id")) for c in chips if isinstance(c, dict)),
        status,
        rows,
    )


def catalog(data: str | Path) -> list[RunEntry]:
    """The run folders directly under `data`, oldest first."""
    root = Path(data)
    if not root.is_dir():
        raise UsageError(f"{root} is not a folder of runs")
    entries = [run_entry(p) for p in root.iterdir() if (p / RUN_JSON).is_file()]
    return sorted(entries, key=lambda e: (e.start_utc or "", e.run_id))


def _sources(runs: list[RunEntry]) -> tuple[list[str], pa.Table]:
    """The Parquet files of the runs' rows (checksums verified) and the rows committed after
    the last part of the unfinished runs."""
    files: list[str] = []
    tails = [SCHEMA.empty_table()]
    for entry in runs:
        folder = Path(entry.folder)
        if entry.status != "complete" and entry.rows is not None:
            # unfinished: its parts and the rows committed after them (docs/data.md)
            try:
                parts, tail = committed_sources(folder)
            except DamagedFileError:
                entry = run_entry(folder)  # it may have completed, its parts removed
                if entry.status != "complete":
                    raise
            else:
                files += [str(f) for f in parts]
                tails.append(tail)
        if entry.status == "complete" and (folder / PARQUET).is_file():
            verify_dataset(folder, json.loads((folder / RUN_JSON).read_text()))
            files.append(str(folder / PARQUET))
    return files, pa.concat_tables(tails)


def query(data: str | Path, sql: str) -> pa.Table:
    """Run `sql` (DuckDB) over the runs under `data`: tables `rows` and `runs`."""
    runs = catalog(data)
    files, tail = _sources(runs)
    try:
        return _duckdb(sql, runs, files, tail)
    except UsageError:
        if all(Path(f).is_file() for f in files):
            raise
    runs = catalog(data)  # a run completed meanwhile and removed its parts: list again
    return _duckdb(sql, runs, *_sources(runs))


def _duckdb(sql: str, runs: list[RunEntry], files: list[str], tail: pa.Table) -> pa.Table:
    import duckdb

    con = duckdb.connect()
    try:
        con.register("committed_tail", tail)
        view = "SELECT * FROM committed_tail"
        if files:
            listed = ", ".join("'" + f.replace("'", "''") + "'" for f in files)
            view = (
                f"SELECT * FROM read_parquet([{listed}], union_by_name = true) "
                f"UNION ALL BY NAME {view}"
            )
        con.execute(f"CREATE VIEW rows AS {view}")
        catalogue = pa.Table.from_pylist([asdict(e) for e in runs]) if runs else pa.table(
            {"run_id": pa.array([], pa.string())}
        )
        con.register("runs", catalogue)
        result = con.sql(sql)
        return pa.table({}) if result is None else result.to_arrow_table()
    except duckdb.Error as exc:
        raise UsageError(f"query failed: {exc}") from None
    finally:
        con.close()
