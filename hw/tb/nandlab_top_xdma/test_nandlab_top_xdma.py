"""Testbench of nandlab_top_xdma: the PCIe top as the XDMA IP's user side sees it.

Op programs go in on the 64-bit H2C stream (little-endian words, the earlier
word in the low half, a last beat of one word with tkeep 0Fh), results come
out on the 64-bit C2H stream, the CSR block answers on the AXI-Lite user BAR,
and a virtual die sits on the ONFI pins (nandlab.rtlsim.program_bench):
every program also runs on `sim://` and the results must match, with the
pin adapter's ONFI timing checker on every edge. The C2H stream obeys the
AXI-Stream handshake under random back-pressure; the reset is the IP's
active-low axi_aresetn.
"""

from __future__ import annotations

from pathlib import Path

import cocotb
import pytest
from cocotbext.axi import (
    AxiLiteBus,
    AxiLiteMaster,
    AxiStreamBus,
    AxiStreamFrame,
    AxiStreamSink,
    AxiStreamSource,
)
from nandlab.regs import ID_MAGIC, REG
from nandlab.rtlsim.axis import AxisRules, random_pauses
from nandlab.rtlsim.ctrl_bench import BenchConfig
from nandlab.rtlsim.grid import Grid, run_set
from nandlab.rtlsim.program_bench import ProgramBench
from nandlab.transport.sim import SimTransport

TOPLEVEL = "nandlab_top_xdma"
MODULE = Path(__file__).stem
TIMEOUT_US = 5000
"""Simulated time after which a cocotb test fails (a stuck DUT must not hang the run)."""


class TB(ProgramBench):
    """nandlab_top_xdma with models of the XDMA IP's H2C, C2H and user BAR interfaces."""

    def __init__(self, dut) -> None:
        super().__init__(
            dut, SimTransport, clk="axi_aclk", rst="axi_aresetn", rst_active_low=True
        )
        clk, rst = self.clk, self.rst
        self.h2c = AxiStreamSource(
            AxiStreamBus.from_prefix(dut, "s_axis_h2c"),
            clk,
            rst,
            reset_active_level=False,
        )
        self.c2h = AxiStreamSink(
            AxiStreamBus.from_prefix(dut, "m_axis_c2h"),
            clk,
            rst,
            reset_active_level=False,
        )
        self.bar = AxiLiteMaster(
            AxiLiteBus.from_prefix(dut, "s_axil"), clk, rst, reset_active_level=False
        )
        for model in (self.h2c, self.c2h, self.bar.write_if, self.bar.read_if):
            model.log.setLevel("WARNING")
        self.rules = AxisRules(dut, "m_axis_c2h", clk, rst, rst_active_low=True)
        if self.config.backpressure:
            self.c2h.set_pause_generator(random_pauses(7))

    async def send_words(self, words: bytes) -> None:
        await self.h2c.send(AxiStreamFrame(words))

    async def recv_results(self) -> bytes:
        frame = await self.c2h.recv()  # compacted: tkeep 0Fh drops the pad word
        return bytes(frame.tdata)


@cocotb.test(timeout_time=TIMEOUT_US, timeout_unit="us")
async def test_programs_over_h2c_c2h(dut) -> None:
    tb = TB(dut)
    await tb.start()
    await tb.read_id_and_page()
    tb.rules.check()
    if tb.config.backpressure:
        assert tb.rules.stalls > 0, "back-pressure never stalled the C2H stream"


@cocotb.test(timeout_time=TIMEOUT_US, timeout_unit="us")
async def test_user_bar_reaches_csrs(dut) -> None:
    """ID magic and CONFIG over the BAR; the CSR window repeats in the 4 KiB BAR page."""
    tb = TB(dut)
    await tb.start()
    assert await tb.bar.read_dword(REG["ID"].offset) == ID_MAGIC
    config = await tb.bar.read_dword(REG["CONFIG"].offset)
    assert config & 0xFF == len(dut.nand_ce_n) and config >> 8 == tb.config.clk_ps
    status = await tb.bar.read_dword(REG["STATUS"].offset)
    assert (status >> 8) & 0xF == tb.config.mode
    await tb.bar.write_dword(REG["RSP_LIMIT"].offset, 8)
    assert await tb.bar.read_dword(REG["RSP_LIMIT"].offset) == 8
    await tb.bar.write_dword(REG["RSP_LIMIT"].offset, 0)


GRID = Grid(
    f"test_{TOPLEVEL}",
    ("sim", "clk_ps", "mode", "backpressure"),
    quick=[("verilator", 8_000, 5, 1)],
    full=[
        (sim, 8_000, mode, bp)
        for sim in ("verilator", "icarus")
        for mode in (0, 5)
        for bp in (0, 1)
    ],
)
"""(simulator, axi_aclk period ps, SDR mode, C2H back-pressure); 125 MHz is the IP's clock
for a 64-bit Gen2 x4 link."""
pytest_generate_tests = GRID.generate


@pytest.mark.rtl
def test_nandlab_top_xdma(sim: str, clk_ps: int, mode: int, backpressure: int) -> None:
    config = BenchConfig(mode=mode, backpressure=backpressure, clk_ps=clk_ps)
    params = {"CLK_PERIOD_PS": clk_ps, "NUM_CE": 2}
    run_set(
        TOPLEVEL, sim, params, MODULE, f"mode{mode}-bp{backpressure}", config.to_env()
    )
