"""Flash-Cosmos as a Scheme: expressions lowered onto MWS, bit-exact on fresh cells."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nandlab.onfi import Chip
from nandlab.schemes.compute import compute, store_operands
from nandlab.schemes.expr import Not, Op, Var
from nandlab.transport.sim import SimTransport

NAMES = ["A", "B", "C", "D"]
exprs = st.recursive(
    st.sampled_from(NAMES).map(Var),
    lambda sub: st.one_of(
        sub.map(Not),
        st.tuples(st.sampled_from(["and", "or", "xor"]), st.lists(sub, min_size=2, max_size=3)).map(
            lambda t: Op(t[0], tuple(t[1]))
        ),
    ),
    max_leaves=6,
)


@pytest.fixture(scope="module")
def chip() -> Chip:
    bench = SimTransport("tlc-48l", seed=9, persist=False)
    chip = Chip(bench)
    chip.identify()
    return chip


@pytest.mark.parametrize("layout", ["flashcosmos", "mcflash"])
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(e=exprs, seeds=st.lists(st.integers(1, 1000), min_size=4, max_size=4))
def test_bit_exact_against_the_host(chip: Chip, layout: str, e: Op, seeds: list[int]) -> None:
    """Any expression, operands stored in Flash-Cosmos' SLC layout or as native TLC pages
    (which the scheme moves into ESP-programmed SLC WLs first)."""
    specs = {n: f"random:{s}" for n, s in zip(NAMES, seeds, strict=True)}
    stored = store_operands(chip, specs, block=100, scheme=layout)
    report = compute(
        chip,
        str(e),
        stored,
        schemes=["flashcosmos"],
        scratch=[200, 202, 204, 206],
        allow_test_mode=True,
    )
    (run,) = report.runs
    assert run.bit_errors == 0, (str(e), run.result.plan.to_dict() if run.result else run.error)
    assert run.result is not None and run.result.plan.sensings >= 1


def test_sum_of_products_is_one_mws(chip: Chip) -> None:
    """Equation (1): products in different strings, one MWS command for the whole sum."""
    # WLs 0 and 4 share sub-block 0 (one string), WLs 1 and 5 share sub-block 1
    specs = {n: f"random:{i + 1}" for i, n in enumerate(NAMES)}
    stored = store_operands(chip, specs, block=100, scheme="flashcosmos")
    from nandlab.schemes.base import PageLoc
    from nandlab.schemes.compute import StoredOperand

    moved = {
        "A": stored["A"],
        "B": stored["B"],
        "C": StoredOperand("C", PageLoc(102, 1, True), stored["C"].bits),
        "D": StoredOperand("D", PageLoc(102, 5, True), stored["D"].bits),
    }
    chip.erase_block(102)
    from nandlab.schemes.flashcosmos import FlashCosmos

    fc = FlashCosmos(chip, allow_test_mode=True)
    for name, wl in (("C", 1), ("D", 5)):  # ESP, as the layout stores operands
        fc.store(102, wl, np.packbits(moved[name].bits, bitorder="little").tobytes())
    fc.tm.clear_esp()
    report = compute(
        chip,
        "(A & B) | (C & D)",
        moved,
        schemes=["flashcosmos"],
        scratch=[200],
        allow_test_mode=True,
    )
    (run,) = report.runs
    assert run.bit_errors == 0 and run.result is not None
    assert [op.kind for op in run.result.plan.ops] == ["mws"]
