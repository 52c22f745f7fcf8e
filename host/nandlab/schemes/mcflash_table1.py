"""The MCFlash paper's Table 1 (shared/papers/mcflash.txt) as gap assignments.

Each row names the page type read and, per reference, the gap between states it is moved
into (plain read) or the gaps of its soft-bit band; `nandlab.schemes.mcflash.McFlash` still
chooses the offsets inside those gaps (`variant="table1"`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Table1Row:
    """A row of the paper's Table 1 as gap assignments (page type, per-reference gaps).

    An edge Table 1 leaves at offset 0 sits in the gap of its own default reference, so the
    planner keeps it there (see `nandlab.schemes.mcflash`).
    """

    kind: str
    page_type: int
    gaps: tuple[Any, ...]
    inverse: bool = False


# The paper's Table 1 for the 4-state Gray code L0 (1,1), L1 (1,0), L2 (0,0), L3 (0,1):
# offsets +dV(Ln) move a reference across state Ln. Gap k sits below state Lk (4 = above L3).
# Soft-bit bands: V- = ref - delta, V+ = ref + delta.
TABLE1: dict[str, Table1Row] = {
    "AND": Table1Row("read", 0, (1,)),  # VREF1 - dV(L1)
    "OR": Table1Row("read", 1, (2, 3)),  # VREF0 + dV(L1), VREF2 0
    # V-: defaults (0, 0), V+: +dV(L1), +dV(L3)
    "XNOR": Table1Row("sbr", 1, ((1, 2), (3, 4))),
    "NOT": Table1Row("read", 1, (3, 4)),  # VREF0 + dV(L1)+dV(L2), VREF2 + dV(L3)
    "NAND": Table1Row("read", 1, (0, 1)),  # VREF0 - dV(L0), VREF2 - (dV(L1)+dV(L2))
    # V+ as XNOR, V-: VREF0 - dV(L0), VREF2 0
    "NOR": Table1Row("sbr", 1, ((0, 2), (3, 4))),
    "XOR": Table1Row("sbr", 1, ((0, 1), (2, 3))),  # V+: 0, 0; V-: -dV(L0), -dV(L2)
    "NAND-inv": Table1Row("read", 0, (1,), True),
    "NOR-inv": Table1Row("read", 1, (2, 3), True),
    "XOR-inv": Table1Row("sbr", 1, ((1, 2), (3, 4)), True),
}
