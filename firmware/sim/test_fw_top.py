"""The firmware on the board's top: nandlab_top_xdma with CPU=1 (the KCU105 build's), the
cross-built firmware in its CPU subsystem, a virtual die on the ONFI pins, the host on the
XDMA's user BAR (an AXI4-Lite master model).

Proofs: the CPU reaches the CSR block through the BAR arbiter while the host polls it (the
firmware's version appears), the shared RAM's host window and CPU_CTRL answer, and with
CPU_CTRL.STREAM_CPU set the unchanged host Mailbox runs programs the firmware feeds to the
sequencer over the CPU's stream (the chip's ID comes back through the shared RAM).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cocotb
from cocotb.clock import Clock
from cocotb.task import bridge, resume
from cocotb.triggers import ClockCycles
from cocotbext.axi import AxiLiteBus, AxiLiteMaster
from nandlab.firmware import Mailbox
from nandlab.firmware._cpu_regs import (
    BAR_CPU_CTRL,
    BAR_SHARED,
    BAR_SHARED_SIZE,
    CPU_CTRL,
)
from nandlab.ops import decode_results
from nandlab.regs import REG
from nandlab.rtlsim import fw_harness
from nandlab.rtlsim.ctrl_bench import BenchConfig
from nandlab.rtlsim.fw_harness import BOOT_POLLS, CLK_PS
from nandlab.rtlsim.onfi_pins import OnfiPins
from nandlab.rtlsim.programs import Programs
from nandlab.vchip.die import VirtualDie

MODULE = Path(__file__).stem
SEED = 3


class BarPort:
    """The user BAR as the blocking RegisterIO / SharedRAM the Mailbox takes."""

    def __init__(self, dut: Any, bar: AxiLiteMaster) -> None:
        self._read = resume(bar.read_dword)
        self._write = resume(bar.write_dword)
        self.wait = resume(lambda: ClockCycles(dut.axi_aclk, 200))

    def read32(self, offset: int) -> int:
        return int(self._read(offset))

    def write32(self, offset: int, value: int) -> None:
        self._write(offset, value)

    def read_words(self, offset: int, n: int) -> list[int]:
        return [self.read32(BAR_SHARED + offset + 4 * i) for i in range(n)]

    def write_words(self, offset: int, words: list[int]) -> None:
        for i, w in enumerate(words):
            self.write32(BAR_SHARED + offset + 4 * i, w)


@cocotb.test(timeout_time=20, timeout_unit="ms")
async def test_firmware_serves_the_host_through_the_top(dut: Any) -> None:
    Clock(dut.axi_aclk, CLK_PS, unit="ps").start()
    profile = BenchConfig().load_profile()
    pins = OnfiPins(dut, [VirtualDie(profile, SEED, 0)], clk_ps=CLK_PS)
    dut.s_axis_h2c_tvalid.value = 0
    dut.m_axis_c2h_tready.value = 1
    bar = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.axi_aclk,
                        dut.axi_aresetn, reset_active_level=False)
    bar.write_if.log.setLevel("WARNING")
    bar.read_if.log.setLevel("WARNING")
    dut.axi_aresetn.value = 0
    pins.start()
    await ClockCycles(dut.axi_aclk, 8)
    dut.axi_aresetn.value = 1

    for _ in range(BOOT_POLLS):
        await ClockCycles(dut.axi_aclk, 1000)
        if await bar.read_dword(REG["MBX_FW_VERSION"].offset):
            break
    else:
        sys = dut.g_cpu.u_sys
        raise AssertionError(f"the firmware never wrote MBX_FW_VERSION through the BAR arbiter "
                             f"(CPU at 0x{int(sys.u_cpu.reg_pc.value):08X}, trap "
                             f"{sys.trap.value}, bar state {dut.g_cpu.u_bar.state_q.value})")

    last = BAR_SHARED + BAR_SHARED_SIZE - 4   # the window's last word
    await bar.write_dword(last, 0xC0FFEE01)
    assert await bar.read_dword(last) == 0xC0FFEE01
    stream, cpu_id = CPU_CTRL.field("STREAM_CPU"), CPU_CTRL.field("CPU_ID")
    ctrl = await bar.read_dword(BAR_CPU_CTRL)
    assert cpu_id.get(ctrl) == cpu_id.reset != 0     # the bitstream says it has the CPU
    assert stream.get(ctrl) == 0                      # the host's streams after reset
    await bar.write_dword(BAR_CPU_CTRL, stream.put(0, 1))
    assert stream.get(await bar.read_dword(BAR_CPU_CTRL)) == 1

    port, progs = BarPort(dut, bar), Programs(profile)

    @bridge
    def host() -> None:
        mb = Mailbox(port, port, port.wait)
        protocol, _, _ = mb.version() or (0, 0, 0)
        assert protocol == 1
        words = mb.run_program(progs.reset().encode())
        assert not decode_results(b"".join(w.to_bytes(4, "little") for w in words)).errors
        words = mb.run_program(progs.read_id(0x20, 4).encode())
        assert decode_results(b"".join(w.to_bytes(4, "little") for w in words)).data == [b"ONFI"]

    await host()


def test_nandlab_top_xdma_with_cpu(tmp_path: Path) -> None:
    """Cross-build the firmware, build the PCIe top with CPU=1 in Verilator, run the above."""
    total, failed, log = fw_harness.run_tests(
        MODULE, tmp_path, "verilator", toplevel="nandlab_top_xdma",
        parameters={"CLK_PERIOD_PS": CLK_PS, "NUM_CE": 1, "CPU": 1})
    assert total == 1 and failed == 0, log.read_text()[-4000:]
