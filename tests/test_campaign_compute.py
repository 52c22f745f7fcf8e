"""`compute` campaign steps: in-flash operations measured against the data written."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
from click.testing import Result

CAMPAIGN = """\
name: compute
bench: sim://mlc-planar?seed=4
fresh: true
allow_test_mode: true
seed: 3
blocks: [40, 41]
steps:
  - cycle: {pec: {sweep: [1, 10000]}, pattern: random}
  - program: {wls: 0-1, pattern: random}
  - compute:
      scheme: parabit
      ops: [AND, XOR, "(A | B) & ~A"]
      scratch: [60]
      allow_test_mode: true
      against_reads: true
"""


def _file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    return str(path)


def test_compute_rows_errors_and_report(run: Callable[..., Result], tmp_path: Path) -> None:
    out = tmp_path / "runs"
    result = run("run", "--yes", _file(tmp_path, CAMPAIGN), "--out", str(out), "--run-id", "c")
    assert result.exit_code == 0, result.output
    rows = pq.read_table(out / "c" / "measurements.parquet").to_pylist()
    compute = [r for r in rows if r["scheme"] == "parabit"]
    # 2 blocks x 2 WLs x 3 operations, each against the data written and the plain reads
    assert len(compute) == 24
    assert {r["operation"] for r in compute} == {
        "compute:AND",
        "compute:XOR",
        "compute:(A | B) & ~A",
    }
    assert all(r["bits"] == 8192 * 8 for r in compute)
    assert {r["sensings"] for r in compute if r["operation"] == "compute:AND"} == {1}
    assert {r["sensings"] for r in compute if r["operation"] == "compute:XOR"} == {4}
    written = [r for r in compute if r["reference"] == "written"]
    logic = [r for r in compute if r["reference"] == "read"]
    # worn cells fail: the operation's error rate against the data written is not zero at
    # 10K P/E cycles; on fresh cells the latch logic on what the cells hold is exact
    # (worn ones are not: each sensing draws its own telegraph noise)
    worn = [r for r in written if r["pec"] == 10000]
    assert sum(r["errors_0to1"] + r["errors_1to0"] for r in worn) > 0
    fresh = [r for r in logic if r["pec"] == 1]
    assert len(fresh) == 6 and sum(r["errors_0to1"] + r["errors_1to0"] for r in fresh) == 0
    assert run("report", str(out / "c")).exit_code == 0
    summary = (out / "c" / "summary.md").read_text()
    assert "## In-flash operations" in summary and "| parabit | XOR |" in summary
    assert (out / "c" / "plots" / "compute_latency.png").is_file()
    # the scratch block the scheme erased for ~A is in the chip ledger, one erase per use
    ledger = run("ledger", "sim://mlc-planar?seed=4", "--json")
    blocks = {b["block"]: b["pec"] for b in json.loads(ledger.stdout)["blocks"]}
    assert blocks[60] == 4 and blocks[41] == 10000


def test_compute_bad_input_names_the_problem(run: Callable[..., Result], tmp_path: Path) -> None:
    bad_scheme = CAMPAIGN.replace("scheme: parabit", "scheme: parabits")
    result = run("run", "--yes", _file(tmp_path, bad_scheme), "--out", str(tmp_path / "r"))
    assert result.exit_code == 2
    assert "scheme 'parabits' is unknown" in result.stderr and "parabit" in result.stderr
    assert "c.yaml:" in result.stderr
    bad_op = CAMPAIGN.replace("[AND, XOR,", "[AND, C & A,")
    result = run("run", "--yes", _file(tmp_path, bad_op), "--out", str(tmp_path / "r"))
    assert result.exit_code == 2 and "operands C are not in the pair layout" in result.stderr
    slc = CAMPAIGN.replace("pattern: random}\n  - compute", "pattern: random, mode: slc}\n  - compute")
    slc = slc.replace("{pec: {sweep: [1, 10000]}, pattern: random}", "{pec: 1, mode: slc}")
    result = run("run", "--yes", _file(tmp_path, slc), "--out", str(tmp_path / "r"))
    assert result.exit_code == 2 and "use layout: wordlines" in result.stderr
    assert not (tmp_path / "r").exists() or not any((tmp_path / "r").iterdir())
    overlap = CAMPAIGN.replace("scratch: [60]", "scratch: [41]")
    result = run("run", "--yes", _file(tmp_path, overlap), "--out", str(tmp_path / "r"))
    assert result.exit_code == 2 and "scratch block 41 is one of the campaign's blocks" in (
        result.stderr
    )
