"""Power-measured sequences: an operation with its array busy period inside a POWER window.

POWER start goes right before the tWB delay that precedes the first WAIT_RDY
and POWER stop right after that WAIT_RDY, so the window covers the array's
busy time (plus tWB), not the command, address or data transfers.
"""

from __future__ import annotations

from nandlab.errors import OpProgramError
from nandlab.ops import Delay, Power, Program, WaitRdy


def measured(program: Program, period_ns: int) -> Program:
    """`program` with a POWER window (a sample every `period_ns` ns) around its first busy.

    Raises OpProgramError when the program has no tWB delay + WAIT_RDY pair.
    """
    ins = list(program)
    wait = next((i for i, x in enumerate(ins) if isinstance(x, WaitRdy)), None)
    if wait is None or wait == 0 or not isinstance(ins[wait - 1], Delay):
        raise OpProgramError("a power-measured sequence needs a busy period (tWB, WAIT_RDY)")
    return Program(
        [
            *ins[: wait - 1],
            Power(True, period_ns),
            *ins[wait - 1 : wait + 1],
            Power(False),
            *ins[wait + 1 :],
        ]
    )
