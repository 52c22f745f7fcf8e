"""SQLite files that survive a kill: WAL journal, full sync, one explicit transaction a write."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path


def utc_now() -> str:
    """Current UTC time, ISO 8601 with a Z suffix (the time stamps of the run store, the
    ledger and run.json; here, not in `columns`, so the ledger loads without pyarrow)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def open_wal(path: Path, schema: str) -> sqlite3.Connection:
    """Open (or create) `path` in WAL mode with synchronous=FULL and make `schema`'s tables."""
    db = sqlite3.connect(path, timeout=30, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.executescript(schema)
    return db


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT, rolled back when the block raises."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
