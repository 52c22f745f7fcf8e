"""A campaign run's rows in SQLite (WAL): one transaction per measurement unit.

`run.sqlite` holds the units done (key, seed, die checkpoint, chip time)
and their rows; a unit's rows and its "done" mark are committed together,
so a kill at any moment loses at most the unit in flight and never leaves
half a unit. `measurements.parquet` is written from it (rows in unit order).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from nandlab.dataset.columns import PARQUET, check_row, json_default, rows_to_table, utc_now
from nandlab.dataset.sqlite import open_wal, transaction

STORE = "run.sqlite"
SCHEMA = """
CREATE TABLE IF NOT EXISTS units (
    idx INTEGER PRIMARY KEY, key TEXT UNIQUE NOT NULL, seed INTEGER NOT NULL,
    checkpoint TEXT, chip_time_ns INTEGER NOT NULL, wall_s REAL NOT NULL, finished TEXT);
CREATE TABLE IF NOT EXISTS rows (
    unit_idx INTEGER NOT NULL, n INTEGER NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (unit_idx, n));
"""


@dataclass(frozen=True)
class DoneUnit:
    idx: int
    key: str
    seed: int
    checkpoint: str | None
    chip_time_ns: int
    wall_s: float


class RunStore:
    """The SQLite file of one run directory."""

    def __init__(self, run_dir: str | Path) -> None:
        self.path = Path(run_dir) / STORE
        self._db = open_wal(self.path, SCHEMA)

    def close(self) -> None:
        self._db.close()

    def _tx(self) -> AbstractContextManager[sqlite3.Connection]:
        return transaction(self._db)

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
            for i, k, s, c, t, w in self._db.execute(
                "SELECT idx, key, seed, checkpoint, chip_time_ns, wall_s FROM units ORDER BY idx"
            )
        }

    def last_checkpoint(self) -> str | None:
        row = self._db.execute(
            "SELECT checkpoint FROM units WHERE checkpoint IS NOT NULL ORDER BY idx DESC LIMIT 1"
        ).fetchone()
        return None if row is None else str(row[0])

    def rows(self) -> list[dict[str, Any]]:
        """Every row, in unit order then measuring order."""
        return [
            json.loads(d) for (d,) in self._db.execute("SELECT data FROM rows ORDER BY unit_idx, n")
        ]

    def totals(self) -> tuple[int, int, float]:
        """(units, chip time ns, wall s) of the committed units."""
        n, t, w = self._db.execute(
            "SELECT COUNT(*), COALESCE(SUM(chip_time_ns), 0), COALESCE(SUM(wall_s), 0) FROM units"
        ).fetchone()
        return int(n), int(t), float(w)


def write_parquet(run_dir: str | Path) -> Path:
    """(Re)write measurements.parquet from run.sqlite atomically."""
    run = Path(run_dir)
    store = RunStore(run)
    try:
        table = rows_to_table(store.rows())
    finally:
        store.close()
    tmp = run / f".{PARQUET}.tmp"
    pq.write_table(table, tmp)
    tmp.replace(run / PARQUET)
    return run / PARQUET
