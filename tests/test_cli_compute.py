"""`nandlab compute`: store, run with each supported scheme, compare with the reference."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from click.testing import Result


def test_compute_mcflash_json(run_json: Callable[..., Any]) -> None:
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
    )
    (r,) = doc["runs"]
    assert r["bit_errors"] == 0 and r["plan"]["sensings"] == 1


def test_compute_every_scheme(run_json: Callable[..., Any]) -> None:
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
