"""characterization/sim: the sim_store / sim_search campaign steps and the analysis that
builds the Search-in-Memory report from a run's rows (committed rows, and a reduced run)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pyarrow.parquet as pq
from click.testing import CliRunner

from nandlab.cli.app import cli

SIM = Path(__file__).resolve().parents[2] / "characterization" / "sim"


def _analysis() -> ModuleType:
    spec = importlib.util.spec_from_file_location("analysis_sim", SIM / "analysis.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _rows(run: Path) -> list[dict]:
    return pq.read_table(run / "measurements.parquet").to_pylist()


def test_committed_report_is_rebuilt_from_its_rows(tmp_path: Path) -> None:
    (run,) = sorted((SIM / "data").iterdir())
    meta = json.loads((run / "run.json").read_text())
    text, plots = _analysis().report(_rows(run), meta, tmp_path)
    assert text == (SIM / "report.md").read_text()
    assert [p.name for p in plots] == ["sim_pages.png"]
    assert "| Sec. III | masked searches on error-free pages, slots wrong | 0 (bit-exact) |" in text


def test_reduced_run_reports_every_claim(tmp_path: Path) -> None:
    text = (SIM / "sim.yaml").read_text()
    for old, new in (
        ("count: 4", "count: 2"),
        ("sweep: [1, 20000, 30000, 40000]", "sweep: [1, 40000]"),
        ("pairs: 4", "pairs: 1"),
        ("masks: 8, queries: 4", "masks: 2, queries: 3"),
        ("analysis: analysis.py", f"analysis: {SIM / 'analysis.py'}"),
        # the month inside the margin (where worn pages may answer wrong) is the full run's
        (
            "  - bake: {retention: 1mo@30C}\n"
            "  - sim_search: {masks: 2, queries: 3, allow_test_mode: true}\n"
            "  - sim_search: {masks: 2, queries: 3, threshold: 0, allow_test_mode: true}\n"
            "  - sim_search: {masks: 2, queries: 3, threshold: 0, policy: sample-only, "
            "allow_test_mode: true}\n"
            "  - bake: {retention: 11mo@30C}\n",
            "  - bake: {retention: 1y@30C}\n",
        ),
    ):
        assert old in text
        text = text.replace(old, new)
    campaign = tmp_path / "sim.yaml"
    campaign.write_text(text)
    out = tmp_path / "runs"
    runner = CliRunner()
    ran = runner.invoke(
        cli, ["run", "--yes", str(campaign), "--out", str(out), "--run-id", "s", "--no-progress"]
    )
    assert ran.exit_code == 0, ran.output
    assert runner.invoke(cli, ["report", str(out / "s")]).exit_code == 0
    report = (out / "s" / "report.md").read_text()
    rows = _rows(out / "s")
    # bytes per point query, recomputed from the rows: every in-chip hit of a policy moved
    # the same; t = 2 gathers the key chunk too (68 B more out, 64 B more to the host)
    found = [
        json.loads(r["detail"])
        for r in rows
        if r["operation"] == "sim-search:point"
        and '"path": "chip"' in r["detail"]
        and json.loads(r["detail"])["found"]
    ]
    for t, moved in ((0, (128, 388, 25, 8192)), (2, (192, 456, 33, 8192))):
        mine = [d for d in found if d["threshold"] == t]
        keys = {(d["host"], d["chip_out"], d["chip_in"], d["baseline_chip_out"]) for d in mine}
        assert mine and keys == {moved}, t
    hits = [d for d in found if d["threshold"] == 0]
    assert "| 64.0x | yes |" in report and "| 21.1x | yes |" in report
    assert "| 42.7x, 18.0x | - |" in report
    # busy per in-chip point query: two page-opens (tR 16 us each) and one search (0.3 us)
    busy = [
        r["latency_us"]
        for r in rows
        if r["operation"] == "sim-search:point" and json.loads(r["detail"])["path"] == "chip"
    ]
    # (an absent key: no gather, so one page-open and the search)
    assert busy and all(32.0 <= b <= 33.0 or 16.0 <= b <= 16.5 for b in busy)
    assert any(b > 32.0 for b in busy) and any(b < 17.0 for b in busy)
    assert "0 in " in report.split("Sec. III")[1].splitlines()[0]
    # the worn block after 5 years: its pages have raw errors and the age margin reads them all
    worn = [r for r in rows if r["operation"] == "sim-search:page" and r["pec"] == 40000]
    assert any(r["errors_0to1"] + r["errors_1to0"] > 0 for r in worn)
    default = "default: verification read + age < 4380 h, t = 2"
    line = next(x for x in report.splitlines() if f"read in full ({default})" in x)
    pages, queries = line.split("| - | ")[1].split(" |")[0].split(" pages: ")
    assert int(pages) > 0 and queries.startswith("0 / ")
    assert f"| wrong answers ({default}) | 0 | 0 of " in report
    # every raw-error row says where the threshold's guarantee ends on its page
    page_rows = [json.loads(r["detail"]) for r in rows if r["operation"] == "sim-search:page"]
    assert all(d["slots_over_threshold"] <= 504 for d in page_rows)
    assert any(d["chunks_over_detect"] > 0 for d in page_rows)
    # Table I from the die's supply samples, against the I/O model worked by hand (slc-search:
    # io_mA 6, 10 pF, 2.5 rising edges a byte, VCCQ 1.8 V): SiM at 80 MT/s (12.5 ns a byte),
    # 388 B out at 6 + 10e-12 x 1.8 x 2.5 x 80e6 = 9.6 mA, 25 B in at the static 6 mA;
    # the full reads' 8192 B at 800 MT/s (1.25 ns) at 6 + 36 = 42 mA
    sim_nJ = 1.8 * (388 * 12.5 * 9.6 + 25 * 12.5 * 6.0) / 1000
    full_nJ = 1.8 * 8192 * 1.25 * 42.0 / 1000
    measured = [d for d in hits if "io_nJ" in d]
    assert measured and all(abs(d["io_nJ"] - sim_nJ) < 0.01 for d in measured)
    assert all(abs(d["baseline_io_nJ"] - full_nJ) < 0.01 for d in measured)
    # (the 17 B search data in fills 212.5 ns: its window is 213 one-ns samples)
    assert {(d["io_us"], d["baseline_io_us"]) for d in measured} == {(5.163, 10.24)}
    assert f"| {full_nJ / sim_nJ:.1f}x | no | predicted |" in report
