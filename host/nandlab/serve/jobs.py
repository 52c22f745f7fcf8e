"""Campaigns started, stopped and resumed from the dashboard.

Each run goes through the command line in its own process (`nandlab run`, `nandlab
resume`), so the run format, the locks, the ledger and resume apply exactly as they do
from a terminal. The processes get a session of their own: stopping or restarting the
dashboard leaves them measuring. Their output goes to `<out>/.dashboard/<run id>.log`
(the catalogue lists only folders with a run.json, so this folder is not taken for a run).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nandlab.campaign.schema import load_campaign
from nandlab.campaign.steps import writing_steps
from nandlab.dataset.catalog import RunEntry
from nandlab.errors import RefusedOperation, UsageError

ENTRY = "from nandlab.cli.main import main; main()"
LOG_DIR = ".dashboard"
CLOSE_WAIT_S = 30.0


@dataclass
class Job:
    run_id: str
    action: str
    """"run" or "resume"."""
    process: subprocess.Popen[bytes]
    log: Path

    def state(self) -> dict[str, Any]:
        """The process as the run page shows it: still running, or its exit code and the
        end of its output (why a run that never made its folder failed)."""
        code = self.process.poll()
        tail = ""
        if code not in (None, 0):
            tail = self.log.read_text(errors="replace")[-2000:]
        return {"action": self.action, "running": code is None, "exit_code": code, "log": tail}


def changes_chip(campaign_file: Path) -> list[str]:
    """The campaign's steps that erase or program blocks ('step N kind'): the same rule as
    `nandlab run --yes` (`StepKind.writes_chip`)."""
    return writing_steps(load_campaign(campaign_file).campaign.steps)


class Jobs:
    """The processes this dashboard started, by run id."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self._jobs: dict[str, Job] = {}

    def get(self, run_id: str) -> Job | None:
        return self._jobs.get(run_id)

    def _spawn(self, run_id: str, action: str, args: list[str]) -> Job:
        running = self._jobs.get(run_id)
        if running is not None and running.process.poll() is None:
            raise RefusedOperation(
                f"run {run_id} has a `nandlab {running.action}` still going: wait or stop it"
            )
        log = self.out / LOG_DIR / f"{run_id}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("ab") as sink:
            process = subprocess.Popen(
                [sys.executable, "-c", ENTRY, *args],
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        job = Job(run_id, action, process, log)
        self._jobs[run_id] = job
        return job

    def start(self, campaign_file: Path, confirmed: bool) -> str:
        """Start `nandlab run CAMPAIGN_FILE` in a new run folder; its run id.

        A campaign that changes the chip needs `confirmed` (the page's checkbox, as the
        command line's --yes); a campaign file that does not validate is refused here with
        the same message `nandlab run` would give."""
        path = campaign_file.expanduser().resolve()
        if not path.is_file():
            raise UsageError(f"{campaign_file} is not a campaign file")
        changing = changes_chip(path)
        if changing and not confirmed:
            raise RefusedOperation(
                f"this campaign changes the chip ({', '.join(changing)}): tick the "
                "confirmation box to start it"
            )
        name = load_campaign(path).campaign.name
        run_id = f"{name}-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}"
        if (self.out / run_id).exists() or run_id in self._jobs:
            raise RefusedOperation(f"run {run_id} exists already: start it again in a second")
        self.out.mkdir(parents=True, exist_ok=True)
        self._spawn(
            run_id,
            "run",
            # the page asked for the confirmation that --yes gives
            ["run", "--yes", str(path), "--out", str(self.out), "--run-id", run_id]
            + ["--no-progress"],
        )
        return run_id

    def resume(self, entry: RunEntry) -> None:
        """`nandlab resume` of a run that is not complete and not running."""
        if entry.status in ("complete", "running"):
            raise RefusedOperation(f"run {entry.run_id} is {entry.status}: nothing to resume")
        previous = self._jobs.get(entry.run_id)
        if previous is not None:
            # a stopped process marks its run interrupted before it has closed the bench
            # and released the run's lock: let it finish closing
            # (one still open after that: the new process says the run is in use, in its log)
            with contextlib.suppress(subprocess.TimeoutExpired):
                previous.process.wait(timeout=CLOSE_WAIT_S)
        self._spawn(entry.run_id, "resume", ["resume", "--yes", entry.folder, "--no-progress"])

    def stop(self, entry: RunEntry, meta: dict[str, Any]) -> None:
        """Interrupt a running run as Ctrl-C does: the unit in flight is dropped, every
        committed unit stays, and `resume` continues it. A run started elsewhere on this
        host is stopped through the pid its run.json records."""
        if entry.status != "running":
            raise RefusedOperation(f"run {entry.run_id} is {entry.status}, not running")
        job = self._jobs.get(entry.run_id)
        if job is not None and job.process.poll() is None:
            job.process.send_signal(signal.SIGINT)
            return
        if meta.get("host") != socket.gethostname() or not isinstance(meta.get("pid"), int):
            raise RefusedOperation(
                f"run {entry.run_id} runs on host {meta.get('host')}: stop it there"
            )
        os.kill(meta["pid"], signal.SIGINT)
