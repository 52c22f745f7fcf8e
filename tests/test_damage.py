"""Damage: every file of a data folder (die image, run checkpoint, ledger, bad-block table)
and of a run folder (run.json, run.sqlite and its WAL, Parquet) truncated, bit-flipped and
deleted in turn. A command that reads the file either gives the undamaged answer or fails
with a message naming the file (no traceback); nothing is replaced silently (issue 20,
finding 2).

One pristine tree is built per module: a complete run `done`, then a run `k` of the same
campaign killed with SIGKILL after two committed units (its WAL, its checkpoint and the
ledger's WAL are left as a crash leaves them). Each case damages one file of a copy.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from nandlab.cli.app import cli
from nandlab.dataset.store import RunStore

CAMPAIGN = """\
name: tiny
bench: sim://mlc-64l?seed=51
fresh: true
seed: 3
blocks: [310]
steps:
  - cycle: {pec: 100}
  - program: {wls: 0-1, pattern: random}
  - measure: {what: [rber]}
  - bake: {retention: 1d@30C}
  - measure: {what: [rber]}
"""
URL = "sim://mlc-64l?seed=51"
READ = ("read", URL, "--block", "310", "--page", "1", "--json")


def _nandlab(*args: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", "from nandlab.cli.main import main; main()", *args],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _committed(run_dir: Path) -> int:
    try:
        db = sqlite3.connect(f"file:{run_dir / 'run.sqlite'}?mode=ro", uri=True, timeout=5)
        try:
            return int(db.execute("SELECT COUNT(*) FROM units").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:
        return 0


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pristine")
    (root / "tiny.yaml").write_text(CAMPAIGN)
    env = {"NANDLAB_DATA_DIR": str(root / "data")}
    run = ("run", "--yes", str(root / "tiny.yaml"), "--out", str(root / "runs"), "--no-progress")
    done = _nandlab(*run, "--run-id", "done", env=env)
    assert done.wait(timeout=300) == 0, done.stderr.read().decode() if done.stderr else ""
    killed = _nandlab(*run, "--run-id", "k", env=env)
    deadline = time.monotonic() + 300
    while _committed(root / "runs" / "k") < 2:
        assert killed.poll() is None and time.monotonic() < deadline
        time.sleep(0.01)
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    # the kill may land between a unit's commit and the pruning of the checkpoint before
    # it, or after the next checkpoint was made but not committed: keep the committed one,
    # as the next resume would, so each case finds one checkpoint
    checkpoints = root / "runs" / "k" / "die"
    kept = f"manifest.{_last_checkpoint(root / 'runs' / 'k')}.json"
    manifest = json.loads((checkpoints / kept).read_text())
    named = {kept} | {d["state"] for d in manifest["dies"]} | {
        name for d in manifest["dies"] for entry in d["blocks"].values() for name in entry[::2]
    }
    for path in checkpoints.iterdir():
        if path.name not in named:
            path.unlink()
    return root


def _last_checkpoint(run_dir: Path) -> str:
    db = sqlite3.connect(f"file:{run_dir / 'run.sqlite'}?mode=ro", uri=True, timeout=5)
    try:
        found = db.execute(
            "SELECT checkpoint FROM units WHERE checkpoint IS NOT NULL ORDER BY idx DESC LIMIT 1"
        ).fetchone()
    finally:
        db.close()
    return str(found[0])


class Case:
    """A copy of the pristine tree and the CLI run on it."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root = root
        monkeypatch.setenv("NANDLAB_DATA_DIR", str(root / "data"))

    def run(self, *args: str) -> tuple[int, str, str]:
        result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
        return result.exit_code, result.stdout, result.stderr

    def outcome(self, command: str) -> Any:
        """What `command` gives on this tree: (exit code, answer or stderr)."""
        runs = self.root / "runs"
        if command == "read":
            code, out, err = self.run(*READ)
            return code, json.loads(out)["sha256"] if code == 0 else err
        if command == "ledger":
            uid = json.loads((runs / "done" / "run.json").read_text())["chips"][0]["unique_id"]
            code, out, err = self.run("ledger", uid, "--json")
            return code, json.loads(out) if code == 0 else err
        if command == "export":
            target = self.root / "export.csv"
            code, _, err = self.run("export", str(runs / "done"), "--format", "csv",
                                    "--out", str(target))
            return code, target.read_text() if code == 0 else err
        if command == "resume":
            code, _, err = self.run("resume", "--yes", str(runs / "k"), "--no-progress")
            return code, _rows(runs / "k") if code == 0 else err
        raise AssertionError(command)


def _rows(run_dir: Path) -> list[dict[str, Any]]:
    store = RunStore(run_dir)
    try:
        return [{k: v for k, v in r.items() if k != "time_utc"} for r in store.rows()]
    finally:
        store.close()


