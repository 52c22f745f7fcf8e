"""Testbench of nandlab_core: the controller datapath with its CSR values as ports.

Op programs go in on the 32-bit AXI-Stream, results come out on the other,
a virtual die sits on the ONFI pins (nandlab.rtlsim.program_bench); every
program also runs on `sim://` with a die of the same profile and seed, and
the results must match (DATA, ERRCNT, ERROR byte-identical, BUSY within one
clock), with the pin adapter's ONFI timing checker on every edge. Besides
READ ID, the parameter page and a page program / read, the CSR ports must
do what the register map (hw/regs/nandlab_regs.rdl) says: the timing mode
and counters show on the status ports, `csr_rsp_limit` refuses a DOUT the
result stream cannot take, `csr_clear_counters` zeroes the counters. The
result stream obeys the AXI-Stream handshake under random back-pressure.
"""

from __future__ import annotations

from pathlib import Path

import cocotb
import pytest
from nandlab.ops import ErrorCode
from nandlab.rtlsim.axis import AxisRules, random_pauses
from nandlab.rtlsim.core_bench import CoreStreamBench
from nandlab.rtlsim.ctrl_bench import BenchConfig
from nandlab.rtlsim.grid import Grid, run_set
from nandlab.transport.sim import SimTransport

TOPLEVEL = "nandlab_core"
MODULE = Path(__file__).stem
TIMEOUT_US = 5000
"""Simulated time after which a cocotb test fails (a stuck DUT must not hang the run)."""


class TB(CoreStreamBench):
    """nandlab_core with AXI-Stream models, the result stream's rules checked and, when
    the parameter set asks, back-pressure on it."""

    def __init__(self, dut) -> None:
        super().__init__(dut, SimTransport)
        self.rules = AxisRules(dut, "m_axis_rsp", self.clk, self.rst)
        if self.config.backpressure:
            self.rsp.set_pause_generator(random_pauses(5))


@cocotb.test(timeout_time=TIMEOUT_US, timeout_unit="us")
async def test_read_id_and_page(dut) -> None:
    tb = TB(dut)
    await tb.start()
    await tb.read_id_and_page()
    tb.rules.check()
    assert int(dut.status_timing_mode.value) == tb.config.mode
    if tb.config.backpressure:
        assert tb.rules.stalls > 0, "back-pressure never stalled the result stream"


@cocotb.test(timeout_time=TIMEOUT_US, timeout_unit="us")
async def test_counters_and_result_limit(dut) -> None:
    """Programs and errors are counted; a DOUT over csr_rsp_limit is refused (OVERFLOW)."""
    tb = TB(dut)
    await tb.start()
    dut.csr_clear_counters.value = 1
    await tb.idle()
    dut.csr_clear_counters.value = 0
    assert int(dut.cnt_programs.value) == 0 and int(dut.cnt_errors.value) == 0
    await tb.check(tb.progs.read_id(0x20, 4))
    dut.csr_rsp_limit.value = 8  # BUSY, ERROR and END fit, a page does not
    program = tb.progs.read_page(0, 0)
    got = await tb.run(program)
    assert [(e.code, e.index) for e in got.errors] == [
        (ErrorCode.OVERFLOW, len(program) - 1)
    ]
    assert not got.data
    dut.csr_rsp_limit.value = 0
    await tb.idle()
    assert int(dut.cnt_programs.value) == 2
    assert int(dut.cnt_errors.value) == 1
    assert int(dut.status_last_error.value) == ErrorCode.OVERFLOW
    tb.rules.check()


GRID = Grid(
    f"test_{TOPLEVEL}",
    ("sim", "clk_ps", "mode", "backpressure"),
    quick=[("verilator", 10_000, 5, 1), ("icarus", 10_000, 0, 0)],
    full=[
        (sim, 10_000, mode, bp)
        for sim in ("verilator", "icarus")
        for mode in (0, 3, 5)
        for bp in (0, 1)
    ]
    + [(sim, clk, 5, 1) for sim in ("verilator", "icarus") for clk in (8_000, 5_000)],
)
"""(simulator, clock period ps, SDR mode, result back-pressure)."""
pytest_generate_tests = GRID.generate


@pytest.mark.rtl
def test_nandlab_core(sim: str, clk_ps: int, mode: int, backpressure: int) -> None:
    config = BenchConfig(mode=mode, backpressure=backpressure, clk_ps=clk_ps)
    params = {"CLK_PERIOD_PS": clk_ps, "NUM_CE": 2}
    run_set(
        TOPLEVEL, sim, params, MODULE, f"mode{mode}-bp{backpressure}", config.to_env()
    )
