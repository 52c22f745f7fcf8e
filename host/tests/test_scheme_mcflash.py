"""MCFlash: planner against the Gray code, Table 1 rows, bit-exact runs on fresh cells."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nandlab.onfi import Chip
from nandlab.schemes.base import Plan
from nandlab.schemes.compute import compute, store_operands
from nandlab.schemes.mcflash import ERROR_FREE, OPS, TABLE1, McFlash, state_outputs
from nandlab.transport import open_bench


@pytest.fixture(scope="module")
def chip(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chip]:
    state = tmp_path_factory.mktemp("die")
    with open_bench(f"sim://mlc-64l?seed=21&fresh=1&state={state}") as bench:
        yield Chip(bench)


def test_table1_rows_compute_their_truth_tables(chip: Chip) -> None:
    m = McFlash(chip, variant="table1")
    for op, row in TABLE1.items():
        name = op.removesuffix("-inv")
        want = state_outputs(chip.profile, OPS[name]) if name in OPS else None
        if want is None:
            continue
        r = m.realize(want, row=row)
        assert r.gaps == row.gaps and r.inverse == row.inverse


def test_user_mode_ops_are_error_free_and_nand_needs_inverse(chip: Chip) -> None:
    m = McFlash(chip)
    for op in ("AND", "OR", "XNOR"):
        assert m.realize_op(op).predicted_error <= ERROR_FREE
    assert m.realize_op("AND").sensings == 1
    assert m.realize_op("XNOR").sensings == 4
    for op in ("NAND", "NOR", "XOR"):
        r = m.realize_op(op, inverse=False)
        assert r.predicted_error > 0.01  # a reference would have to pass below L0
        assert r.warnings and "below the erased state L0" in r.warnings[0]
    assert m.realize_not()[0].predicted_error <= ERROR_FREE


def test_nand_without_inverse_read_shows_the_high_error_rate(chip: Chip) -> None:
    st_ops = store_operands(chip, {"A": "random:1", "B": "random:2"}, block=40)
    m = McFlash(chip, variant="table1")
    plan = Plan("mcflash", "NAND")
    bits = m.execute(m.realize_op("NAND", inverse=False), 40, 0, plan)
    want = 1 - (st_ops["A"].bits & st_ops["B"].bits)
    rate = np.count_nonzero(bits != want) / want.size
    assert rate > 0.05
    assert plan.warnings


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    op=st.sampled_from(
        [
            "A & B",
            "A | B",
            "~(A ^ B)",
            "A ^ B",
            "~(A & B)",
            "~(A | B)",
            "~A",
            "~B",
            "A & ~B",
            "(A | B) & ~C",
            "A ^ C",
            "AND(A, B, C, D)",
        ]
    ),
    seeds=st.lists(st.integers(1, 10_000), min_size=4, max_size=4),
    order=st.permutations(["A", "B", "C", "D"]),
)
def test_bit_exact_on_fresh_cells(chip: Chip, op: str, seeds: list[int], order: list[str]) -> None:
    specs = {n: f"random:{s}" for n, s in zip(order, seeds, strict=True)}
    stored = store_operands(chip, specs, block=60)
    rep = compute(chip, op, stored, schemes=["mcflash"], scratch=[62, 64])
    assert rep.runs[0].bit_errors == 0, rep.runs[0].result.plan.to_dict()  # type: ignore[union-attr]
