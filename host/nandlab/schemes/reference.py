"""Host-side reference evaluation of a bitwise expression.

Operands are numpy uint8 arrays of equal length holding one bit per element
(0 / 1) or packed bytes; the evaluation is bitwise either way, so the result
has the operands' form. `truth_table` gives a 2-input function's outputs.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from nandlab.errors import UsageError
from nandlab.schemes.expr import Expr, Not, Op, Var, variables


def evaluate(expr: Expr, operands: Mapping[str, np.ndarray], *, bits: bool = True) -> np.ndarray:
    """Value of `expr` with each name bound to an array of bits (or packed bytes if bits=False)."""
    missing = [n for n in variables(expr) if n not in operands]
    if missing:
        raise UsageError(f"no data for operand {', '.join(missing)}")
    sizes = {operands[n].size for n in variables(expr)}
    if len(sizes) > 1:
        raise UsageError(f"operands differ in size: {sorted(sizes)}")
    mask = np.uint8(1 if bits else 0xFF)

    def ev(e: Expr) -> np.ndarray:
        if isinstance(e, Var):
            return np.asarray(operands[e.name], dtype=np.uint8)
        if isinstance(e, Not):
            return ev(e.arg) ^ mask
        vals = [ev(a) for a in e.args]
        out = vals[0].copy()
        for v in vals[1:]:
            if e.kind == "and":
                out &= v
            elif e.kind == "or":
                out |= v
            else:
                out ^= v
        return out

    return ev(expr)


def truth_table(expr: Expr, x: str, y: str) -> tuple[int, int, int, int]:
    """Outputs of `expr` (over names x, y only) for (x, y) = (0,0), (0,1), (1,0), (1,1)."""
    out = []
    for xv in (0, 1):
        for yv in (0, 1):
            ops = {x: np.array([xv], np.uint8), y: np.array([yv], np.uint8)}
            out.append(int(evaluate(expr, ops)[0]))
    return (out[0], out[1], out[2], out[3])


def check_same(a: Op | Expr, b: Expr) -> bool:
    """Whether two expressions are equal as functions (exhaustive, up to 16 names)."""
    names = sorted(set(variables(a)) | set(variables(b)))
    if len(names) > 16:
        raise UsageError("check_same: at most 16 operands")
    n = 1 << len(names)
    idx = np.arange(n)
    ops = {name: ((idx >> k) & 1).astype(np.uint8) for k, name in enumerate(names)}
    return bool(np.array_equal(evaluate(a, ops), evaluate(b, ops)))
