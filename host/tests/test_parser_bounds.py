"""The parsers' bounds sit where their docs say: just inside is accepted, just outside is the
layer's typed error naming the bound (nandlab.yamlfile, nandlab.schemes.expr)."""

from __future__ import annotations

import pytest

from nandlab.errors import UsageError
from nandlab.schemes.expr import MAX_DEPTH, MAX_OPERANDS, ExprError, parse, variables
from nandlab.yamlfile import (
    MAX_ALIASES,
    MAX_NODES,
    MAX_TEXT_BYTES,
    compose_bounded,
    construct,
    decode_text,
    read_text_file,
    safe_loader,
)
from nandlab.yamlfile import (
    MAX_DEPTH as YAML_DEPTH,
)


def _load(text: str) -> object:
    node = compose_bounded(text, "t.yaml", UsageError)
    assert node is not None
    return construct(node, "t.yaml", UsageError, safe_loader())


def test_yaml_nesting_bound() -> None:
    assert _load("[" * YAML_DEPTH + "]" * YAML_DEPTH) is not None
    with pytest.raises(UsageError, match=rf"t.yaml:1: nested deeper than {YAML_DEPTH}"):
        _load("[" * (YAML_DEPTH + 1) + "]" * (YAML_DEPTH + 1))


def test_yaml_alias_count_bound() -> None:
    ok = "a: &a 1\nb: [" + ", ".join(["*a"] * MAX_ALIASES) + "]\n"
    assert len(_load(ok)["b"]) == MAX_ALIASES  # type: ignore[index]
    with pytest.raises(UsageError, match=f"more than {MAX_ALIASES} aliases"):
        _load(ok.replace("]", ", *a]"))


def test_yaml_expansion_bound_counts_values_once_aliases_expand() -> None:
    # values: the root mapping, 2 keys, list a (1 + 1000), list b (1 + k * 1001)
    a = "a: &a [" + ", ".join(["0"] * 1000) + "]\n"
    k = (MAX_NODES - 1005) // 1001
    assert len(_load(a + "b: [" + ", ".join(["*a"] * k) + "]\n")["b"]) == k  # type: ignore[index]
    with pytest.raises(UsageError, match=f"expand to more than {MAX_NODES} values"):
        _load(a + "b: [" + ", ".join(["*a"] * (k + 1)) + "]\n")


def test_yaml_self_reference_and_huge_integer_are_refused() -> None:
    with pytest.raises(UsageError, match="t.yaml:1: an anchor refers to itself"):
        _load("a: &a {b: *a}\n")
    with pytest.raises(UsageError, match="value cannot be read"):
        _load("a: " + "9" * 5000 + "\n")


def test_text_files_are_bounded_and_utf8(tmp_path: object) -> None:
    from pathlib import Path

    folder = Path(str(tmp_path))
    (folder / "ok.yaml").write_bytes(b"x" * MAX_TEXT_BYTES)
    assert len(read_text_file(folder / "ok.yaml", "file", UsageError)) == MAX_TEXT_BYTES
    (folder / "big.yaml").write_bytes(b"x" * (MAX_TEXT_BYTES + 1))
    with pytest.raises(UsageError, match="larger than"):
        read_text_file(folder / "big.yaml", "file", UsageError)
    with pytest.raises(UsageError, match=r"byte 3 is 0xe9"):
        decode_text(b"caf\xe9", "f", UsageError)


def test_expression_depth_bound() -> None:
    assert parse("(" * MAX_DEPTH + "A" + ")" * MAX_DEPTH) == parse("A")
    with pytest.raises(ExprError, match=f"nested deeper than {MAX_DEPTH}"):
        parse("(" * (MAX_DEPTH + 1) + "A" + ")" * (MAX_DEPTH + 1))
    with pytest.raises(ExprError, match=f"nested deeper than {MAX_DEPTH}"):
        parse("~" * (MAX_DEPTH + 1) + "A")


def test_expression_operand_bound_counts_a_range_before_building_it() -> None:
    assert len(variables(parse(f"AND(A1..A{MAX_OPERANDS})"))) == MAX_OPERANDS
    with pytest.raises(ExprError, match=f"more than {MAX_OPERANDS} operands"):
        parse(f"AND(A1..A{MAX_OPERANDS}, B)")
    with pytest.raises(ExprError, match=f"more than {MAX_OPERANDS} operands"):
        parse("AND(A1..A999999999999)")
