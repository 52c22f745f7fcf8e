"""A campaign run's rows in SQLite (WAL): one transaction per measurement unit.

`run.sqlite` holds the units done (key, seed, die checkpoint, chip time)
and their rows; a unit's rows and its "done" mark are committed together,
so a kill at any moment loses at most the unit in flight and never leaves
half a unit. Its `parts` table is the manifest of the Parquet parts written
while the run goes (`dataset.parts`). When the run completes, `finish_dataset` writes
`measurements.parquet` from it (rows in unit order) and returns the file's
checksum for run.json.

Readers (`export`, `report`, `load_run`, `runs`) open the store read-only
(`RunStore(..., readonly=True)`): no journal is created, so they work on an
archived, read-only run folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import tempfile
import urllib.parse
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from nandlab.dataset.columns import (
    PARQUET,
    PARTIAL_REPORT,
    RUN_JSON,
    check_row,
    json_default,
    rows_to_table,
)
from nandlab.dataset.sqlite import open_wal, transaction, utc_now
from nandlab.errors import DamagedFileError, UsageError
from nandlab.paths import file_mode

STORE = "run.sqlite"
SCHEMA = """
CREATE TABLE IF NOT EXISTS units (
    idx INTEGER PRIMARY KEY, key TEXT UNIQUE NOT NULL, seed INTEGER NOT NULL,
    checkpoint TEXT, chip_time_ns INTEGER NOT NULL, wall_s REAL NOT NULL, finished TEXT);
CREATE TABLE IF NOT EXISTS rows (
    unit_idx INTEGER NOT NULL, n INTEGER NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (unit_idx, n));
CREATE TABLE IF NOT EXISTS parts (
    n INTEGER PRIMARY KEY, first_unit INTEGER NOT NULL, last_unit INTEGER NOT NULL,
    rows INTEGER NOT NULL, bytes INTEGER NOT NULL, sha256 TEXT NOT NULL, written TEXT NOT NULL);
