"""`nandlab search`: both in-chip searches end to end as one-off campaigns (rows with the path,
busy time, energy and wrong answers), and the refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from nandlab.cli.app import cli


def _search(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> dict:
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path / "data"))
    out = tmp_path / "runs"
    ran = CliRunner().invoke(cli, ["search", *args, "--out", str(out), "--fresh", "--json"])
    assert ran.exit_code == 0, ran.output
    return json.loads(ran.output[ran.output.index("{") :])


def test_cox_pm_search(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = _search(
        tmp_path, monkeypatch, "sim://tlc-coxpm?seed=2", "--scheme", "cox-pm", "--count", "3",
        "--pattern", "special requests", "--pattern", "green almond", "--pattern",
        "PROMO BRUSHED", "--allow-test-mode", "--yes",
    )  # fmt: skip
    matches = [r for r in doc["rows"] if r["operation"] == "cox-pm:match"]
    # page 0 holds a planted string (every third page does), pages 1 and 2 none
    assert [(r["page"], r["path"], r["answer"]) for r in matches] == [
        (0, "chip", "match"), (1, "chip", "no match"), (2, "chip", "no match"),
    ]  # fmt: skip
    assert all(r["bit errors"] == 0 for r in doc["rows"])
    # cache form: page n's answer comes with page n + 1's sensing (tR 40 / 45 / 40 us for
    # pages 0 / 1 / 2, the 40 us decode hidden); page 0 also carries the first sensing
    assert [r["latency_us"] for r in matches] == [40.0 + 45.0, 40.0, 40.0]
    assert Path(doc["run_dir"], "measurements.parquet").is_file()


def test_sim_search(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = _search(
        tmp_path, monkeypatch, "sim://slc-search?seed=2", "--scheme", "sim-search",
        "--count", "1", "--masks", "1", "--queries", "2", "--threshold", "0",
        "--allow-test-mode", "--yes",
    )  # fmt: skip
    ops = [r["operation"] for r in doc["rows"]]
    assert ops == ["sim-search:page", "sim-search:mask", "sim-search:point", "sim-search:point"]
    assert all(r["bit errors"] == 0 and r["path"] in ("-", "chip") for r in doc["rows"])
    rows = pq.read_table(Path(doc["run_dir"], "measurements.parquet")).to_pylist()
    queries = [r for r in rows if r["operation"].startswith("sim-search:")]
    assert queries and {json.loads(r["detail"])["threshold"] for r in queries} == {0}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["sim://tlc-coxpm", "--scheme", "cox-pm"], "add --yes"),
        (["sim://tlc-coxpm", "--scheme", "cox-pm", "--pattern", "x" * 33, "--yes"], "33 bytes"),
        (["sim://slc-search", "--scheme", "sim-search", "--single", "--yes"], "cox-pm options"),
        (["sim://tlc-coxpm", "--scheme", "cox-pm", "--threshold", "1", "--yes"], "sim-search op"),
        (["sim://slc-search", "--scheme", "sim-search", "--threshold", "64", "--yes"], "0<=x<=63"),
        # a plain part on a bench without the read-stream kernel: refused before the erase
        (["sim://tlc-48l", "--scheme", "cox-pm", "--yes"], "cannot do 'fpga_coxpm'"),
    ],
)
def test_refusals(
    args: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path / "data"))
    ran = CliRunner().invoke(
        cli, ["search", *args, "--allow-test-mode", "--out", str(tmp_path / "runs"), "--fresh"]
    )
    assert ran.exit_code != 0 and message in ran.output, ran.output
    assert not list(tmp_path.glob("runs/*/run.json")), "a refused search made a run"


@pytest.mark.parametrize(
    "args",
    [
        ["sim://tlc-coxpm", "--scheme", "cox-pm", "--yes"],
        ["sim://slc-search", "--scheme", "sim-search", "--yes"],
        ["sim://slc-search", "--scheme", "sim-search", "--dry-run"],
    ],
)
def test_vendor_commands_need_the_test_mode_permit(
    args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --allow-test-mode: refused like an unconfirmed write (exit 2), nothing run,
    no die image written."""
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path / "data"))
    ran = CliRunner().invoke(cli, ["search", *args, "--out", str(tmp_path / "runs")])
    assert ran.exit_code == 2, ran.output
    assert "add --allow-test-mode" in ran.output
    assert not list(tmp_path.glob("runs/*")) and not list(tmp_path.glob("data/**/*.npz"))


@pytest.mark.parametrize("scheme", ["cox-pm", "sim-search"])
def test_compute_points_a_search_scheme_to_nandlab_search(
    scheme: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path / "data"))
    args = ["compute", "sim://tlc-coxpm", "--expr", "A & B", "--scheme", scheme, "--yes"]
    ran = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "runs"), "--fresh"])
    assert ran.exit_code != 0 and f"use nandlab search URL --scheme {scheme}" in ran.output
    assert not list(tmp_path.glob("runs/*/run.json"))
