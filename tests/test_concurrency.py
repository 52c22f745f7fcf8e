"""Two commands, one virtual chip: the second is refused cleanly while the first holds the
chip, the ledger counts every P/E cycle once, and a lock left by a killed process blocks
nobody (issue 20, finding 1)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from click.testing import Result
from nandlab.dataset.store import RunStore
from nandlab.ledger import Ledger

CAMPAIGN = """\
name: busy
bench: sim://mlc-64l?seed=41
fresh: true
seed: 5
blocks: [300]
steps:
  - cycle: {pec: 1000}
  - program: {wls: 0-1, pattern: random}
  - measure: {what: [rber]}
  - cycle: {pec: 2000}
  - program: {wls: 0-1, pattern: random}
  - measure: {what: [rber]}
  - cycle: {pec: 3000}
"""
URL = "sim://mlc-64l?seed=41"


def _committed(run_dir: Path) -> int:
    try:
        db = sqlite3.connect(f"file:{run_dir / 'run.sqlite'}?mode=ro", uri=True, timeout=5)
        try:
            return int(db.execute("SELECT COUNT(*) FROM units").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:
        return 0


def _start(campaign: Path, runs: Path, run_id: str, data: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", "from nandlab.cli.main import main; main()", "run", "--yes", str(campaign),
         "--out", str(runs), "--run-id", run_id, "--no-progress"],
        env={**os.environ, "NANDLAB_DATA_DIR": str(data)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _wait_for_units(proc: subprocess.Popen[bytes], run_dir: Path, n: int) -> None:
    deadline = time.monotonic() + 120
    while _committed(run_dir) < n:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        assert time.monotonic() < deadline
        time.sleep(0.02)


def _pec_rows_and_ledger(run_dir: Path) -> tuple[int, int]:
    """(highest P/E count the run's rows give block 300, the ledger's P/E count of it)."""
    store = RunStore(run_dir)
    try:
        rows = store.rows()
    finally:
        store.close()
    uid = json.loads((run_dir / "run.json").read_text())["chips"][0]["unique_id"]
    with Ledger() as book:
        return max(int(r["pec"]) for r in rows if r.get("block") == 300), book.pec(uid, 300)


def test_a_second_campaign_is_refused_and_the_ledger_counts_once(
    tmp_path: Path, data_dir: Path, run: Callable[..., Result]
) -> None:
    campaign = tmp_path / "busy.yaml"
    campaign.write_text(CAMPAIGN)
    runs = tmp_path / "runs"
    first = _start(campaign, runs, "a", data_dir)
    try:
        _wait_for_units(first, runs / "a", 2)
        first.send_signal(signal.SIGSTOP)  # holds the chip, mid-run, for as long as we need
        second = _start(campaign, runs, "b", data_dir)
        _, err = second.communicate(timeout=120)
        message = err.decode()
        assert second.returncode == 2, message
        assert "is in use by run a" in message and f"pid {first.pid}" in message
        assert "Traceback" not in message
        assert not (runs / "b").exists()  # refused before anything was made
        # one-off commands on the chip are refused the same way, readers too
        for args in (("erase", URL, "--block", "7", "--yes"), ("info", URL)):
            refused = run(*args)
            assert refused.exit_code == 2, refused.output
            assert "is in use by run a" in refused.stderr
    finally:
        first.send_signal(signal.SIGCONT)
    _, err = first.communicate(timeout=120)
    assert first.returncode == 0, err.decode()
    rows_pec, ledger_pec = _pec_rows_and_ledger(runs / "a")
    assert rows_pec == 3000 and ledger_pec == 3000


def test_a_killed_campaign_leaves_no_lock_that_blocks(
    tmp_path: Path, data_dir: Path, run: Callable[..., Result]
) -> None:
    campaign = tmp_path / "busy.yaml"
    campaign.write_text(CAMPAIGN)
    runs = tmp_path / "runs"
    killed = _start(campaign, runs, "k", data_dir)
    _wait_for_units(killed, runs / "k", 2)
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    note = json.loads((runs / "k" / "run.lock").read_text())
    assert note["pid"] == killed.pid and note["run"] == "k"  # left behind, and harmless:
    resumed = run("resume", "--yes", str(runs / "k"), "--no-progress")
    assert resumed.exit_code == 0, resumed.output
    rows_pec, ledger_pec = _pec_rows_and_ledger(runs / "k")
    assert rows_pec == 3000 and ledger_pec == 3000
    again = run("run", "--yes", str(campaign), "--out", str(runs), "--run-id", "n", "--no-progress")
    assert again.exit_code == 0, again.output

