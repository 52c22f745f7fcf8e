"""Paper reproductions: campaign files under characterization/ run by `nandlab run`, their
analysis modules build each table and figure from the run's rows (`nandlab report`).

Each test runs a reduced-size seeded version of a reproduction campaign, then checks the
analysis against the committed full-size rows and report."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pyarrow.parquet as pq
from click.testing import Result

REPO = Path(__file__).resolve().parents[1]
PARABIT = REPO / "characterization" / "parabit"


def load_analysis(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"analysis_{path.parent.name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reduced(campaign: Path, tmp_path: Path, *edits: tuple[str, str]) -> str:
    """The campaign file with `edits` applied and its analysis named by absolute path."""
    text = campaign.read_text()
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    name = text.split("analysis: ")[1].strip()
    text = text.replace(f"analysis: {name}", f"analysis: {campaign.parent / name}")
    path = tmp_path / campaign.name
    path.write_text(text)
    return str(path)


def committed(folder: Path) -> tuple[list[dict], dict]:
    (run,) = sorted((folder / "data").iterdir())
    rows = pq.read_table(run / "measurements.parquet").to_pylist()
    return rows, json.loads((run / "run.json").read_text())


def test_parabit_report_from_a_reduced_run(run: Callable[..., Result], tmp_path: Path) -> None:
    campaign = reduced(
        PARABIT / "parabit.yaml",
        tmp_path,
        ("count: 8", "count: 2"),
        ("wls: 0-31", "wls: 0-7"),
    )
    out = tmp_path / "runs"
    assert run("run", campaign, "--out", str(out), "--run-id", "p").exit_code == 0
    assert run("report", str(out / "p")).exit_code == 0
    lines = (out / "p" / "report.md").read_text().splitlines()
    for op in ("AND", "XOR", "NOT-MSB"):
        assert any(line.startswith(f"| Table 1 | {op} ") and line.endswith("| yes |") for line in lines)
    # recomputed from the raw rows: XOR errors per WL at 5000 P/E, mean and max
    rows = pq.read_table(out / "p" / "measurements.parquet").to_pylist()
    per_wl = [
        r["errors_0to1"] + r["errors_1to0"]
        for r in rows
        if r["operation"] == "compute:XOR" and r["reference"] == "written" and r["pec"] == 5000
    ]
    assert len(per_wl) == 8
    mean = next(line for line in lines if "mean bit errors per 8 KiB WL" in line)
    assert f"(8 WLs) | 0.945 | {sum(per_wl) / len(per_wl):.3f} |" in mean
    top = next(line for line in lines if "max bit errors per 8 KiB WL" in line)
    assert f"| 5 | {max(per_wl)} |" in top
    assert (out / "p" / "plots" / "fig17_xor_errors.png").stat().st_size > 0


def test_parabit_committed_report_is_rebuilt_from_its_rows(tmp_path: Path) -> None:
    rows, meta = committed(PARABIT)
    text, plots = load_analysis(PARABIT / "analysis.py").report(rows, meta, tmp_path)
    assert text == (PARABIT / "report.md").read_text()
    assert [p.name for p in plots] == ["fig17_xor_errors.png"]
    assert "| Fig. 13a | XOR latency, µs (4 sensings) | ~100 | 104.0 | - | yes |" in text
