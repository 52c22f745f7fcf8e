"""A campaign sharded over a local Ray cluster gives the rows and ledger of the same run in
one process, even with a worker killed (SIGKILL) mid-run: the head starts it again from
its shard's last committed die checkpoint, and no row is lost or stored twice. A bench
fault in a worker stops the run as in one process (the unit's partial wear booked), and
`resume` on Ray finishes it. A head killed with SIGKILL leaves no Ray process behind."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from golden.rows import MEASURED  # tests/ is on sys.path: pytest's rootdir conftest
from nandlab.campaign.ray_worker import scratch
from nandlab.campaign.runner import RunStopped, read_meta, resume_run, start_run
from nandlab.dataset.store import RunStore
from nandlab.ledger import Ledger

CAMPAIGN = """\
name: shards
bench: sim://mlc-64l?seed=31&dies=4
fresh: true
seed: 5
chips: [0, 1, 2, 3]
blocks: [200, 201]
steps:
  - cycle: {pec: {sweep: [1, 300]}}
  - program: {wls: 0-1, pattern: random}
  - measure: {what: [rber]}
  - bake: {retention: 1d@30C}
  - measure: {what: [rber]}
"""


def outcome(run_dir: Path) -> dict[str, Any]:
    table = pq.read_table(run_dir / "measurements.parquet")
    columns = [c for c in ("unit", *MEASURED) if c in table.column_names]
    return {"rows": table.select(columns).to_pylist(), "wear": ledger_wear(run_dir)}


def ledger_wear(run_dir: Path) -> dict[int, Any]:
    """The ledger's wear of the run's chips, by chip enable."""
    with Ledger() as book:
        return {ch["ce"]: book.wear(ch["unique_id"]) for ch in read_meta(run_dir)["chips"]}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], int]:
    """The campaign file, and the rows and wear of its run in one process."""
    root = tmp_path_factory.mktemp("one")
    campaign = root / "shards.yaml"
    campaign.write_text(CAMPAIGN)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NANDLAB_DATA_DIR", str(root / "data"))
        one = start_run(campaign, root / "runs", run_id="one")
        return campaign, outcome(one.run_dir), one.units


def test_a_killed_worker_loses_no_row_and_the_rows_equal_one_process(
    reference: tuple[Path, dict[str, Any], int], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from nandlab.campaign.ray_runner import RayUnits

    campaign, want, units = reference
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path / "ray"))
    started = time.time()
    seen: list[tuple[str, int, int]] = []
    result = start_run(
        campaign, tmp_path / "runs", run_id="ray",
        run_units=RayUnits(workers=2, kill_after=4),
        progress=lambda label, done, total, step: seen.append((label, done, total)),
    )
    assert result.status == "complete" and result.units == units
    meta = read_meta(result.run_dir)
    assert meta["ray"]["shards"] == [[0, 2], [1, 3]]
    assert meta["ray"]["restarts"] == 1  # shard 0's worker killed itself in its 4th unit
    got = outcome(result.run_dir)
    keys = {r["unit"] for r in got["rows"]}
    assert len(keys) == len({r["unit"] for r in want["rows"]})  # none lost
    assert got == want  # nor stored twice; the same rows and wear as in one process
    assert len(seen) == units and all(0 < d <= t for _, d, t in seen)  # live progress
    assert not (result.run_dir / "die").exists()
    assert not _left(started)  # the workers' folders, the killed one's too


def test_a_bench_fault_stops_the_run_and_resume_on_ray_finishes_it(
    reference: tuple[Path, dict[str, Any], int], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from nandlab.campaign.ray_runner import RayUnits

    campaign, want, units = reference
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path / "ray"))
    started = time.time()
    with pytest.raises(RunStopped, match="link lost .injected fault.*nandlab resume") as stop:
        start_run(campaign, tmp_path / "runs", run_id="r",
                  run_units=RayUnits(workers=2, fail_after=2))
    run_dir = tmp_path / "runs" / "r"
    meta = read_meta(run_dir)
    assert meta["status"] == "stopped" and "injected fault" in meta["error"]
    done = len(RunStore(run_dir).done())
    assert 0 < done < units
    # shard 1's 2nd unit cycles chip 1's block 201 from 0 to 300 P/E: 299 cycles fast-
    # forwarded, then its first op program (the last, real erase) loses the link. As in one
    # process, the wear the chip went through is booked under the unit's key
    assert stop.value.unit == meta["failed_unit"] == "s00.cycle/ce1/b201/pec=300"
    wear = ledger_wear(run_dir)[1][201]
    assert wear.pec == wear.fast_forwarded_cycles == 299
    # each shard goes on from its last committed checkpoint, as after a head crash
    result = resume_run(run_dir, run_units=RayUnits(workers=2))
    assert result.status == "complete" and result.units_run == units - done
    assert outcome(run_dir) == want  # the retry's wear replaced the stopped attempt's
    assert not _left(started)  # the stopped run's workers removed theirs too


def _left(since: float) -> list[Path]:
    """Workers' folders made since `since`."""
    folder = Path(scratch() or tempfile.gettempdir())
    return [p for p in folder.glob("nandlab-shard*") if p.stat().st_mtime >= since]


