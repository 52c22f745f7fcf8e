"""The chip ledger: wear accumulates across runs, repeated units count once, bad blocks."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from nandlab.campaign.runner import start_run
from nandlab.errors import DamagedFileError, UsageError
from nandlab.ledger import Ledger, ledger_path
from nandlab.ledger.db import SCHEMA, SCHEMA_VERSION
from nandlab.onfi.chip import Chip
from nandlab.transport import open_bench

CAMPAIGN = """\
name: wear
bench: sim://mlc-64l?seed=31
fresh: {fresh}
seed: 1
blocks: [120]
steps:
  - cycle: {{pec: {pec}}}
  - program: {{wls: [0]}}
  - measure: {{what: rber}}
"""


def _run(tmp_path: Path, name: str, pec: int, fresh: bool) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(CAMPAIGN.format(pec=pec, fresh=str(fresh).lower()))
    return start_run(path, tmp_path / "runs", run_id=name).run_dir


def test_pe_count_accumulates_across_runs(tmp_path: Path) -> None:
    _run(tmp_path, "a", 100, True)
    _run(tmp_path, "b", 250, False)
    with open_bench("sim://mlc-64l?seed=31") as bench:
        uid = Chip(bench).identification.unique_id
        die_pec = bench.dies[0].array.pec(120)  # type: ignore[attr-defined]
    with Ledger() as book:
        assert book.pec(uid, 120) == 250 == die_pec
        doc = book.history(uid)
    assert [r["run_id"] for r in doc["runs"]] == ["a", "b"]
    assert all(r["status"] == "complete" for r in doc["runs"])
    assert doc["blocks"] == [{"block": 120, "pec": 250, "fast_forwarded_cycles": 248}]
    assert ledger_path().is_file()
    with pytest.raises(UsageError, match="already has 250 P/E cycles"):
        _run(tmp_path, "c", 200, False)
    assert not (tmp_path / "runs" / "c").exists()


def test_events_are_idempotent_and_reset(tmp_path: Path) -> None:
    with Ledger(tmp_path / "l.sqlite") as book:
        for _ in range(2):
            book.record("ab", "r1", "u1", "cycle", 5, pec_delta=10)
        book.record("ab", "r1", "u2", "cycle", 5, pec_delta=5)
        assert book.pec("ab", 5) == 15
        book.mark_bad("ab", 7, "status FAIL", "r1")
        assert book.bad_blocks("ab") == {7: "status FAIL"}
        book.reset_chip("ab", "r2", "fresh")
        assert book.pec("ab", 5) == 0
    with Ledger(tmp_path / "l.sqlite") as book:
        assert book.history("ab")["resets"] == 1


def test_a_damaged_ledger_is_named_never_replaced(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    with Ledger(path) as book:
        book.record("ab", "r1", "u1", "cycle", 5, pec_delta=10)
    raw = bytearray(path.read_bytes())
    raw[0:16] = b"not a database!!"  # the SQLite header
    path.write_bytes(bytes(raw))
    for damage in (bytes(raw), bytes(raw[: len(raw) // 2]), b""):
        path.write_bytes(damage)
        with pytest.raises(DamagedFileError, match=r"ledger .*ledger\.sqlite is damaged.*restore"):
            Ledger(path)
        assert path.read_bytes() == damage  # left as it was for the user to restore


def test_a_lost_or_rolled_back_ledger_is_caught_by_its_seal(tmp_path: Path) -> None:
    """SQLite reads a missing file as a new ledger and an older copy (a lost -wal) as
    valid: the seal beside it says how far the event counter had come."""
    path = tmp_path / "ledger.sqlite"
    with Ledger(path) as book:
        book.record("ab", "r1", "u1", "cycle", 5, pec_delta=10)
    older = path.read_bytes()  # closed cleanly: the WAL is in the file
    with Ledger(path) as book:
        book.record("ab", "r1", "u2", "cycle", 5, pec_delta=7)
    path.write_bytes(older)
    with pytest.raises(DamagedFileError, match=r"events up to #1, but ledger\.seal says #2"):
        Ledger(path)
    path.unlink()
    with pytest.raises(DamagedFileError, match=r"missing, but ledger\.seal"):
        Ledger(path)
    assert not path.exists()  # never recreated empty
    (tmp_path / "ledger.seal").unlink()  # the user's way out: an empty ledger, knowingly
    with Ledger(path) as book:
        assert book.pec("ab", 5) == 0


def test_a_page_damaged_inside_fails_the_integrity_check(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    with Ledger(path) as book:
        for unit in range(400):
            book.record("ab", "r1", f"u{unit}", "cycle", unit, pec_delta=1)
        book._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    raw = bytearray(path.read_bytes())
    page = 4096
    assert len(raw) > 4 * page
    raw[2 * page : 2 * page + 64] = bytes(range(64))  # a b-tree page header scrambled
    path.write_bytes(bytes(raw))
    with pytest.raises(DamagedFileError, match="damaged"):
        Ledger(path)


def test_layout_version_stamped_after_a_backup(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    # a ledger written before the layout had a version: same tables, user_version 0
    old = sqlite3.connect(path)
    old.executescript(SCHEMA)
    old.execute(
        "INSERT INTO events (chip, run_id, unit, kind, block, pec_delta) "
        "VALUES ('ab', 'r1', 'u1', 'cycle', 5, 7)"
    )
    old.commit()
    old.close()
    with Ledger(path) as book:
        assert book.pec("ab", 5) == 7
    (copy,) = tmp_path.glob("ledger-v0-backup-*.sqlite")
    check = sqlite3.connect(copy)
    assert check.execute("PRAGMA user_version").fetchone()[0] == 0
    assert check.execute("SELECT pec_delta FROM events").fetchall() == [(7,)]
    check.close()
    stamped = sqlite3.connect(path)
    assert stamped.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    stamped.close()
    with Ledger(path):  # reopening a current ledger copies nothing
        pass
    assert len(list(tmp_path.glob("ledger-v*-backup-*.sqlite"))) == 1


def test_a_newer_layout_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    Ledger(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(DamagedFileError, match="newer than this nandlab"):
        Ledger(path)
