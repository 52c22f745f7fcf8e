"""`nandlab compute`: store, run with each supported scheme, compare with the reference."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import Result
from nandlab.campaign.export import run_table


def test_compute_mcflash_json(run_json: Callable[..., Any], tmp_path: Path) -> None:
    doc = run_json(
        "compute",
        "sim://mlc-64l?seed=4",
        "--fresh",
        "--store",
        "A=random:1",
        "--store",
        "B=random:2",
        "--expr",
        "A & B",
        "--scheme",
        "mcflash",
        "--yes",
        "--out",
        str(tmp_path),
    )
    (r,) = doc["runs"]
    assert r["bit_errors"] == 0 and r["plan"]["sensings"] == 1
    rows = run_table(doc["run_dir"]).to_pylist()
    (row,) = [x for x in rows if x["operation"] == "expression"]
    assert row["scheme"] == "mcflash" and row["expression"] == "A & B"
    assert row["bits"] == doc["bits"] and row["errors_0to1"] + row["errors_1to0"] == 0
    assert json.loads(row["detail"])["plan"]["ops"] == r["plan"]["ops"]
    ledger = run_json("ledger", "sim://mlc-64l?seed=4")
    assert {"block": 100, "pec": 1, "fast_forwarded_cycles": 0} in ledger["blocks"]


def test_compute_every_scheme(run_json: Callable[..., Any], tmp_path: Path) -> None:
    doc = run_json(
        "compute",
        "sim://mlc-planar?seed=4",
        "--fresh",
        "--store",
        "A=random:1",
        "--store",
        "B=random:2",
        "--store",
        "C=random:3",
        "--expr",
        "(A | B) & ~C",
        "--allow-test-mode",
        "--yes",
        "--out",
        str(tmp_path),
    )
    assert {r["scheme"] for r in doc["runs"]} >= {"mcflash", "parabit"}
    assert all(r["bit_errors"] == 0 for r in doc["runs"] if "error" not in r)


def test_compute_needs_yes_and_names_expression_errors(
    run: Callable[..., Result],
) -> None:
    res = run(
        "compute", "sim://mlc-64l?seed=4", "--store", "A=random:1", "--expr", "A &"
    )
    assert res.exit_code == 2 and "--yes" in res.stderr
    res = run(
        "compute",
        "sim://mlc-64l?seed=4",
        "--store",
        "A=random:1",
        "--expr",
        "A & (",
        "--yes",
    )
    assert res.exit_code == 2 and "position" in res.stderr
