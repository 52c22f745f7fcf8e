"""A run survives whatever stops it: kill -9 at random points, Ctrl-C and SIGTERM (mid-run
and at start-up), a file size limit hit mid-run, read-only folders. Each ends with its
exit code and one clear line (no traceback), and `nandlab resume` (or a rerun, when
nothing had started) then gives exactly the rows and ledger of an uninterrupted run.

The run is a real `nandlab` process on a virtual chip; a campaign of 10 small units keeps
each trial to a few seconds."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from golden.rows import MEASURED  # tests/ is on sys.path: pytest's rootdir conftest
from nandlab.cli.app import cli
from nandlab.ledger import Ledger

CAMPAIGN = """\
name: crash
bench: sim://mlc-64l?seed=21
fresh: true
seed: 9
blocks: [200, 201]
steps:
  - cycle: {pec: {sweep: [1, 500]}}
  - program: {wls: 0-1, pattern: random, scramble: true}
  - measure: {what: [rber], repeats: {sweep: [1, 2, 3]}}
"""
UNITS = 10
ENTRY = "from nandlab.cli.main import main; main()"


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("campaign") / "crash.yaml"
    path.write_text(CAMPAIGN)
    return path


@pytest.fixture(scope="module")
def reference(campaign: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The rows and ledger wear of the same campaign run without interruption."""
    root = tmp_path_factory.mktemp("reference")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NANDLAB_DATA_DIR", str(root / "data"))
        result = CliRunner().invoke(
            cli, ["run", "--yes", str(campaign), "--out", str(root), "--run-id", "r", "--no-progress"]
        )
        assert result.exit_code == 0, result.output
        return outcome(root / "r")


def outcome(run_dir: Path) -> dict[str, Any]:
    """What must match an uninterrupted run: the measured rows in order, the units done and
    the ledger's wear of the chip (read from $NANDLAB_DATA_DIR)."""
    table = pq.read_table(run_dir / "measurements.parquet")
    columns = [c for c in ("unit", *MEASURED) if c in table.column_names]
    meta = json.loads((run_dir / "run.json").read_text())
    (chip,) = meta["chips"]
    with Ledger() as book:
        wear = book.wear(chip["unique_id"])
    return {
        "status": meta["status"],
        "rows": table.select(columns).to_pylist(),
        "units": sorted(_done(run_dir)),
        "wear": wear,
    }


def _done(run_dir: Path) -> list[str]:
    try:
        db = sqlite3.connect(f"file:{run_dir / 'run.sqlite'}?mode=ro", uri=True, timeout=5)
        try:
            return [str(k) for (k,) in db.execute("SELECT key FROM units")]
        finally:
            db.close()
    except sqlite3.Error:  # not created yet, or mid-write
        return []


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's data folder, for the child process and for resume in this one."""
    folder = tmp_path / "data"
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(folder))
    return folder


