"""Run directories: crash safety of the journal, atomic parquet, resume."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from nandlab.dataset import COLUMNS, RunWriter, new_run_dir, read_journal, read_measurements

ROW = {
    "step": "s1",
    "chip": "abc",
    "ce": 0,
    "block": 3,
    "wl": 1,
    "page": 2,
    "page_type": "LSB",
    "pec": 3000,
    "fast_forwarded": True,
    "retention_age_h": 8760.0,
    "retention_label": "1y@30C",
    "temp_C": 30.0,
    "operation": "rber",
    "offsets": [0, -3, 2],
    "bits": 146688,
    "errors_0to1": 3,
    "errors_1to0": 4,
    "rber": 7 / 146688,
}


def test_rows_survive_without_close(tmp_path: Path):
    writer = RunWriter(tmp_path / "run", {"command": "test"})
    writer.append(ROW)
    writer.append([{**ROW, "wl": 2}, {**ROW, "wl": 3}])
    # no checkpoint, no close: as if the process died here
    assert [r["wl"] for r in read_journal(tmp_path / "run")] == [1, 2, 3]
    assert read_measurements(tmp_path / "run").num_rows == 3
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    assert meta["command"] == "test" and meta["start_utc"] and meta["stop_utc"] is None


def test_parquet_round_trip_with_schema(tmp_path: Path):
    with RunWriter(tmp_path / "run", {"command": "test"}) as writer:
        writer.append(ROW)
        writer.append({"step": "s1", "operation": "read", "latency_us": 40.0, "energy_uJ": 2.9})
    table = pq.read_table(tmp_path / "run" / "measurements.parquet")
    assert table.column_names == list(COLUMNS)
    rows = read_measurements(tmp_path / "run").to_pylist()
    assert rows[0] == {**dict.fromkeys(COLUMNS), **ROW}
    assert rows[1]["latency_us"] == 40.0 and rows[1]["bits"] is None
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    assert meta["stop_utc"] and meta["nandlab_version"]


def test_torn_last_line_is_dropped(tmp_path: Path):
    writer = RunWriter(tmp_path / "run", {})
    writer.append(ROW)
    with open(tmp_path / "run" / "measurements.jsonl", "ab") as f:
        f.write(b'{"step": "s1", "wl": ')
    assert len(read_journal(tmp_path / "run")) == 1


def test_resume_keeps_finished_steps_and_drops_partial_ones(tmp_path: Path):
    run = tmp_path / "run"
    writer = RunWriter(run, {"command": "test"})
    writer.append(ROW)
    writer.checkpoint("s1")
    writer.append({**ROW, "step": "s2", "wl": 9})
    with open(run / "measurements.jsonl", "ab") as f:
        f.write(b'{"step": "s2", "wl"')  # crash mid-write
    again = RunWriter(run, {"command": "test"})
    assert again.is_done("s1") and not again.is_done("s2")
    assert [r["step"] for r in again.rows] == ["s1"]
    again.append({**ROW, "step": "s2", "wl": 9})
    again.close()
    assert [r["step"] for r in read_measurements(run).to_pylist()] == ["s1", "s2"]


def test_checkpoint_replaces_parquet_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    writer = RunWriter(tmp_path / "run", {})
    writer.append(ROW)
    writer.checkpoint()
    replaced = []
    real_replace = os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: (replaced.append((a, b)), real_replace(a, b)))
    writer.append({**ROW, "wl": 5})
    writer.checkpoint()
    assert any(str(b).endswith("measurements.parquet") for _, b in replaced)
    assert read_measurements(tmp_path / "run").num_rows == 2
    assert not list((tmp_path / "run").glob(".*.tmp"))


def test_unknown_column_is_refused(tmp_path: Path):
    writer = RunWriter(tmp_path / "run", {})
    with pytest.raises(ValueError, match="unknown measurement columns"):
        writer.append({"wordline": 3})


def test_new_run_dir_is_unique(tmp_path: Path):
    a, b = new_run_dir(tmp_path, "demo"), new_run_dir(tmp_path, "demo")
    assert a != b and a.is_dir() and b.is_dir() and a.name.startswith("demo-")
