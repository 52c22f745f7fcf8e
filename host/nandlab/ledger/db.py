"""Ledger storage: one SQLite file, `<data dir>/ledger.sqlite`, in WAL mode.

Wear is stored as events, one per (chip, run, unit, kind, block): writing an
event again (a resumed run repeating an interrupted unit) replaces it, so the
ledger counts every unit once. A block's P/E count is the sum of its events
since the chip's last reset (a virtual die started fresh).

The file is checked when it is opened (`PRAGMA quick_check`): a damaged ledger
is reported with its path and what to do, never recreated silently, because it
is the only record of real chips' wear. Its layout carries a version
(`PRAGMA user_version`); before a layout change the file is copied aside.

SQLite cannot tell a lost file, or a WAL dropped after a crash (its frames fail their
checksum), from a ledger that never had those events. So every write also stamps
`ledger.seal` beside it with the event counter reached; a ledger found missing, or behind
its seal, is reported as damaged instead of read as an emptier history.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from nandlab.dataset.sqlite import transaction, utc_now
from nandlab.errors import DamagedFileError, ReadOnlyDataError
from nandlab.onfi.bbt import BadBlockTable
from nandlab.onfi.wear import BlockCycles
from nandlab.paths import data_root, write_atomic

LEDGER_FILE = "ledger.sqlite"
SEAL_FILE = "ledger.seal"
SCHEMA_VERSION = 1
"""Layout of the tables below. 0: files written before the ledger had a version (same
tables); opening one stamps it after a backup copy."""
SCHEMA = """
CREATE TABLE IF NOT EXISTS chips (
    chip TEXT PRIMARY KEY, profile TEXT, virtual INTEGER, bench_url TEXT,
    first_seen TEXT, last_seen TEXT);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    chip TEXT NOT NULL, run_id TEXT NOT NULL, unit TEXT NOT NULL, kind TEXT NOT NULL,
    block INTEGER NOT NULL, pec_delta INTEGER NOT NULL DEFAULT 0, fast_forwarded INTEGER,
    detail TEXT, time TEXT,
    UNIQUE (chip, run_id, unit, kind, block));
CREATE TABLE IF NOT EXISTS bad_blocks (
    chip TEXT NOT NULL, block INTEGER NOT NULL, reason TEXT, run_id TEXT, time TEXT,
    PRIMARY KEY (chip, block));
CREATE TABLE IF NOT EXISTS runs (
    chip TEXT NOT NULL, run_id TEXT NOT NULL, campaign TEXT, run_dir TEXT,
    started TEXT, finished TEXT, status TEXT,
    PRIMARY KEY (chip, run_id));
