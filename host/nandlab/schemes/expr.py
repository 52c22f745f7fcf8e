"""Bitwise expressions over named operands: parser and tree.

Grammar (C precedence: ``~`` binds tightest, then ``&``, ``^``, ``|``)::

    expr    := xor ('|' xor)*
    xor     := and ('^' and)*
    and     := unary ('&' unary)*
    unary   := '~' unary | atom
    atom    := NAME | '(' expr ')' | FUNC '(' args ')'
    args    := arg (',' arg)*
    arg     := expr | NAME '..' NAME          (A1..A30: A1, A2, ..., A30)
    FUNC    := AND | OR | XOR | NAND | NOR | XNOR | NOT   (any case)

Names are letters, digits and ``_`` (not starting with a digit). A name
followed by ``(`` is a function. Errors are `ExprError`, which names the
0-based position and shows a caret under it.

The parser is bounded, so any text ends in a tree or an `ExprError`: at most
`MAX_CHARS` characters, `MAX_DEPTH` levels of nesting (parentheses, ``~`` and
functions) and `MAX_OPERANDS` operands, a range counted before it is expanded
(``AND(A1..A999999999999)`` is refused without building a list).

Example::

    parse("(A | B) & ~C")          # And(Or(A, B), Not(C))
    parse("AND(A1..A30)")          # And(A1, ..., A30)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nandlab.errors import UsageError

FUNCTIONS = ("AND", "OR", "XOR", "NAND", "NOR", "XNOR", "NOT")
MAX_CHARS = 4096
MAX_DEPTH = 64
"""Each level costs the recursive-descent parser (and `str`, `variables`) a few frames."""
MAX_OPERANDS = 4096
"""Operand occurrences, ranges expanded: far more than a block holds pages."""


class ExprError(UsageError):
    """A malformed expression: the message names the position and shows it."""

    def __init__(self, text: str, pos: int, message: str) -> None:
        self.text, self.pos = text, pos
        super().__init__(f"expression, position {pos}: {message}\n{text}\n{' ' * pos}^")


@dataclass(frozen=True)
class Var:
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Not:
    arg: Expr

    def __str__(self) -> str:
        return f"~{_wrap(self.arg)}"


@dataclass(frozen=True)
class Op:
    """An n-ary associative operation: kind is "and", "or" or "xor"; len(args) >= 2."""

    kind: str
    args: tuple[Expr, ...]

    def __str__(self) -> str:
        sym = {"and": " & ", "or": " | ", "xor": " ^ "}[self.kind]
        return sym.join(_wrap(a) for a in self.args)


Expr = Var | Not | Op


def _wrap(e: Expr) -> str:
    return f"({e})" if isinstance(e, Op) else str(e)


def variables(e: Expr) -> list[str]:
    """Operand names in order of first appearance."""
    out: list[str] = []

    def walk(x: Expr) -> None:
        if isinstance(x, Var):
            if x.name not in out:
                out.append(x.name)
        elif isinstance(x, Not):
            walk(x.arg)
        else:
            for a in x.args:
                walk(a)

    walk(e)
    return out


def make_op(kind: str, args: list[Expr]) -> Expr:
    """n-ary op with nested ops of the same kind flattened."""
    flat: list[Expr] = []
    for a in args:
        if isinstance(a, Op) and a.kind == kind:
            flat.extend(a.args)
        else:
            flat.append(a)
    return flat[0] if len(flat) == 1 else Op(kind, tuple(flat))


_TOKEN = re.compile(
    r"\s*(?:(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<range>\.\.)|(?P<sym>[&|^~(),])|(?P<bad>\S))"
)
_RANGE_NAME = re.compile(r"^(?P<prefix>.*?)(?P<num>\d+)$")


@dataclass(frozen=True)
class _Tok:
    kind: str  # name, sym, range, end
    text: str
    pos: int


def _tokens(text: str) -> list[_Tok]:
    out: list[_Tok] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:  # only trailing whitespace is left
            break
        kind = m.lastgroup or "bad"
        start = m.start(kind)
        if kind == "bad":
            raise ExprError(text, start, f"unexpected character {m.group(kind)!r}")
        out.append(_Tok(kind, m.group(kind), start))
        pos = m.end()
    out.append(_Tok("end", "", len(text.rstrip()) if text.strip() else 0))
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        if len(text) > MAX_CHARS:
            raise ExprError(text[:40] + "...", 0, f"longer than {MAX_CHARS} characters")
        self.toks = _tokens(text)
        self.i = 0
        self.depth = 0
        self.operands = 0

    def nest(self, tok: _Tok) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(f"nested deeper than {MAX_DEPTH} levels", tok)

    def count(self, n: int, tok: _Tok) -> None:
        self.operands += n
        if self.operands > MAX_OPERANDS:
            raise self.error(f"more than {MAX_OPERANDS} operands", tok)

    @property
    def tok(self) -> _Tok:
        return self.toks[self.i]

    def error(self, message: str, tok: _Tok | None = None) -> ExprError:
        return ExprError(self.text, (tok or self.tok).pos, message)

    def take(self, text: str) -> bool:
        if self.tok.kind == "sym" and self.tok.text == text:
            self.i += 1
            return True
        return False

    def expect(self, text: str, what: str) -> None:
        if not self.take(text):
            found = "the end" if self.tok.kind == "end" else repr(self.tok.text)
            raise self.error(f"expected {what}, found {found}")

    def parse(self) -> Expr:
        if self.tok.kind == "end":
            raise self.error("empty expression: give operands and operators, e.g. A & B")
        e = self.expr()
        if self.tok.kind != "end":
            raise self.error(f"unexpected {self.tok.text!r} (missing an operator?)")
        return e

    def binary(self, sym: str, kind: str, sub: str) -> Expr:
        args = [getattr(self, sub)()]
        while self.take(sym):
            args.append(getattr(self, sub)())
        return make_op(kind, args)

    def expr(self) -> Expr:
        return self.binary("|", "or", "xor_")

    def xor_(self) -> Expr:
        return self.binary("^", "xor", "and_")

    def and_(self) -> Expr:
        return self.binary("&", "and", "unary")

    def unary(self) -> Expr:
        tok = self.tok
        if self.take("~"):
            self.nest(tok)
            e = Not(self.unary())
            self.depth -= 1
            return e
        return self.atom()

    def atom(self) -> Expr:
        tok = self.tok
        if tok.kind == "name":
            self.i += 1
            if self.tok.kind == "sym" and self.tok.text == "(":
                return self.call(tok)
            if self.tok.kind == "range":
                raise self.error(
                    "a range A1..A9 is only allowed inside a function, e.g. AND(A1..A9)"
                )
            self.count(1, tok)
            return Var(tok.text)
        if self.take("("):
            self.nest(tok)
            e = self.expr()
            self.expect(")", "')' to close the '(' opened at position " + str(tok.pos))
            self.depth -= 1
            return e
        if tok.kind == "end":
            raise self.error("expression ends where an operand was expected")
        if tok.kind == "range":
            raise self.error("'..' needs a name on each side, e.g. A1..A30")
        raise self.error(f"expected an operand, '~' or '(', found {tok.text!r}")

    def call(self, name: _Tok) -> Expr:
        func = name.text.upper()
        if func not in FUNCTIONS:
            raise self.error(
                f"unknown function {name.text!r}: allowed {', '.join(FUNCTIONS)}", name
            )
        self.expect("(", "'('")
        self.nest(name)
        args: list[Expr] = []
        while True:
            args.extend(self.arg())
            if self.take(","):
                continue
            self.expect(")", f"',' or ')' in {func}(...)")
            break
        self.depth -= 1
        if func == "NOT":
            if len(args) != 1:
                raise self.error(f"NOT takes one operand, got {len(args)}", name)
            return Not(args[0])
        if len(args) < 2:
            raise self.error(f"{func} takes at least two operands, got {len(args)}", name)
        base = func.removeprefix("N") if func in ("NAND", "NOR") else func
        if func == "XNOR":
            return Not(make_op("xor", args))
        e = make_op(base.lower(), args)
        return Not(e) if func in ("NAND", "NOR") else e

    def arg(self) -> list[Expr]:
        tok = self.tok
        if tok.kind == "name" and self.toks[self.i + 1].kind == "range":
            self.i += 2
            end = self.tok
            if end.kind != "name":
                raise self.error("'..' needs a name after it, e.g. A1..A30")
            self.i += 1
            return [Var(n) for n in self.expand(tok, end)]
        return [self.expr()]

    def expand(self, first: _Tok, last: _Tok) -> list[str]:
        a, b = _RANGE_NAME.match(first.text), _RANGE_NAME.match(last.text)
        if a is None or b is None or a["prefix"] != b["prefix"] or not a["prefix"]:
            raise self.error(
                f"range {first.text}..{last.text}: both ends need the same name prefix and a "
                "number, e.g. A1..A30",
                first,
            )
        lo, hi = int(a["num"]), int(b["num"])
        if hi < lo:
            raise self.error(f"range {first.text}..{last.text} counts down", first)
        self.count(hi - lo + 1, first)
        return [f"{a['prefix']}{k}" for k in range(lo, hi + 1)]


def parse(text: str) -> Expr:
    """Parse `text` into an expression tree; raises ExprError naming the position."""
    return _Parser(text).parse()
