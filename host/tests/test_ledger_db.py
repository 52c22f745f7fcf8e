"""The chip ledger: wear accumulates across runs, repeated units count once, bad blocks."""

from __future__ import annotations

from pathlib import Path

import pytest

from nandlab.campaign.runner import start_run
from nandlab.errors import UsageError
from nandlab.ledger import Ledger, ledger_path
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
        assert book.bad_blocks("ab", root=tmp_path) == {7: "status FAIL"}
        book.reset_chip("ab", "r2", "fresh")
        assert book.pec("ab", 5) == 0
    with Ledger(tmp_path / "l.sqlite") as book:
        assert book.history("ab")["resets"] == 1