"""


@dataclass(frozen=True)
class DoneUnit:
    idx: int
    key: str
    seed: int
    checkpoint: str | None
    chip_time_ns: int
    wall_s: float


@dataclass(frozen=True)
class Part:
    """A Parquet part of a running run (`dataset.parts`): the rows of units
    `first_unit`..`last_unit`, as the manifest in run.sqlite records them."""

    n: int
    first_unit: int
    last_unit: int
    rows: int
    bytes: int
    sha256: str


def _damaged(path: Path, exc: Exception) -> DamagedFileError:
    return DamagedFileError(
        f"{path} is damaged ({exc}): the rows of a complete run are also in "
        f"{PARQUET} (nandlab.dataset.load_run reads it); otherwise restore the run folder "
        "from a backup"
    )


def _open_readonly(path: Path) -> tuple[sqlite3.Connection, Path | None]:
    """Open the store for reading without creating a -wal or -shm file.

    A store closed cleanly has no -wal file: it opens immutable (no locks, no journal). One
    still being written, or left by a kill, has committed rows in its -wal: it opens
    read-only beside it, or, when that needs files the folder cannot take, as a private
    copy (returned as the second value, to delete on close)."""
    if not path.is_file():
        raise UsageError(f"{path.parent} has no {STORE}: it is not a campaign run folder")
    uri = "file:" + urllib.parse.quote(str(path.resolve()))
    wal = path.with_name(path.name + "-wal")
    if not wal.exists():
        return sqlite3.connect(uri + "?immutable=1", uri=True), None
    try:
        db = sqlite3.connect(uri + "?mode=ro", uri=True)
        db.execute("SELECT COUNT(*) FROM units").fetchone()
        return db, None
    except sqlite3.OperationalError:
        copy = Path(tempfile.mkdtemp(prefix="nandlab-store-"))
        shutil.copyfile(path, copy / STORE)
        shutil.copyfile(wal, copy / wal.name)
        return sqlite3.connect(copy / STORE), copy


class RunStore:
    """The SQLite file of one run directory (`readonly`: for readers of a run)."""

    def __init__(self, run_dir: str | Path, *, readonly: bool = False) -> None:
        self.path = Path(run_dir) / STORE
        self._copy: Path | None = None
        try:
            if readonly:
                self._db, self._copy = _open_readonly(self.path)
                self._db.execute("SELECT 1 FROM units, rows LIMIT 1").fetchone()
            else:
                self._db = open_wal(self.path, SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise _damaged(self.path, exc) from None

    def close(self) -> None:
        self._db.close()
        if self._copy is not None:
            shutil.rmtree(self._copy, ignore_errors=True)

    def _tx(self) -> AbstractContextManager[sqlite3.Connection]:
        return transaction(self._db)

    def _select(self, sql: str) -> list[tuple[Any, ...]]:
        """The rows of a query; DamagedFileError naming the file when SQLite finds it damaged."""
        try:
            return self._db.execute(sql).fetchall()
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and (
                "locked" in str(exc) or "I/O" in str(exc)
            ):
                raise  # busy or a failing disk: not damage to the file

            raise _damaged(self.path, exc) from None

    def commit_unit(
        self,
        idx: int,
        key: str,
        seed: int,
        rows: Sequence[Mapping[str, Any]],
        *,
        checkpoint: str | None,
        chip_time_ns: int,
        wall_s: float,
    ) -> None:
        """Store a unit's rows and mark it done, in one transaction."""
        encoded = [json.dumps(check_row(r), default=json_default) for r in rows]
        with self._tx() as db:
            db.executemany(
                "INSERT INTO rows VALUES (?,?,?)", [(idx, n, e) for n, e in enumerate(encoded)]
            )
            db.execute(
                "INSERT INTO units VALUES (?,?,?,?,?,?,?)",
                (idx, key, seed, checkpoint, chip_time_ns, wall_s, utc_now()),
            )

    def done(self) -> dict[str, DoneUnit]:
        """Units committed so far, by key."""
        return {
            k: DoneUnit(i, k, s, c, t, w)
            for i, k, s, c, t, w in self._select(
                "SELECT idx, key, seed, checkpoint, chip_time_ns, wall_s FROM units ORDER BY idx"
            )
        }

    def last_checkpoint(self) -> str | None:
        found = self._select(
            "SELECT checkpoint FROM units WHERE checkpoint IS NOT NULL ORDER BY idx DESC LIMIT 1"
        )
        return str(found[0][0]) if found else None

    def rows(
        self, *, bookkeeping: bool = False, after: int = -1, upto: int | None = None
    ) -> list[dict[str, Any]]:
        """Every row as a step measured it, in unit order then measuring order; with
        `bookkeeping`, also its unit's index and commit time (`unit_idx`, `time_utc`).
        `after` / `upto`: only the rows of units `after` < index <= `upto`."""
        found = self._select(
            "SELECT rows.data, rows.unit_idx, units.finished FROM rows "
            "JOIN units ON units.idx = rows.unit_idx "
            f"WHERE rows.unit_idx > {int(after)}"
            + ("" if upto is None else f" AND rows.unit_idx <= {int(upto)}")
            + " ORDER BY rows.unit_idx, rows.n"
        )
        try:
            return [
                {**json.loads(d), **({"unit_idx": i, "time_utc": t} if bookkeeping else {})}
                for d, i, t in found
            ]
        except ValueError as exc:  # a row that is not JSON
            raise _damaged(self.path, exc) from None

    def last_unit(self) -> int:
        """Index of the last unit committed (-1: none yet)."""
        return int(self._select("SELECT COALESCE(MAX(idx), -1) FROM units")[0][0])

    def parts(self) -> list[Part]:
        """The Parquet parts written so far, in order (a store older than parts has none)."""
        if not self._select("SELECT 1 FROM sqlite_master WHERE type='table' AND name='parts'"):
            return []
        return [
            Part(*r)
            for r in self._select(
                "SELECT n, first_unit, last_unit, rows, bytes, sha256 FROM parts ORDER BY n"
            )
        ]

    def record_part(self, part: Part) -> None:
        """Enter a part (written and renamed into place first) in the manifest, or replace
        the entry of a part rewritten from the store."""
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO parts VALUES (?,?,?,?,?,?,?)",
                (part.n, part.first_unit, part.last_unit, part.rows, part.bytes, part.sha256,
                 utc_now()),
            )

    def row_count(self) -> int:
        return int(self._select("SELECT COUNT(*) FROM rows")[0][0])

    def totals(self) -> tuple[int, int, float]:
        """(units, chip time ns, wall s) of the committed units."""
        ((n, t, w),) = self._select(
            "SELECT COUNT(*), COALESCE(SUM(chip_time_ns), 0), COALESCE(SUM(wall_s), 0) FROM units"
        )
        return int(n), int(t), float(w)


