"""`nandlab run / resume / report / export / ledger`: outputs and exit codes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

CAMPAIGN = """\
name: cli
bench: sim://mlc-64l?seed=41
fresh: true
seed: 2
blocks: [90, 91]
steps:
  - cycle: {pec: {sweep: [1, 200]}}
  - program: {wls: 0-1}
  - measure: {what: [rber, latency]}
"""


def _file(tmp_path: Path, text: str = CAMPAIGN) -> str:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    return str(path)


def test_run_report_export_ledger(run: Callable[..., Result], tmp_path: Path) -> None:
    out = tmp_path / "runs"
    result = run("run", "--yes", _file(tmp_path), "--out", str(out), "--run-id", "x", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["status"] == "complete" and doc["units"] == 6
    run_dir = out / "x"
    assert (run_dir / "measurements.parquet").is_file()
    assert run("resume", "--yes", str(run_dir)).exit_code == 0
    result = run("report", str(run_dir))
    assert result.exit_code == 0, result.output
    assert "0 in " in (run_dir / "summary.md").read_text()
    for fmt in ("parquet", "csv", "hdf5"):
        result = run("export", str(run_dir), "--format", fmt, "--json")
        assert result.exit_code == 0, result.output
        assert Path(json.loads(result.stdout)["path"]).is_file()
    result = run("ledger", "sim://mlc-64l?seed=41", "--json")
    assert result.exit_code == 0, result.output
    ledger = json.loads(result.stdout)
    assert {b["block"]: b["pec"] for b in ledger["blocks"]} == {90: 1, 91: 200}
    assert ledger["runs"][0]["run_id"] == "x"
    assert run("ledger", ledger["chip"]).exit_code == 0
    # the same run id again: the folder holds a run
    result = run("run", "--yes", _file(tmp_path), "--out", str(out), "--run-id", "x")
    assert result.exit_code == 2
    assert "already holds another run" in result.stderr
    result = run("run", "--yes", _file(tmp_path), "--out", str(run_dir))
    assert result.exit_code == 2 and "is itself a run directory" in result.stderr


def test_usage_errors_exit_2_and_leave_nothing(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    out = tmp_path / "runs"
    bad = CAMPAIGN.replace(
        "  - measure: {what: [rber, latency]}", "  - meassure: {what: rber}"
    )
    result = run("run", "--yes", _file(tmp_path, bad), "--out", str(out))
    assert result.exit_code == 2
    assert "c.yaml:9: steps[2].meassure: unknown step kind" in result.stderr
    contradictory = CAMPAIGN.replace("  - program: {wls: 0-1}\n", "")
    result = run("run", "--yes", _file(tmp_path, contradictory), "--out", str(out))
    assert result.exit_code == 2 and "add a program step first" in result.stderr
    too_many = CAMPAIGN.replace("seed: 2", "seed: 2\nmax_units: 3")
    result = run("run", "--yes", _file(tmp_path, too_many), "--out", str(out))
    assert result.exit_code == 2 and "max_units=3" in result.stderr
    assert not out.exists() or not any(out.iterdir())
    assert run("resume", "--yes", str(tmp_path)).exit_code == 2
    assert run("export", str(tmp_path), "--format", "xls").exit_code == 2
    assert run("ledger", "not-a-chip!").exit_code == 2