HEAD = """\
import sys
from nandlab.campaign.ray_runner import RayUnits
from nandlab.campaign.runner import start_run
start_run(sys.argv[1], sys.argv[2], run_id="head",
          run_units=RayUnits(workers=1),
          progress=lambda *a: print("unit", flush=True))
"""


def _ps() -> dict[int, tuple[int, str, str]]:
    """Every live process (zombies left out): pid -> (parent pid, start time, command
    line), from ps."""
    out = subprocess.run(["ps", "-wweo", "pid=,ppid=,stat=,lstart=,args="],
                         capture_output=True, text=True, check=True).stdout
    procs = {}
    for line in out.splitlines():
        pid, ppid, stat, *rest = line.split(None, 8)
        if not stat.startswith("Z"):
            procs[int(pid)] = (int(ppid), " ".join(rest[:5]), " ".join(rest[5:]))
    return procs


def _tree(root: int) -> dict[int, tuple[str, str]]:
    """`root`'s descendants: pid -> (start time, command line)."""
    procs = _ps()
    found: dict[int, tuple[str, str]] = {}
    todo = [root]
    while todo:
        parent = todo.pop()
        for pid, (ppid, start, args) in procs.items():
            if ppid == parent and pid not in found:
                found[pid] = (start, args)
                todo.append(pid)
    return found


def _alive(procs: dict[int, tuple[str, str]]) -> dict[int, str]:
    """Those of `procs` still running (the same process: the same start time)."""
    now = _ps()
    return {p: args for p, (start, args) in procs.items() if p in now and now[p][1] == start}


def test_a_head_killed_by_sigkill_leaves_no_ray_process(
    reference: tuple[Path, dict[str, Any], int], tmp_path: Path,
) -> None:
    campaign = reference[0]
    env = {**os.environ, "NANDLAB_DATA_DIR": str(tmp_path / "data")}
    head = subprocess.Popen(
        [sys.executable, "-c", HEAD, str(campaign), str(tmp_path / "runs")],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True,
    )
    try:
        assert head.stdout is not None and head.stdout.readline() == "unit\n"
        helpers = _tree(head.pid)
    finally:
        head.kill()
        head.wait()
    # the probe sees Ray's processes, the raylet's agents among them (they outlived a head
    # killed this way before the reaper)
    assert any("raylet" in args for _, args in helpers.values()), helpers
    assert any("Agent" in args for _, args in helpers.values())
    deadline = time.monotonic() + 30
    while _alive(helpers) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _alive(helpers) == {}


def test_ray_options_need_ray(tmp_path: Path) -> None:
    from click.testing import CliRunner
    from nandlab.cli.app import cli

    campaign = tmp_path / "shards.yaml"
    campaign.write_text(CAMPAIGN)
    result = CliRunner().invoke(cli, ["run", "--yes", str(campaign), "--workers", "2"])
    assert result.exit_code == 2 and "--workers and --placement go with --ray" in result.output
    assert not (tmp_path / "runs").exists()
