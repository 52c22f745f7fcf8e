"""A campaign sharded over a local Ray cluster gives the rows and ledger of the same run in
one process, even with a worker killed (SIGKILL) mid-run: the head starts it again from
its shard's last committed die checkpoint, and no row is lost or stored twice. A bench
fault in a worker stops the run as in one process, and `resume` on Ray finishes it."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from golden.rows import MEASURED  # tests/ is on sys.path: pytest's rootdir conftest
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
    rows = table.select(columns).to_pylist()
    with Ledger() as book:
        wear = {ch["ce"]: book.wear(ch["unique_id"]) for ch in read_meta(run_dir)["chips"]}
    return {"rows": rows, "wear": wear}


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
    left = [p for p in Path(tempfile.gettempdir()).glob("nandlab-shard*")
            if p.stat().st_mtime >= started]
    assert not left  # the workers' folders, the killed one's too


def test_a_bench_fault_stops_the_run_and_resume_on_ray_finishes_it(
    reference: tuple[Path, dict[str, Any], int], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from nandlab.campaign.ray_runner import RayUnits

    campaign, want, units = reference
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path / "ray"))
    started = time.time()
    with pytest.raises(RunStopped, match="link lost .injected fault.*nandlab resume"):
        start_run(campaign, tmp_path / "runs", run_id="r",
                  run_units=RayUnits(workers=2, fail_after=5))
    run_dir = tmp_path / "runs" / "r"
    meta = read_meta(run_dir)
    assert meta["status"] == "stopped" and "injected fault" in meta["error"]
    done = len(RunStore(run_dir).done())
    assert 0 < done < units
    # each shard goes on from its last committed checkpoint, as after a head crash
    result = resume_run(run_dir, run_units=RayUnits(workers=2))
    assert result.status == "complete" and result.units_run == units - done
    assert outcome(run_dir) == want
    left = [p for p in Path(tempfile.gettempdir()).glob("nandlab-shard*")
            if p.stat().st_mtime >= started]
    assert not left  # the stopped run's workers removed theirs too


def test_ray_options_need_ray(tmp_path: Path) -> None:
    from click.testing import CliRunner
    from nandlab.cli.app import cli

    campaign = tmp_path / "shards.yaml"
    campaign.write_text(CAMPAIGN)
    result = CliRunner().invoke(cli, ["run", "--yes", str(campaign), "--workers", "2"])
    assert result.exit_code == 2 and "--workers and --placement go with --ray" in result.output
    assert not (tmp_path / "runs").exists()
