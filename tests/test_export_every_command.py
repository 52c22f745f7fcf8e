"""Every command that measures leaves a run folder that `export` and `report` take, and
no row is lost on the way: the run store, measurements.parquet, each export format, the
summary and load_run all count the same rows, and measurements.parquet is never rewritten.

Row counts are read independently of nandlab's readers (sqlite3, pyarrow's Parquet
metadata, the csv module, h5py)."""

from __future__ import annotations

import csv
import hashlib
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import h5py
import pyarrow.parquet as pq
import pytest
from nandlab.dataset import load_run

REPO = Path(__file__).resolve().parents[1]
SAMPLES = sorted((REPO / "characterization" / "campaigns").glob("*.yaml"))

COMMANDS: dict[str, list[str]] = {
    "demo": ["demo"],
    "rber": ["rber", "sim://mlc-64l?seed=5", "--block", "9", "--pec", "30", "--yes", "--fresh"],
    "vth": ["vth", "sim://mlc-64l?seed=5", "--block", "8", "--wl", "0", "--yes", "--fresh"],
    "compute": [
        "compute", "sim://mlc-64l?seed=4", "--fresh", "--store", "A=random:1", "--store",
        "B=random:2", "--expr", "A & B", "--scheme", "mcflash", "--yes",
    ],
    **{f"run {p.stem}": ["run", "--yes", str(p)] for p in SAMPLES},
}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _exported_rows(path: Path) -> int:
    if path.suffix == ".parquet":
        return pq.ParquetFile(path).metadata.num_rows
    if path.suffix == ".csv":
        with open(path, newline="") as f:
            return sum(1 for _ in csv.reader(f)) - 1  # the header
    with h5py.File(path, "r") as f:
        return len(f["measurements"]["run_id"])


def test_every_sample_campaign_is_covered() -> None:
    assert len(SAMPLES) >= 4


@pytest.mark.parametrize("name", list(COMMANDS))
def test_export_and_report_keep_every_row(
    name: str, run_json: Callable[..., Any], tmp_path: Path
) -> None:
    out = tmp_path / "runs"
    run_json(*COMMANDS[name], "--out", str(out))
    (run_dir,) = list(out.iterdir())
    with sqlite3.connect(run_dir / "run.sqlite") as db:
        stored = db.execute("SELECT COUNT(*) FROM rows").fetchone()[0]
    assert stored > 0
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["status"] == "complete" and meta["dataset"]["rows"] == stored
    parquet = run_dir / "measurements.parquet"
    assert pq.ParquetFile(parquet).metadata.num_rows == stored
    assert meta["dataset"]["sha256"] == _sha(parquet)
    before = _sha(parquet)

    for fmt in ("parquet", "csv", "hdf5"):
        doc = run_json("export", str(run_dir), "--format", fmt)
        path = Path(doc["path"])
        assert path.parent == run_dir / "export" and doc["rows"] == stored and not doc["partial"]
        assert _exported_rows(path) == stored, fmt
        digest = (path.parent / f"{path.name}.sha256").read_text().split()[0]
        assert digest == _sha(path)
    doc = run_json("report", str(run_dir))
    summary = Path(doc["summary"]).read_text()
    assert f"measurement rows: {stored}" in summary and "status **complete**" in summary

    assert _sha(parquet) == before, "export or report rewrote measurements.parquet"
    assert len(load_run(run_dir)) == stored