"""


def ledger_path(root: Path | None = None) -> Path:
    """`<data dir>/ledger.sqlite` ($NANDLAB_DATA_DIR or the user data dir)."""
    return data_root(root) / LEDGER_FILE


def _damaged(path: Path, what: str) -> DamagedFileError:
    return DamagedFileError(
        f"the chip ledger {path} is damaged ({what}). It holds the wear history of every "
        "chip: restore it from a backup copy (a ledger-v*-backup-*.sqlite beside it, or "
        f"your own) and delete {SEAL_FILE}, or move both aside to start an empty ledger (wear "
        "counts start again at 0 for every chip)"
    )


def _seal(path: Path) -> int:
    """The event counter the last write stamped beside the ledger (0: no seal yet)."""
    seal = path.with_name(SEAL_FILE)
    try:
        return int(json.loads(seal.read_text())["events"])
    except FileNotFoundError:
        return 0
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DamagedFileError(
            f"the ledger's seal {seal} is damaged ({exc}): if {path} is intact, delete the "
            "seal (the next write stamps a new one)"
        ) from None


def _counter(db: sqlite3.Connection) -> int:
    row = db.execute("SELECT seq FROM sqlite_sequence WHERE name='events'").fetchone()
    return int(row[0]) if row else 0


def _check_seal(db: sqlite3.Connection, path: Path) -> None:
    counter, sealed = _counter(db), _seal(path)
    if counter < sealed:
        raise _damaged(
            path, f"it holds events up to #{counter}, but {SEAL_FILE} says #{sealed} were "
            "written: the file or its -wal was lost or cut"
        )


def _open_checked(path: Path) -> sqlite3.Connection:
    """Open the ledger in WAL mode after checking it; create it when there is none."""
    existed = path.exists()
    sealed = 0 if existed else _seal(path)
    if sealed > 0:
        raise _damaged(path, f"the file is missing, but {SEAL_FILE} beside it says "
                       f"{sealed} events were written")
    if not existed and not os.access(path.parent, os.W_OK):
        raise ReadOnlyDataError(
            f"the chip ledger cannot be created: {path.parent} is read-only (make it "
            "writable, or set NANDLAB_DATA_DIR to a folder you can write)"
        )
    if existed and not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
        return _open_read_only(path)
    if existed and path.stat().st_size == 0 and not path.with_name(path.name + "-wal").exists():
        # SQLite would take an empty file for a new database: a truncated ledger must not
        raise _damaged(path, "the file is empty")
    db = sqlite3.connect(path, timeout=30, isolation_level=None)
    try:
        if existed:
            _check(db, path)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        _upgrade(db, path, existed)
        _check_seal(db, path)
    except BaseException:
        db.close()
        raise
    return db


def _open_read_only(path: Path) -> sqlite3.Connection:
    """A ledger this process cannot write (an archive, a read-only data folder) is read as
    it is: `nandlab ledger` works there; a write raises. SQLite needs the -shm file of a WAL
    database; when it cannot make one, `immutable` (nobody can be writing that folder)."""
    uri = path.resolve().as_uri()
    db = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=30, isolation_level=None)
    try:
        db.execute("PRAGMA user_version").fetchone()
    except sqlite3.OperationalError:
        db.close()
        db = sqlite3.connect(
            f"{uri}?mode=ro&immutable=1", uri=True, timeout=30, isolation_level=None
        )
    try:
        _check(db, path)
        _check_seal(db, path)
    except BaseException:
        db.close()
        raise
    return db


def _check(db: sqlite3.Connection, path: Path) -> None:
    try:
        verdict = [str(r[0]) for r in db.execute("PRAGMA quick_check").fetchall()]
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        raise _damaged(path, str(exc)) from None
    if verdict != ["ok"]:
        raise _damaged(path, "; ".join(verdict[:3]))
    if version > SCHEMA_VERSION:
        raise DamagedFileError(
            f"the chip ledger {path} has layout version {version}, newer than this nandlab "
            f"knows ({SCHEMA_VERSION}): use the nandlab that wrote it, or a newer one"
        )


def _upgrade(db: sqlite3.Connection, path: Path, existed: bool) -> None:
    """Bring the layout to SCHEMA_VERSION; an existing file is copied aside first."""
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    if version == SCHEMA_VERSION:
        return
    if existed:
        backup(db, path, version)
    # one transaction: the tables and the version stamp land together or not at all
    db.executescript(f"BEGIN IMMEDIATE;{SCHEMA}PRAGMA user_version={SCHEMA_VERSION};COMMIT;")


def backup(db: sqlite3.Connection, path: Path, version: int) -> Path:
    """A consistent copy of the open ledger beside it, named after its layout version."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = path.with_name(f"ledger-v{version}-backup-{stamp}.sqlite")
    copy = sqlite3.connect(target)
    try:
        with copy:
            db.backup(copy)
    finally:
        copy.close()
    return target


@dataclass(frozen=True)
class BlockWear:
    block: int
    pec: int
    fast_forwarded_cycles: int


