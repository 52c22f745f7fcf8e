"""The board CPU behind an `xdma://` bench (nandlab_top_xdma with CPU=1, the KCU105 build).

The user BAR map comes from hw/regs/nandlab_cpu_bar.rdl (`nandlab.firmware._cpu_regs`):
the CSR block, whose mailbox registers the host and the CPU share, at BAR_CSR;
CPU_CTRL at BAR_CPU_CTRL; the shared RAM's host window at BAR_SHARED. A bitstream
has the CPU when CPU_CTRL.CPU_ID reads its constant: the top without the CPU
decodes only the CSR block's address bits, so there the same offset answers the
ID register, never CPU_ID.

The firmware's loops send their op programs down the CPU's own stream, which the
sequencer takes only while CPU_CTRL.STREAM_CPU is set: `StreamHandover` sets it for
the length of a loop (with the sequencer idle) and gives the streams back to
H2C / C2H after, so op programs the host runs between loops go as before.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from nandlab.errors import TransportError
from nandlab.firmware._cpu_regs import BAR_CPU_CTRL, BAR_SHARED, BAR_SHARED_SIZE, CPU_CTRL
from nandlab.firmware.loops import MailboxLoops
from nandlab.firmware.mailbox import Mailbox

POLL_S = 0.001
"""Between two polls of MBX_STATUS on a board: a loop's batch takes milliseconds at least."""


def has_cpu(ctrl_word: int) -> bool:
    """Whether a word read at BAR_CPU_CTRL says the bitstream has the board CPU."""
    cpu_id = CPU_CTRL.field("CPU_ID")
    return cpu_id.get(ctrl_word) == cpu_id.reset


class BarPort:
    """The mailbox's RegisterIO and SharedRAM over the user BAR's 32-bit accesses."""

    def __init__(self, read32: Callable[[int], int], write32: Callable[[int, int], None]) -> None:
        self.read32, self.write32 = read32, write32

    def read_words(self, offset: int, n: int) -> list[int]:
        self._check(offset, n)
        return [self.read32(BAR_SHARED + offset + 4 * i) for i in range(n)]

    def write_words(self, offset: int, words: Sequence[int]) -> None:
        self._check(offset, len(words))
        for i, w in enumerate(words):
            self.write32(BAR_SHARED + offset + 4 * i, w)

    @staticmethod
    def _check(offset: int, n: int) -> None:
        # outside the window the BAR reads 0 and drops writes: fail here instead
        if offset < 0 or offset % 4 or offset + 4 * n > BAR_SHARED_SIZE:
            raise TransportError(f"the shared RAM window has {BAR_SHARED_SIZE} bytes: "
                                 f"{n} words at byte {offset} do not fit")


class StreamHandover(MailboxLoops):
    """The `firmware` role of an xdma:// bench: each loop runs with CPU_CTRL.STREAM_CPU set.

    `idle` is called before each switch: it makes sure the sequencer runs no program
    (the switch is only safe between programs)."""

    def __init__(self, mailbox: Mailbox, port: BarPort, idle: Callable[[], None]) -> None:
        super().__init__(mailbox)
        self.port, self.idle = port, idle

    def _stream_cpu(self, on: bool) -> None:
        self.idle()
        self.port.write32(BAR_CPU_CTRL, CPU_CTRL.field("STREAM_CPU").put(0, int(on)))

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "stream": "CPU_CTRL.STREAM_CPU while a loop runs"}

    def run_loop(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        self._stream_cpu(True)
        try:
            return super().run_loop(name, params)
        finally:
            self._stream_cpu(False)


def board_mailbox(port: BarPort, poll_s: float = POLL_S) -> Mailbox:
    """A Mailbox on the board's CPU through `port`, sleeping `poll_s` between polls."""
    return Mailbox(port, port, lambda: time.sleep(poll_s) if poll_s else None)