@pytest.fixture
def copy_of(
    pristine: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[[], Case]:
    def make() -> Case:
        root = tmp_path / f"copy{len(list(tmp_path.iterdir()))}"
        shutil.copytree(pristine, root)  # hard-linked checkpoints become copies
        return Case(root, monkeypatch)

    return make


_expected: dict[str, Any] = {}


def expected(command: str, copy_of: Callable[[], Case]) -> Any:
    """The command's answer on an undamaged copy (computed once per module)."""
    if command not in _expected:
        code, answer = copy_of().outcome(command)
        assert code == 0, answer
        _expected[command] = answer
    return _expected[command]


def _files(root: Path) -> Iterator[str]:
    for path in sorted(root.rglob("*")):
        # run.log is for people: no command reads it, so there is no damage to notice
        if path.is_file() and path.name not in ("lock", "run.lock", "tiny.yaml", "run.log"):
            yield str(path.relative_to(root))


def _readers(rel: str) -> list[str]:
    """The commands that read the file at `rel`."""
    parts = Path(rel).parts
    if parts[0] == "data":
        if parts[1] == "sim" or parts[1] == "chips":
            return ["read"]
        return ["ledger"]
    if parts[1] == "k":
        return ["resume"]
    return ["export"]


def damage(path: Path, how: str) -> None:
    if how == "delete":
        path.unlink()
    elif how == "truncate":
        with open(path, "r+b") as f:
            f.truncate(os.path.getsize(path) // 2)
    else:  # flip one bit in the middle of the file
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0x10
        path.write_bytes(bytes(data))


def _pristine_files() -> list[str]:
    """The files to damage, named the way the pristine fixture lays them out."""
    names = [
        "data/ledger.sqlite", "data/ledger.sqlite-wal", "data/ledger.seal",
        "data/chips/*/bbt.json",
        "data/sim/mlc-64l-seed51/manifest.json",
        "data/sim/mlc-64l-seed51/die0.b*.npz", "data/sim/mlc-64l-seed51/die0.b*.json",
        "data/sim/mlc-64l-seed51/die0.g*.json",
        "runs/k/run.json", "runs/k/run.sqlite", "runs/k/run.sqlite-wal",
        "runs/k/die/manifest.*.json", "runs/k/die/die0.b*.npz", "runs/k/die/die0.b*.json",
        "runs/k/die/die0.g*.json",
        "runs/done/run.json", "runs/done/run.sqlite", "runs/done/measurements.parquet",
    ]
    return names


@pytest.mark.parametrize(
    ("pattern", "how"),
    [
        (pattern, how)
        for pattern in _pristine_files()
        for how in ("truncate", "flip", "delete")
    ],
)
def test_damaged_file_is_named_never_silent(
    pattern: str, how: str, pristine: Path, copy_of: Callable[[], Case]
) -> None:
    matches = sorted(pristine.glob(pattern))
    assert len(matches) == 1, f"{pattern}: {matches} (the pristine tree's layout changed)"
    rel = str(matches[0].relative_to(pristine))
    for command in _readers(rel):
        want = expected(command, copy_of)
        case = copy_of()
        image = _tree_digest(case.root / "data" / "sim")
        damage(case.root / rel, how)
        others = _tree_digest(case.root, but=rel)
        code, answer = case.outcome(command)
        if code == 0:
            assert answer == want, f"{command}: {how} {rel} gave other data, exit 0"
            continue
        assert code in (1, 2), answer
        assert "Traceback" not in answer and answer.startswith("error: ")
        base = Path(rel).name.removesuffix("-wal")
        assert base in answer, f"{command} after {how} {rel}: {answer}"
        # the refused command lost nothing else (SQLite may fold its WAL into the file, a
        # stopped resume notes the stop in run.json, a die opened before the damage was
        # met is saved with the bus time it spent)
        assert _tree_digest(case.root, but=rel) == others
        if "/die/" in rel:  # a damaged checkpoint leaves the chip's image as it was
            assert _tree_digest(case.root / "data" / "sim") == image
            assert case.outcome("read") == (0, expected("read", copy_of))


def test_resume_puts_a_good_checkpoint_over_a_damaged_image(
    pristine: Path, copy_of: Callable[[], Case]
) -> None:
    want = expected("resume", copy_of)
    case = copy_of()
    (manifest,) = (case.root / "data" / "sim").glob("*/manifest.json")
    damage(manifest, "flip")
    code, _, err = case.run(*READ)
    assert code == 2 and "manifest.json" in err and "--fresh" in err
    assert case.outcome("resume") == (0, want)


def _tree_digest(folder: Path, *, but: str = "") -> str:
    """Digest of the files under `folder`, leaving out lock files and, with `but`, that
    file, SQLite's files, run.json and the die image."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        rel = str(path.relative_to(folder))
        skip = but and (
            rel == but
            or ".sqlite" in path.name
            or path.name == "run.json"
            or rel.startswith("data/sim/")
        )
        if path.is_file() and path.name not in ("lock", "run.lock") and not skip:
            digest.update(rel.encode() + path.read_bytes())
    return digest.hexdigest()