class Ledger:
    """The ledger file; every write is one committed transaction."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else ledger_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = _open_checked(self.path)
        self._sealed = _seal(self.path)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with transaction(self._db) as db:
            yield db
        counter = _counter(self._db)
        if counter > self._sealed:
            write_atomic(self.path.with_name(SEAL_FILE), json.dumps({"events": counter}).encode())
            self._sealed = counter

    # ----------------------------------------------------------------- writes

    def touch_chip(self, chip: str, profile: str, virtual: bool, bench_url: str) -> None:
        now = utc_now()
        with self._tx() as db:
            db.execute(
                "INSERT INTO chips VALUES (?,?,?,?,?,?) ON CONFLICT(chip) DO UPDATE SET "
                "profile=excluded.profile, bench_url=excluded.bench_url, "
                "last_seen=excluded.last_seen",
                (chip, profile, int(virtual), bench_url, now, now),
            )

    def reset_chip(self, chip: str, run_id: str, why: str) -> None:
        """Forget what the chip went through before now (a virtual die started fresh): wear,
        bad blocks found and the chip layer's bad-block table, whose cached markers would
        skip the marker reads a fresh die gets (and so shift its read-noise stream). The
        events stay as history."""
        self.record(chip, run_id, "reset", "reset", -1, detail={"why": why})
        with self._tx() as db:
            db.execute("DELETE FROM bad_blocks WHERE chip=?", (chip,))
        BadBlockTable.for_chip(chip, self.path.parent).forget()

    def record(
        self,
        chip: str,
        run_id: str,
        unit: str,
        kind: str,
        block: int,
        *,
        pec_delta: int = 0,
        fast_forwarded: int | None = None,
        detail: dict[str, Any] | None = None,
    ) -> None:
        """Write (or rewrite, for a repeated unit) one event."""
        with self._tx() as db:
            _put_event(
                db,
                chip,
                run_id,
                unit,
                kind,
                block,
                pec_delta=pec_delta,
                fast_forwarded=fast_forwarded,
                detail=detail,
            )

    def record_wear(
        self, chip: str, run_id: str, unit: str, wear: Mapping[int, BlockCycles]
    ) -> None:
        """The P/E cycles of `wear` (block -> cycles, as `onfi.wear.WearTally.take` gives them)
        as one "cycle" event per block of `unit`, in one transaction; rewriting a unit replaces
        its events."""
        with self._tx() as db:
            for block, cycles in sorted(wear.items()):
                _put_event(
                    db,
                    chip,
                    run_id,
                    unit,
                    "cycle",
                    block,
                    pec_delta=cycles.erases,
                    fast_forwarded=cycles.fast_forwarded,
                )

    def mark_bad(self, chip: str, block: int, reason: str, run_id: str = "") -> None:
        with self._tx() as db:
            db.execute(
                "INSERT OR IGNORE INTO bad_blocks VALUES (?,?,?,?,?)",
                (chip, block, reason, run_id, utc_now()),
            )

    def run_started(self, chip: str, run_id: str, campaign: str, run_dir: str) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO runs VALUES (?,?,?,?,?,NULL,'running') ON CONFLICT(chip, run_id) "
                "DO UPDATE SET status='running', run_dir=excluded.run_dir",
                (chip, run_id, campaign, run_dir, utc_now()),
            )

    def run_finished(self, chip: str, run_id: str, status: str) -> None:
        with self._tx() as db:
            db.execute(
                "UPDATE runs SET finished=?, status=? WHERE chip=? AND run_id=?",
                (utc_now(), status, chip, run_id),
            )

    # ------------------------------------------------------------------ reads

    def _since_reset(self, chip: str) -> int:
        row = self._db.execute(
            "SELECT MAX(seq) FROM events WHERE chip=? AND kind='reset'", (chip,)
        ).fetchone()
        return int(row[0] or 0)

    def pec(self, chip: str, block: int) -> int:
        """P/E cycles (erases) of `block` known to the ledger."""
        return self.wear(chip).get(block, BlockWear(block, 0, 0)).pec

    def data_retention(self, chip: str, block: int) -> tuple[float, str | None]:
        """What the data in `block` went through since the block was last erased: the
        equivalent age (h at use temperature) of the bakes since, and their labels
        joined with '+' (None when there were none)."""
        since = self._db.execute(
            "SELECT MAX(seq) FROM events WHERE chip=? AND ((block=? AND pec_delta>0) "
            "OR kind='reset')",
            (chip, block),
        ).fetchone()[0]
        age, labels = 0.0, []
        for (detail,) in self._db.execute(
            "SELECT detail FROM events WHERE chip=? AND kind='bake' AND seq>? ORDER BY seq",
            (chip, int(since or 0)),
        ):
            bake = json.loads(detail or "{}")
            age += float(bake.get("age_h", 0.0))
            labels.append(str(bake.get("label", "bake")))
        return age, "+".join(labels) or None

    def wear(self, chip: str) -> dict[int, BlockWear]:
        rows = self._db.execute(
            "SELECT block, SUM(pec_delta), SUM(COALESCE(fast_forwarded, 0)) FROM events "
            "WHERE chip=? AND seq>? AND block>=0 GROUP BY block HAVING SUM(pec_delta)>0 "
            "ORDER BY block",
            (chip, self._since_reset(chip)),
        ).fetchall()
        return {int(b): BlockWear(int(b), int(p), int(f)) for b, p, f in rows}

    def bad_blocks(self, chip: str) -> dict[int, str]:
        """Bad blocks the ledger knows, plus those in the chip layer's bad-block table (in the
        ledger's data folder)."""
        root = self.path.parent
        out = {
            int(b): str(r)
            for b, r in self._db.execute(
                "SELECT block, reason FROM bad_blocks WHERE chip=? ORDER BY block", (chip,)
            )
        }
        for b in BadBlockTable.for_chip(chip, root).bad_blocks():
            out.setdefault(b, "factory marker (bad-block table)")
        return dict(sorted(out.items()))

    def history(self, chip: str) -> dict[str, Any]:
        """Everything about one chip, JSON-ready."""
        info = self._db.execute(
            "SELECT profile, virtual, bench_url, first_seen, last_seen FROM chips WHERE chip=?",
            (chip,),
        ).fetchone()
        bakes = [
            {"run_id": r, "unit": u, **json.loads(d or "{}"), "time": t}
            for r, u, d, t in self._db.execute(
                "SELECT run_id, unit, detail, time FROM events WHERE chip=? AND kind='bake' "
                "ORDER BY seq",
                (chip,),
            )
        ]
        runs = [
            dict(
                zip(
                    ("run_id", "campaign", "run_dir", "started", "finished", "status"),
                    r,
                    strict=True,
                )
            )
            for r in self._db.execute(
                "SELECT run_id, campaign, run_dir, started, finished, status FROM runs "
                "WHERE chip=? ORDER BY started",
                (chip,),
            )
        ]
        resets = self._db.execute(
            "SELECT COUNT(*) FROM events WHERE chip=? AND kind='reset'", (chip,)
        ).fetchone()[0]
        return {
            "chip": chip,
            "known": info is not None,
            "profile": info[0] if info else None,
            "virtual": bool(info[1]) if info else None,
            "bench_url": info[2] if info else None,
            "first_seen": info[3] if info else None,
            "last_seen": info[4] if info else None,
            "resets": int(resets),
            "blocks": [
                {"block": w.block, "pec": w.pec, "fast_forwarded_cycles": w.fast_forwarded_cycles}
                for w in self.wear(chip).values()
            ],
            "bad_blocks": [{"block": b, "reason": r} for b, r in self.bad_blocks(chip).items()],
            "bakes": bakes,
            "runs": runs,
        }


def _put_event(
    db: sqlite3.Connection,
    chip: str,
    run_id: str,
    unit: str,
    kind: str,
    block: int,
    *,
    pec_delta: int = 0,
    fast_forwarded: int | None = None,
    detail: dict[str, Any] | None = None,
) -> None:
    db.execute(
        "INSERT INTO events (chip, run_id, unit, kind, block, pec_delta, fast_forwarded, "
        "detail, time) VALUES (?,?,?,?,?,?,?,?,?) "
        "ON CONFLICT(chip, run_id, unit, kind, block) DO UPDATE SET "
        "pec_delta=excluded.pec_delta, fast_forwarded=excluded.fast_forwarded, "
        "detail=excluded.detail",
        (
            chip,
            run_id,
            unit,
            kind,
            block,
            pec_delta,
            fast_forwarded,
            json.dumps(detail or {}),
            utc_now(),
        ),
    )
