"""The `firmware` role of a bench whose board CPU runs the firmware's loops.

`MailboxLoops.run_loop(name, params)` posts one RUN_LOOP per batch of steps
through the mailbox and returns the loop's rows (`protocol.REC_FIELDS`). A
batch is as many steps as the result ring holds: a board's host drains the
ring while the loop runs, but a host that cannot (the native build runs a
command to completion inside one poll) still gets every row.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from nandlab.errors import UsageError
from nandlab.firmware.mailbox import Mailbox
from nandlab.firmware.protocol import (
    REC_DISTURB,
    REC_FIELDS,
    REC_HIST,
    REC_PE,
    REC_SWEEP,
    LoopDescriptor,
    LoopKind,
    Permit,
)

LOOPS = {"pe_cycle": LoopKind.PE_CYCLE, "read_sweep": LoopKind.READ_SWEEP,
         "read_disturb": LoopKind.READ_DISTURB, "vth_hist": LoopKind.VTH_HIST}
"""Loop names the role knows, and the descriptor kind each runs."""

_RECORD = {LoopKind.PE_CYCLE: REC_PE, LoopKind.READ_SWEEP: REC_SWEEP,
           LoopKind.READ_DISTURB: REC_DISTURB, LoopKind.VTH_HIST: REC_HIST}


class MailboxLoops:
    """Runs named loops on the firmware behind `mailbox` (nandlab.transport.roles.FirmwareLoops)."""

    def __init__(self, mailbox: Mailbox, standing: Permit | None = None) -> None:
        self.mailbox = mailbox
        self.standing = standing or Permit(0)
        """The permits the bench's session holds outside loops (restored after a P/E loop)."""

    def describe(self) -> dict[str, Any]:
        version = self.mailbox.version()
        return {"kind": "firmware", "loops": sorted(LOOPS), "protocol": version}

    def run_loop(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        """Run loop `name` ("pe_cycle", "read_sweep", "read_disturb" or "vth_hist") with the
        LoopDescriptor fields in `params` (all but `kind`); its rows, one per P/E cycle,
        sweep step or disturb checkpoint.

        A P/E loop opens a session with the erase and program permits for its run and
        goes back to the standing permits after; the firmware refuses anything else it
        was not allowed."""
        if name not in LOOPS:
            raise UsageError(f"the firmware has no loop {name!r}; it has {', '.join(LOOPS)}")
        kind = LOOPS[name]
        loop = LoopDescriptor(kind=kind, **params)
        per_step = 1 + len(REC_FIELDS[_RECORD[kind]])
        batch = self.mailbox.layout.ring_words // per_step
        pe = kind == LoopKind.PE_CYCLE
        if pe:
            self.mailbox.session(Permit.ERASE | Permit.PROGRAM)
        rows: list[dict[str, Any]] = []
        try:
            for start in range(0, loop.count, batch):
                part = replace(loop, count=min(batch, loop.count - start),
                               first=loop.first + start * loop.step)
                for row in self.mailbox.run_loop(part):
                    if pe:
                        row["cycle"] += start
                    elif kind == LoopKind.READ_DISTURB:
                        # each batch counts its own checkpoints and reads from 0
                        row["checkpoint"] += start
                        row["reads"] += start * loop.reads
                    rows.append(row)
        finally:
            if pe and self.standing:
                self.mailbox.session(self.standing)
            elif pe:
                self.mailbox.end_session()
        return rows
