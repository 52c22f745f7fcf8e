"""Expression parser: precedence, functions, ranges, errors naming the position."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nandlab.schemes.expr import ExprError, Not, Op, Var, parse, variables
from nandlab.schemes.reference import check_same, evaluate, truth_table


def test_precedence() -> None:
    assert parse("A | B & ~C ^ D") == Op(
        "or", (Var("A"), Op("xor", (Op("and", (Var("B"), Not(Var("C")))), Var("D"))))
    )


def test_functions_and_ranges() -> None:
    e = parse("AND(A1..A30)")
    assert isinstance(e, Op) and e.kind == "and" and len(e.args) == 30
    assert variables(e)[-1] == "A30"
    assert check_same(parse("NAND(A, B)"), parse("~(A & B)"))
    assert check_same(parse("xnor(A, B, C)"), parse("~(A ^ B ^ C)"))
    assert check_same(parse("NOR(A, OR(B, C))"), parse("~(A | B | C)"))
    assert truth_table(parse("A & ~B"), "A", "B") == (0, 0, 1, 0)


@pytest.mark.parametrize(
    ("text", "pos", "words"),
    [
        ("A & (B", 6, "expected ')'"),
        ("A & & B", 4, "expected an operand"),
        ("A $ B", 2, "unexpected character"),
        ("", 0, "empty expression"),
        ("FOO(A, B)", 0, "unknown function"),
        ("AND(A1..B3)", 4, "same name prefix"),
        ("A B", 2, "missing an operator"),
        ("NOT(A, B)", 0, "NOT takes one operand"),
    ],
)
def test_errors_name_the_position(text: str, pos: int, words: str) -> None:
    with pytest.raises(ExprError) as exc:
        parse(text)
    assert exc.value.pos == pos
    assert words in str(exc.value)


names = st.sampled_from(["A", "B", "C", "D"])
exprs = st.recursive(
    names.map(Var),
    lambda sub: st.one_of(
        sub.map(Not),
        st.tuples(st.sampled_from(["and", "or", "xor"]), st.lists(sub, min_size=2, max_size=3)).map(
            lambda t: Op(t[0], tuple(t[1]))
        ),
    ),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None)
@given(exprs)
def test_printed_expression_parses_back_to_the_same_function(e: Op) -> None:
    assert check_same(parse(str(e)), e)


def test_reference_on_bits_and_bytes() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 2, 64, dtype=np.uint8), rng.integers(0, 2, 64, dtype=np.uint8)
    assert np.array_equal(evaluate(parse("(A | B) & ~A"), {"A": a, "B": b}), (1 - a) & b)
    pa, pb = np.packbits(a), np.packbits(b)
    out = evaluate(parse("A ^ ~B"), {"A": pa, "B": pb}, bits=False)
    assert np.array_equal(np.unpackbits(out), 1 - (a ^ b))
