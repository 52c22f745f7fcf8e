"""characterization/pif: the cox_store / cox_pm campaign steps and the analysis that builds
the CoX-PM report (Fig. 7, Table 2) from a run's rows (committed rows, and a reduced run)."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pyarrow.parquet as pq
from click.testing import CliRunner

from nandlab.campaign.steps.cox_pm import PLANTS, page_text
from nandlab.cli.app import cli

PIF = Path(__file__).resolve().parents[2] / "characterization" / "pif"


def _analysis() -> ModuleType:
    spec = importlib.util.spec_from_file_location("analysis_pif", PIF / "analysis.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _rows(run: Path) -> list[dict]:
    return pq.read_table(run / "measurements.parquet").to_pylist()


def test_page_text_plants_every_third_page() -> None:
    regex = re.compile("|".join(PLANTS).encode())
    texts = [page_text(7, 3, p, 16384) for p in range(6)]
    assert all(len(t) == 16384 for t in texts)
    assert [regex.search(t) is not None for t in texts] == [True, False, False] * 2
    assert page_text(7, 3, 0, 16384) == texts[0] and page_text(8, 3, 0, 16384) != texts[0]


def test_committed_report_is_rebuilt_from_its_rows(tmp_path: Path) -> None:
    (run,) = sorted((PIF / "data").iterdir())
    meta = json.loads((run / "run.json").read_text())
    text, plots = _analysis().report(_rows(run), meta, tmp_path)
    assert text == (PIF / "report.md").read_text()
    assert [p.name for p in plots] == ["pif_fig7.png"]


def test_reduced_run_reports_every_claim(tmp_path: Path) -> None:
    text = (PIF / "pif.yaml").read_text()
    for old, new in (
        ("count: 3", "count: 1"),
        ("sweep: [1, 1000, 2000]", "sweep: [2000]"),
        ("pages: 12", "pages: 3"),
        ("  - bake: {retention: 1mo@30C}\n  - cox_pm: {allow_test_mode: true}\n", ""),
        ("  - bake: {retention: 2mo@30C}\n  - cox_pm: {allow_test_mode: true}\n", ""),
        (
            "  - bake: {retention: 3mo@30C}\n  - cox_pm: {allow_test_mode: true}\n",
            "  - bake: {retention: 6mo@30C}\n",
        ),
        ("analysis: analysis.py", f"analysis: {PIF / 'analysis.py'}"),
    ):
        assert old in text
        text = text.replace(old, new)
    campaign = tmp_path / "pif.yaml"
    campaign.write_text(text)
    out = tmp_path / "runs"
    runner = CliRunner()
    ran = runner.invoke(
        cli, ["run", "--yes", str(campaign), "--out", str(out), "--run-id", "p", "--no-progress"]
    )
    assert ran.exit_code == 0, ran.output
    assert runner.invoke(cli, ["report", str(out / "p")]).exit_code == 0
    report = (out / "p" / "report.md").read_text()
    rows = _rows(out / "p")
    pages = [r for r in rows if r["operation"] == "cox-pm:page"]
    matches = [r for r in rows if r["operation"] == "cox-pm:match"]
    assert len(pages) == len(matches) == 6  # 3 pages fresh and after 12 months
    aged = [json.loads(r["detail"])["codeword_errors"] for r in pages if r["retention_age_h"]]
    assert all(len(e) == 16 for e in aged) and max(max(e) for e in aged) > 72
    paths = {json.loads(r["detail"])["path"] for r in matches}
    assert paths == {"chip", "fallback"}  # fresh pages on the chip, aged ones (some) not
    assert all(r["errors_0to1"] == 0 and r["errors_1to0"] == 0 for r in matches)
    assert "| Table 2 | wrong answers (chip or fallback) / pages scanned |" in report
    assert "| 0 / 6 (0 uncorrectable) | yes |" in report
    assert "| 2K P/E, 12 mo | 48 |" in report
