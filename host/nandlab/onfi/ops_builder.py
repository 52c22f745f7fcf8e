"""Builds the op program of one chip operation, with the SDR delays of the current mode.

The chip layer describes an operation as the five NAND instructions (command,
address, data in, data out, wait ready) plus the delays between them;
`OpsBuilder` adds the CE instruction first and the ONFI delay names stand for
their values in the selected SDR timing mode.
"""

from __future__ import annotations

from nandlab.onfi_spec.sdr_timing import SdrTiming
from nandlab.ops import Addr, Ce, Cmd, Delay, Din, Dout, Gpio, Instruction, Program, Timing, WaitRdy

GPIO_WP_N = 0x01  # GPIO bit 0: WP# level, 1 = writes allowed


class OpsBuilder:
    """Chainable builder: `OpsBuilder(ce, timing).cmd(0x70).delay_whr().dout(1).program()`."""

    def __init__(self, ce: int, timing: SdrTiming) -> None:
        self.sdr = timing
        self._ins: list[Instruction] = [Ce(ce)]

    def cmd(self, byte: int) -> OpsBuilder:
        self._ins.append(Cmd(int(byte)))
        return self

    def addr(self, data: bytes) -> OpsBuilder:
        self._ins.append(Addr(bytes(data)))
        return self

    def din(self, data: bytes) -> OpsBuilder:
        self._ins.append(Din(bytes(data)))
        return self

    def dout(self, n: int) -> OpsBuilder:
        self._ins.append(Dout(n))
        return self

    def wait(self, timeout_ns: int) -> OpsBuilder:
        self._ins.append(WaitRdy(int(timeout_ns)))
        return self

    def delay(self, ns: int) -> OpsBuilder:
        self._ins.append(Delay(int(ns)))
        return self

    def timing(self, mode: int) -> OpsBuilder:
        self._ins.append(Timing(mode))
        return self

    def wp(self, writes_allowed: bool) -> OpsBuilder:
        self._ins.append(Gpio(value=GPIO_WP_N if writes_allowed else 0, mask=GPIO_WP_N))
        return self

    # ONFI delays of the current SDR mode
    def delay_wb(self) -> OpsBuilder:
        """tWB: WE# high to R/B# low, after a confirm command."""
        return self.delay(self.sdr.tWB)

    def delay_whr(self) -> OpsBuilder:
        """tWHR: WE# high to RE# low, before reading status / ID bytes."""
        return self.delay(self.sdr.tWHR)

    def delay_adl(self) -> OpsBuilder:
        """tADL: last address cycle to first data-in cycle."""
        return self.delay(self.sdr.tADL)

    def delay_rr(self) -> OpsBuilder:
        """tRR: ready to RE# low; covered by tWHR, which is longer, in every SDR mode."""
        return self.delay(self.sdr.tWHR)

    def program(self) -> Program:
        return Program(list(self._ins))