def launch(
    args: list[str], *, setup: str = "", wrapper: tuple[str, ...] = ()
) -> subprocess.Popen[bytes]:
    """`nandlab ARGS` as its own process (the console script's entry point), after the
    Python statements `setup`, under the command `wrapper`."""
    return subprocess.Popen(
        [*wrapper, sys.executable, "-c", setup + ENTRY, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def run_args(campaign: Path, out: Path, run_id: str = "k") -> list[str]:
    return ["run", "--yes", str(campaign), "--out", str(out), "--run-id", run_id, "--no-progress"]


def wait_until(
    proc: subprocess.Popen[bytes], ready: Callable[[], bool], poll_s: float = 0.01
) -> None:
    deadline = time.monotonic() + 120
    while not ready():
        assert proc.poll() is None, f"ended first: {finish(proc)}"
        assert time.monotonic() < deadline, "timed out"
        time.sleep(poll_s)


def catches_sigterm(proc: subprocess.Popen[bytes]) -> bool:
    """The child has its SIGTERM handler in (Linux: the SigCgt mask of /proc/PID/status)."""
    status = Path(f"/proc/{proc.pid}/status").read_text()
    (mask,) = (line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(mask, 16) >> (signal.SIGTERM - 1) & 1)


def finish(proc: subprocess.Popen[bytes]) -> tuple[int, str]:
    _, err = proc.communicate(timeout=120)
    return proc.returncode, err.decode()


def resume(run_dir: Path) -> None:
    result = CliRunner().invoke(cli, ["resume", "--yes", str(run_dir), "--no-progress"])
    assert result.exit_code == 0, result.output


EVERY_UNIT_A_PART = "import nandlab.dataset.parts as p; p.PART_EVERY_S = 0.0; "
PACED = (
    "import time, nandlab.dataset.store as s; _commit = s.RunStore.commit_unit; "
    "s.RunStore.commit_unit = lambda *a, **k: (time.sleep(0.15), _commit(*a, **k))[1]; "
)
"""Each unit takes >= 0.15 s more, so the kill's random delay (<= 0.3 s) after k committed
units lands before the run's end (a checkpoint costs what a unit changed: the 10 units
alone can finish within that delay)."""
KILL_AT_SYNC = (
    "import os, nandlab.transport.image as im, nandlab.campaign.bench_session as bs; "
    "_n = [0]; _sync = im.sync_folder\n"
    "def _kill_at(folder):\n"
    "    _n[0] += 1\n"
    "    if _n[0] == {n}: os.kill(os.getpid(), 9)\n"
    "    _sync(folder)\n"
    "im.sync_folder = bs.sync_folder = _kill_at\n"
)
"""SIGKILL at the n-th folder sync of the die checkpoints: each checkpoint syncs the image
folder before its new manifest (block files written, not named yet), after it (old files
not yet removed), then the run's checkpoint folder (linked and named, not committed)."""


def check_parts(run_dir: Path) -> None:
    """The Parquet parts a kill left: each one the manifest names is whole (its sha256) and
    holds exactly the rows run.sqlite has for its units, the parts follow each other with
    no unit in two, and any other file in parts/ is the one the kill cut short."""
    db = sqlite3.connect(f"file:{run_dir / 'run.sqlite'}?mode=ro", uri=True)
    try:
        try:
            tables = {
                n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
        except sqlite3.OperationalError:  # killed before its WAL was set up: unreadable read-only
            tables = set()
        if not {"rows", "parts"} <= tables:  # killed while the store made its tables
            assert not _done(run_dir) and not (run_dir / "parts").exists()
            return
        manifest = db.execute(
            "SELECT n, first_unit, last_unit, sha256 FROM parts ORDER BY n").fetchall()
        stored = db.execute("SELECT unit_idx, data FROM rows ORDER BY unit_idx, n").fetchall()
    finally:
        db.close()
    last = -1
    for n, first, end, sha in manifest:
        assert first == last + 1 and end >= first
        last = end
        path = run_dir / "parts" / f"part-{n:06d}.parquet"
        assert hashlib.sha256(path.read_bytes()).hexdigest() == sha
        table = pq.read_table(path)
        want = [(u, json.loads(d)) for u, d in stored if first <= u <= end]
        assert table.column("unit_idx").to_pylist() == [u for u, _ in want]
        columns = [c for c in ("unit", *MEASURED) if c in table.column_names]
        assert table.select(columns).to_pylist() == [
            {c: row.get(c) for c in columns} for _, row in want
        ]
    named = {f"part-{n:06d}.parquet" for n, *_ in manifest}
    cut = f"part-{len(manifest):06d}.parquet"
    folder = run_dir / "parts"
    extra = {f.name for f in folder.iterdir()} - named if folder.exists() else set()
    assert extra <= {cut, f".{cut}.tmp"}


@pytest.mark.parametrize("trial", range(4))
def test_kill_9_at_a_random_point_then_resume(
    trial: int, campaign: Path, reference: dict[str, Any], tmp_path: Path, data_dir: Path
) -> None:
    """SIGKILL once the run has committed k units (0 = inside its first unit), after a
    random further delay: no clean-up runs at all, and resume still loses nothing. The
    run writes a Parquet part after every unit, so the kill also falls inside parts."""
    rng = random.Random(trial)
    k, delay = rng.randrange(UNITS - 2), rng.uniform(0.0, 0.3)
    run_dir = tmp_path / "runs" / "k"
    proc = launch(run_args(campaign, tmp_path / "runs"), setup=EVERY_UNIT_A_PART + PACED)
    wait_until(proc, lambda: (run_dir / "run.json").exists() and len(_done(run_dir)) >= k)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    assert finish(proc)[0] == -signal.SIGKILL
    assert len(_done(run_dir)) < UNITS
    check_parts(run_dir)
    resume(run_dir)
    assert not (run_dir / "parts").exists()  # complete: measurements.parquet replaces them
    assert outcome(run_dir) == reference


@pytest.mark.parametrize("sync", [3 * 4 + 1, 3 * 5 + 2, 3 * 6 + 3])
def test_kill_9_inside_a_die_checkpoint_then_resume(
    sync: int, campaign: Path, reference: dict[str, Any], tmp_path: Path, data_dir: Path
) -> None:
    """SIGKILL inside the incremental die checkpoint after a unit (the initial checkpoint
    is syncs 1-3, unit i's 3i+1..3i+3): resume restores the die of the last committed unit
    and gives the rows and ledger of an uninterrupted run."""
    run_dir = tmp_path / "runs" / "k"
    proc = launch(run_args(campaign, tmp_path / "runs"), setup=KILL_AT_SYNC.format(n=sync))
    assert finish(proc)[0] == -signal.SIGKILL
    assert len(_done(run_dir)) == (sync - 1) // 3 - 1  # the unit checkpointing is not in
    resume(run_dir)
    assert outcome(run_dir) == reference


def test_kill_9_during_start_up_then_rerun(
    campaign: Path, reference: dict[str, Any], tmp_path: Path, data_dir: Path
) -> None:
    """SIGKILL as soon as the run folder appears (its lock; the first checkpoint and
    run.json come later): nothing to resume, and the same command with the same
    --run-id takes the folder and runs to the end."""
    run_dir = tmp_path / "runs" / "k"
    proc = launch(run_args(campaign, tmp_path / "runs"))
    wait_until(proc, run_dir.exists, poll_s=0.001)
    proc.send_signal(signal.SIGKILL)
    assert finish(proc)[0] == -signal.SIGKILL
    assert not (run_dir / "run.json").exists()
    result = CliRunner().invoke(cli, run_args(campaign, tmp_path / "runs"))
    assert result.exit_code == 0, result.output
    assert outcome(run_dir) == reference


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_mid_run_exits_resumable(
    signum: int, code: int, campaign: Path, reference: dict[str, Any], tmp_path: Path,
    data_dir: Path,
) -> None:
    run_dir = tmp_path / "runs" / "k"
    proc = launch(run_args(campaign, tmp_path / "runs"))
    wait_until(proc, lambda: len(_done(run_dir)) >= 3)
    proc.send_signal(signum)
    status, err = finish(proc)
    assert status == code, err
    assert "Traceback" not in err
    name = signal.Signals(signum).name
    assert err.startswith("error: run stopped at unit ") and f"interrupted by {name}" in err
    assert f"nandlab resume {run_dir}" in err
    assert json.loads((run_dir / "run.json").read_text())["status"] == "interrupted"
    resume(run_dir)
    assert outcome(run_dir) == reference


def test_ctrl_c_during_start_up_leaves_nothing_that_blocks_a_rerun(
    campaign: Path, reference: dict[str, Any], tmp_path: Path, data_dir: Path
) -> None:
    """Ctrl-C while the commands are imported, then while the bench opens (its die image
    folder exists, run.json does not yet): exit 130, no traceback, and the same command
    with the same --run-id then runs to the end."""
    run_dir = tmp_path / "runs" / "k"
    for start_up in ("imports", "bench"):
        proc = launch(run_args(campaign, tmp_path / "runs"))
        # main()'s handlers are in (before them, the interpreter's own start: no program
        # can answer a signal there), then the commands' imports take about a second
        wait_until(proc, functools.partial(catches_sigterm, proc), poll_s=0.001)
        if start_up == "bench":
            wait_until(proc, (data_dir / "sim").exists)
        proc.send_signal(signal.SIGINT)
        status, err = finish(proc)
        assert status == 130, err
        assert err.startswith("error: ") and "interrupted by SIGINT" in err, err
        assert "Traceback" not in err
        assert not (run_dir / "run.json").exists()
    result = CliRunner().invoke(cli, run_args(campaign, tmp_path / "runs"))
    assert result.exit_code == 0, result.output
    assert outcome(run_dir) == reference


FILE_SIZE_LIMIT = 256 * 1024
"""Above every file a run writes at start (ledger, run store, a fresh die image), below
the die image once two blocks are programmed (about 2 MB)."""


def test_file_size_limit_mid_run_then_resume(
    campaign: Path, reference: dict[str, Any], tmp_path: Path, data_dir: Path
) -> None:
    """RLIMIT_FSIZE in the child: a write past it fails with EFBIG (Python ignores
    SIGXFSZ), as a full disk's does with ENOSPC."""

    setup = (
        "import resource; resource.setrlimit(resource.RLIMIT_FSIZE, "
        f"({FILE_SIZE_LIMIT}, resource.RLIM_INFINITY)); "
    )
    run_dir = tmp_path / "runs" / "k"
    status, err = finish(launch(run_args(campaign, tmp_path / "runs"), setup=setup))
    assert status == 1, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert err.startswith("error: run stopped at unit ")
    assert f"a file size limit of {FILE_SIZE_LIMIT} bytes is set (ulimit -f)" in err
    assert f"nandlab resume {run_dir}" in err
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["status"] == "stopped" and "file size limit" in meta["error"]
    assert 0 < len(_done(run_dir)) < UNITS
    resume(run_dir)
    assert outcome(run_dir) == reference


@pytest.fixture
def read_only() -> Iterator[Callable[[Path], tuple[str, ...]]]:
    """Make a folder read-only for a child process: mode 0555; for root, whom modes do not
    stop, the child also runs without CAP_DAC_OVERRIDE (util-linux's setpriv)."""
    made: list[Path] = []

    def make(folder: Path) -> tuple[str, ...]:
        folder.mkdir(parents=True, exist_ok=True)
        folder.chmod(0o555)
        made.append(folder)
        return ("setpriv", "--bounding-set", "-dac_override", "--") if os.geteuid() == 0 else ()

    yield make
    for folder in made:
        folder.chmod(0o755)


@pytest.mark.parametrize("which", ["data folder", "run folder"])
def test_read_only_folder_is_a_clear_usage_error(
    which: str, campaign: Path, tmp_path: Path, data_dir: Path,
    read_only: Callable[[Path], tuple[str, ...]],
) -> None:
    folder = data_dir if which == "data folder" else tmp_path / "runs"
    status, err = finish(launch(run_args(campaign, tmp_path / "runs"), wrapper=read_only(folder)))
    assert status == 2, err
    assert "Traceback" not in err and err.startswith("error: ")
    assert str(folder) in err
    assert not (tmp_path / "runs" / "k").exists()
