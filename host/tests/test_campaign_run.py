"""Campaign runs: kill -9 then resume gives the rows of an uninterrupted run; bench faults stop
cleanly and resume retries; export round trips; report tables."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from nandlab.bench import Bench
from nandlab.campaign.export import export, read_export, run_table
from nandlab.campaign.report import report
from nandlab.campaign.runner import RunStopped, read_meta, resume_run, run_campaign, start_run
from nandlab.campaign.schema import campaign_text, load_campaign, parse_campaign
from nandlab.dataset.store import RunStore
from nandlab.transport import open_bench
from nandlab.transport.base import Transport

CAMPAIGN = """\
name: small
bench: sim://mlc-64l?seed=21
fresh: true
seed: 9
blocks: [200, 201]
steps:
  - cycle: {pec: {sweep: [1, 500]}}
  - program: {wls: 0-1, pattern: random, scramble: true}
  - measure: {what: [rber, latency], chunk_bytes: 4096, repeats: {sweep: [1, 2, 3, 4]}}
  - bake: {retention: 1y@30C}
  - measure: {what: [rber, power]}
"""


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    path = tmp_path / "small.yaml"
    path.write_text(CAMPAIGN)
    return path


def _rows(run_dir: Path) -> list[dict[str, Any]]:
    store = RunStore(run_dir)
    try:
        return store.rows()
    finally:
        store.close()


def _reference(
    campaign: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> list[dict[str, Any]]:
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path / "ref-data"))
    result = start_run(campaign, tmp_path / "ref", run_id="r")
    assert result.status == "complete"
    return _rows(result.run_dir)


def _committed(run_dir: Path) -> int:
    try:
        db = sqlite3.connect(run_dir / "run.sqlite", timeout=5)
        try:
            return int(db.execute("SELECT COUNT(*) FROM units").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:
        return 0


def test_sigkill_then_resume_gives_identical_rows(
    campaign: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reference = _reference(campaign, tmp_path, monkeypatch)
    data = tmp_path / "kill-data"
    env = {**os.environ, "NANDLAB_DATA_DIR": str(data)}
    run_dir = tmp_path / "runs" / "k"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from nandlab.cli.main import main; main()",
            "run",
            "--yes",
            str(campaign),
            "--out",
            str(tmp_path / "runs"),
            "--run-id",
            "k",
            "--no-progress",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while _committed(run_dir) < 6 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.05)  # land somewhere inside a later unit
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    done = _committed(run_dir)
    assert 6 <= done < 15
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(data))
    result = resume_run(run_dir)
    assert result.status == "complete"
    assert result.units_run == 15 - done
    assert _rows(run_dir) == reference
    assert read_export(run_dir / "measurements.parquet").num_rows == len(reference)


def link_lost_on_open(n: int, after_programs: int) -> Callable[[str], Transport]:
    """An opener whose n-th bench loses its link (the sim bench's fault injector) after
    `after_programs` programs; the runner reopens the bench at every unit boundary."""
    opens = [0]

    def opener(url: str) -> Transport:
        transport = open_bench(url)
        opens[0] += 1
        if opens[0] == n:
            Bench(transport).faults.inject("link_lost", after_programs=after_programs)
        return transport

    return opener


def test_bench_fault_stops_cleanly_and_resume_retries(
    campaign: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reference = _reference(campaign, tmp_path, monkeypatch)
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path / "flaky-data"))
    with pytest.raises(RunStopped) as info:
        start_run(campaign, tmp_path / "runs", run_id="f", opener=link_lost_on_open(5, 3))
    run_dir = tmp_path / "runs" / "f"
    meta = read_meta(run_dir)
    assert meta["status"] == "stopped"
    assert meta["failed_unit"] == info.value.unit
    assert info.value.unit in str(info.value) and "nandlab resume" in str(info.value)
    assert "link lost (injected fault)" in meta["error"]
    assert "bench_on_resume" not in meta
    assert info.value.unit not in {r["unit"] for r in _rows(run_dir)}
    result = resume_run(run_dir)
    assert result.status == "complete"
    assert _rows(run_dir) == reference
    (snap,) = read_meta(run_dir)["bench_on_resume"]
    assert snap["url"] == meta["bench_url"] and snap["die_image"] == "loaded"


def test_export_round_trips_and_report(campaign: Path, tmp_path: Path) -> None:
    result = start_run(campaign, tmp_path / "runs", run_id="e")
    table = run_table(result.run_dir)
    assert table.num_rows > 0
    for fmt in ("parquet", "csv", "hdf5"):
        path = export(result.run_dir, fmt, tmp_path / f"out.{ {'hdf5': 'h5'}.get(fmt, fmt) }").path
        assert read_export(path).equals(table), fmt
    summary, plots = report(result.run_dir)
    text = summary.read_text()
    assert "## RBER by condition" in text
    assert "| 0 in " in text and " bits |" in text
    assert "## Latency and energy by operation" in text and "measured" in text
    names = {p.name for p in plots}
    assert {"rber_vs_pec.png", "rber_vs_retention.png", "latency.png", "energy.png"} <= names
    assert all(p.stat().st_size > 1000 for p in plots)
    rows = table.to_pylist()
    assert any(r["operation"] == "rber_chunk" for r in rows)
    assert any(r["fast_forwarded"] for r in rows if r["pec"] == 500)
    assert not (result.run_dir / "die").exists()


def test_in_memory_campaign_runs_like_its_file(
    campaign: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reference = _reference(campaign, tmp_path, monkeypatch)
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path / "memory-data"))
    model = load_campaign(campaign).campaign
    assert parse_campaign(campaign_text(model), "<text>").campaign == model
    seen: list[tuple[str, int, int, int]] = []
    result = run_campaign(
        model, tmp_path / "runs", run_id="m", on_progress=lambda *a: seen.append(a)
    )
    assert result.status == "complete" and result.units == result.units_run == 15
    assert result.rows() == reference
    assert seen[-1] == ("step 5 measure", 2, 2, 4)
    meta = read_meta(result.run_dir)
    assert meta["campaign_file"] == "<small>" and meta["command"] == "nandlab run <small>"
    snap = meta["bench"]
    assert meta["bench_url"] == "sim://mlc-64l?seed=21"
    assert snap["url"] == "sim://mlc-64l?seed=21&fresh=1"  # as opened at the start
    assert snap["transport"] == "sim" and snap["profile"] == "mlc-64l" and snap["seed"] == 21
    assert snap["roles"] == ["power", "clock", "faults", "wear", "oven"]
    assert snap["die_image"] == "fresh (image discarded)"
    assert resume_run(result.run_dir).status == "complete"


def test_full_disk_stops_cleanly_and_resume_completes(
    campaign: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    reference = _reference(campaign, tmp_path, monkeypatch)
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path / "full-data"))
    commit = RunStore.commit_unit
    calls = [0]

    def filling(self: RunStore, *args: Any, **kwargs: Any) -> None:
        calls[0] += 1
        if calls[0] == 4:  # the disk fills up while the fourth unit's rows are stored
            raise OSError(errno.ENOSPC, "No space left on device")
        commit(self, *args, **kwargs)

    monkeypatch.setattr(RunStore, "commit_unit", filling)
    with pytest.raises(RunStopped) as info:
        start_run(campaign, tmp_path / "runs", run_id="d")
    assert "the disk is full" in str(info.value) and "nandlab resume" in str(info.value)
    run_dir = tmp_path / "runs" / "d"
    meta = read_meta(run_dir)
    assert meta["status"] == "stopped" and meta["error"].startswith("the disk is full")
    assert len({r["unit"] for r in _rows(run_dir)}) == 3
    monkeypatch.setattr(RunStore, "commit_unit", commit)  # space freed
    assert resume_run(run_dir).status == "complete"
    assert _rows(run_dir) == reference
