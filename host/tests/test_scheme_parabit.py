"""ParaBit: every sequence of Tables 1-5 / Fig. 5-6 against the truth table, location-free
ops, and bit-exact runs on the virtual planar MLC."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from nandlab.onfi import Chip
from nandlab.schemes.base import PageLoc, Plan
from nandlab.schemes.compute import compute, store_operands
from nandlab.schemes.pairs import OPS, state_outputs
from nandlab.schemes.parabit import SEQUENCES, ParaBit, latch_model, sensings
from nandlab.transport import open_bench


@pytest.fixture(scope="module")
def chip(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chip]:
    state = tmp_path_factory.mktemp("die")
    with open_bench(f"sim://mlc-planar?seed=5&fresh=1&state={state}") as bench:
        yield Chip(bench)


@pytest.mark.parametrize("op", sorted(SEQUENCES))
def test_sequences_match_table1(chip: Chip, op: str) -> None:
    out = latch_model(SEQUENCES[op])["OUT"]
    if op in OPS:
        assert out == state_outputs(chip.profile, OPS[op])
    else:
        page = 0 if op == "NOT-LSB" else 1
        assert out == tuple(1 - g[page] for g in chip.profile.geometry.gray_code)


def test_paper_columns() -> None:
    assert latch_model(SEQUENCES["XOR"][:5])["OUT"] == (0, 0, 0, 1)  # Table 4 row 3
    assert latch_model(SEQUENCES["XNOR"][:4])["A"] == (1, 0, 0, 0)  # Fig. 6 step 1
    assert sensings(SEQUENCES["XNOR"]) == sensings(SEQUENCES["XOR"]) == 4


def test_refused_without_test_mode(chip: Chip) -> None:
    with pytest.raises(Exception, match="allow_test_mode"):
        ParaBit(chip)


def test_truth_table_on_chip_and_latency(chip: Chip) -> None:
    stored = store_operands(chip, {"A": "random:3", "B": "random:4"}, block=30)
    a, b = stored["A"].bits, stored["B"].bits
    pb = ParaBit(chip, allow_test_mode=True)
    want = {
        "AND": a & b,
        "OR": a | b,
        "XNOR": 1 - (a ^ b),
        "NAND": 1 - (a & b),
        "NOR": 1 - (a | b),
        "XOR": a ^ b,
        "NOT-LSB": 1 - a,
        "NOT-MSB": 1 - b,
    }
    for op, w in want.items():
        plan = Plan("parabit", op)
        assert np.array_equal(pb.operation(op, 30, 0, plan), w), op
        if op in ("XOR", "XNOR"):
            assert plan.sensings == 4 and 90 <= plan.latency_us <= 115


def test_location_free(chip: Chip) -> None:
    stored = store_operands(chip, {"M": "random:5", "X": "random:6", "N": "random:7"}, block=32)
    m, n = stored["M"].bits, stored["N"].bits  # M: b32/p0 (LSB), N: b32/p2 (LSB of WL 1)
    pb = ParaBit(chip, allow_test_mode=True)
    msb = PageLoc(32, 1)
    x = stored["X"].bits
    for op, w in (("AND", x & n), ("OR", x | m), ("XOR", x ^ n)):
        plan = Plan("parabit", op)
        second = PageLoc(32, 0) if op == "OR" else PageLoc(32, 2)
        assert np.array_equal(pb.location_free(op, msb, second, plan), w), op
        assert plan.count("program") == 0


def test_expressions_bit_exact(chip: Chip) -> None:
    stored = store_operands(chip, {f"A{i}": f"random:{i}" for i in range(1, 7)}, block=34)
    for text in ("AND(A1..A6)", "(A1 | A2) & ~A3", "A1 ^ A4", "~(A2 | A5)", "A1 & ~A2"):
        rep = compute(
            chip, text, stored, schemes=["parabit"], scratch=[36, 38], allow_test_mode=True
        )
        assert rep.runs[0].bit_errors == 0, text