def run_id_of(run_dir: Path) -> str:
    """The run id run.json records (the folder name for a run.json without one)."""
    try:
        meta = json.loads((run_dir / RUN_JSON).read_text())
    except (OSError, ValueError) as exc:
        raise DamagedFileError(f"{run_dir / RUN_JSON} cannot be read: {exc}") from None
    return str(meta.get("run_id") or run_dir.name)


def store_table(run_dir: str | Path) -> pa.Table:
    """Every committed row of a run (complete or not), read from its store read-only."""
    run = Path(run_dir)
    store = RunStore(run, readonly=True)
    try:
        return rows_to_table(store.rows(bookkeeping=True), run_id_of(run))
    finally:
        store.close()


def file_digest(path: Path) -> str:
    """sha256 of a file, hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def finish_dataset(run_dir: str | Path) -> dict[str, Any]:
    """Write measurements.parquet of a completed run from run.sqlite (atomically) and return
    what run.json records of it: file, rows, bytes and sha256. A partial report made while
    the run was unfinished goes: it describes rows the run has outgrown."""
    run = Path(run_dir)
    shutil.rmtree(run / PARTIAL_REPORT, ignore_errors=True)
    table = store_table(run)
    path = run / PARQUET
    write_table_atomic(table, path)
    return {
        "file": PARQUET,
        "rows": table.num_rows,
        "bytes": path.stat().st_size,
        "sha256": file_digest(path),
    }


def write_table_atomic(table: pa.Table, path: Path) -> None:
    """Write a Parquet file through a temp file in its folder, fsync'd, then renamed."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        pq.write_table(table, tmp)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        tmp.chmod(file_mode())
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def verify_dataset(run_dir: Path, meta: Mapping[str, Any]) -> None:
    """Check measurements.parquet of a complete run against the checksum in run.json;
    DamagedFileError naming the file and the fix when it is missing or differs."""
    entry = meta.get("dataset")
    if not isinstance(entry, Mapping):
        return  # a run that has not completed, or one older than the checksums
    path = run_dir / str(entry.get("file", PARQUET))
    fix = (
        f"rebuild it from {STORE} with: nandlab export {run_dir} --rebuild "
        "(the rows of every committed unit are there)"
    )
    if not path.is_file():
        raise DamagedFileError(f"{path} is missing: {fix}")
    if file_digest(path) != entry.get("sha256"):
        raise DamagedFileError(f"{path} is damaged (its sha256 differs from run.json's): {fix}")


def sidecar(path: Path) -> Path:
    """The `<file>.sha256` beside an exported file (sha256sum format)."""
    return path.with_name(path.name + ".sha256")


def check_sidecar(path: Path) -> None:
    """DamagedFileError when `path` has a .sha256 file and its content no longer matches."""
    side = sidecar(path)
    if side.exists() and side.read_text().split(" ", 1)[0] != file_digest(path):
        raise DamagedFileError(
            f"{path} is damaged (its sha256 differs from {side.name}): export it again"
        )
