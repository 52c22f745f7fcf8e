"""Parquet parts of a run that is still going: its committed rows, readable before it ends.

While a campaign runs, the rows of its committed units are also written to
`parts/part-NNNNNN.parquet`, each part holding the units after the previous
part's last one. The rule keeps parts few: a part is written once
`PART_EVERY_S` seconds have passed since the last one or `PART_ROWS` rows are
waiting, whichever comes first (a week-long run makes about 2,000 parts at
most), and when a run stops (bench fault, Ctrl-C). On completion the run's one
`measurements.parquet` replaces them and `parts/` is removed.

A part is written only after its units are committed to run.sqlite, through a
temp file that is fsync'd and renamed (then the folder fsync'd), and only then
entered with its sha256 in the manifest (the `parts` table of run.sqlite). A
kill at any moment therefore leaves every manifest entry whole; a file the
manifest does not name (killed between the rename and the entry) is removed
when the run resumes, and its units go into the next part under the same
number. Committed units are never measured again, so no row is ever in two
parts; rows committed after the last part are read from run.sqlite, so readers
(`committed_table`, `nandlab query`) see every committed row.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from nandlab.dataset.columns import rows_to_table
from nandlab.dataset.store import (
    STORE,
    Part,
    RunStore,
    file_digest,
    run_id_of,
    write_table_atomic,
)
from nandlab.errors import DamagedFileError

PARTS = "parts"
PART_EVERY_S = 300.0
"""Seconds between parts of a running run (12 an hour)."""
PART_ROWS = 200_000
"""Rows waiting that make a part before `PART_EVERY_S` (a part of a few MB)."""


def part_path(run_dir: Path, n: int) -> Path:
    return run_dir / PARTS / f"part-{n:06d}.parquet"


def _fsync_dir(folder: Path) -> None:
    """Make a rename in `folder` durable before the manifest names the file."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_part(run_dir: Path, store: RunStore, n: int, first: int, last: int) -> Part:
    """Write part `n` (rows of units `first`..`last`) from the store and enter it."""
    rows = store.rows(bookkeeping=True, after=first - 1, upto=last)
    table = rows_to_table(rows, run_id_of(run_dir))
    path = part_path(run_dir, n)
    path.parent.mkdir(exist_ok=True)
    write_table_atomic(table, path)
    _fsync_dir(path.parent)
    part = Part(n, first, last, table.num_rows, path.stat().st_size, file_digest(path))
    store.record_part(part)
    return part


class PartWriter:
    """Writes the parts of the run whose store it is given (the process holding the run)."""

    def __init__(self, run_dir: Path, store: RunStore) -> None:
        self.run_dir = run_dir
        self.store = store
        parts = store.parts()
        self.next_n = parts[-1].n + 1 if parts else 0
        self.last_unit = parts[-1].last_unit if parts else -1
        self.pending_rows = 0
        self.since = time.monotonic()
        named = {part_path(run_dir, p.n).name for p in parts}
        folder = run_dir / PARTS
        if folder.is_dir():  # left by a kill: a part not yet entered, a temp file
            for f in folder.iterdir():
                if f.name not in named:
                    f.unlink()

    def committed(self, rows: int) -> None:
        """A unit of `rows` rows was committed: write a part when one is due."""
        self.pending_rows += rows
        due = time.monotonic() - self.since >= PART_EVERY_S or self.pending_rows >= PART_ROWS
        if due:
            self.flush()

    def flush(self) -> Part | None:
        """Write the rows committed since the last part as a part (none: nothing waits)."""
        last = self.store.last_unit()
        self.since = time.monotonic()
        if last <= self.last_unit:
            return None
        part = write_part(self.run_dir, self.store, self.next_n, self.last_unit + 1, last)
        self.next_n += 1
        self.last_unit = last
        self.pending_rows = 0
        return part


def _fix(run_dir: Path) -> str:
    return (
        f"rewrite it from {STORE} with: nandlab export {run_dir} --rebuild "
        "(the rows of every committed unit are there)"
    )


def check_part(run_dir: Path, part: Part) -> Path:
    """The part's file; DamagedFileError naming it and the fix when missing or altered."""
    path = part_path(run_dir, part.n)
    if not path.is_file():
        raise DamagedFileError(f"{path} is missing: {_fix(run_dir)}")
    if file_digest(path) != part.sha256:
        raise DamagedFileError(
            f"{path} is damaged (its sha256 differs from the manifest in {STORE}): "
            f"{_fix(run_dir)}"
        )
    return path


def verify_parts(run_dir: Path) -> None:
    """Check every part of an unfinished run against the manifest (DamagedFileError)."""
    store = RunStore(run_dir, readonly=True)
    try:
        parts = store.parts()
    finally:
        store.close()
    for part in parts:
        check_part(run_dir, part)


def committed_sources(run_dir: Path) -> tuple[list[Path], pa.Table]:
    """An unfinished run's committed rows: its verified part files, and the rows committed
    after the last part (read from the store, as a table with the dataset schema)."""
    store = RunStore(run_dir, readonly=True)
    try:
        parts = store.parts()
        last = parts[-1].last_unit if parts else -1
        tail = rows_to_table(store.rows(bookkeeping=True, after=last), run_id_of(run_dir))
    finally:
        store.close()
    return [check_part(run_dir, p) for p in parts], tail


def committed_table(run_dir: Path) -> pa.Table:
    """Every committed row of an unfinished run: its parts, then the rows after them."""
    files, tail = committed_sources(run_dir)
    tables = [pq.read_table(f).cast(tail.schema) for f in files]
    return pa.concat_tables([*tables, tail])


def rebuild_parts(run_dir: Path) -> list[Path]:
    """Rewrite, from the store, every part that is missing or damaged (the run held by the
    caller); the paths rewritten."""
    store = RunStore(run_dir)
    rewritten = []
    try:
        for part in store.parts():
            try:
                check_part(run_dir, part)
            except DamagedFileError:
                write_part(run_dir, store, part.n, part.first_unit, part.last_unit)
                rewritten.append(part_path(run_dir, part.n))
    finally:
        store.close()
    return rewritten


def drop_parts(run_dir: Path) -> None:
    """Remove the parts of a run whose run.json says complete (measurements.parquet holds
    every row)."""
    shutil.rmtree(run_dir / PARTS, ignore_errors=True)
