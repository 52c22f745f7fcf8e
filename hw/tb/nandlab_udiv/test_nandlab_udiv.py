"""Testbench of nandlab_udiv: quotients equal Python's //, done WIDTH cycles after start.

Random operands, edge cases (0, 1, all ones, divisor > dividend) and division
by zero (all ones), back to back and with idle gaps.
"""

from __future__ import annotations

import random
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge
from nandlab.rtlsim.sim_env import build, run

TOPLEVEL = "nandlab_udiv"
MODULE = Path(__file__).stem
WIDTH = 25


@cocotb.test()
async def test_quotients(dut) -> None:
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.start.value, dut.dividend.value, dut.divisor.value = 0, 0, 0
    dut.rst.value = 1
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0
    top = (1 << WIDTH) - 1
    rng = random.Random(5)
    cases = [
        (0, 1),
        (1, 1),
        (top, 1),
        (top, top),
        (5, 7),
        (18432, 1024),
        (18433, 1024),
        (7, 0),
    ]
    cases += [
        (rng.getrandbits(WIDTH), rng.randint(1, 1 << rng.randint(0, WIDTH - 1)))
        for _ in range(40)
    ]
    for dividend, divisor in cases:
        dut.dividend.value, dut.divisor.value, dut.start.value = dividend, divisor, 1
        await RisingEdge(dut.clk)
        dut.start.value = 0
        cycles = 0
        while True:
            await ReadOnly()
            if int(dut.done.value):
                break
            await RisingEdge(dut.clk)
            cycles += 1
        want = dividend // divisor if divisor else top
        assert int(dut.quotient.value) == want, (dividend, divisor)
        assert cycles == WIDTH, f"done after {cycles} cycles, expected {WIDTH}"
        await RisingEdge(dut.clk)
        if rng.random() < 0.5:
            await ClockCycles(dut.clk, rng.randint(1, 3))


@pytest.mark.rtl
@pytest.mark.parametrize("sim", ["verilator", "icarus"])
def test_nandlab_udiv(sim: str) -> None:
    folder = build(TOPLEVEL, sim, {"WIDTH": WIDTH}, modules=[TOPLEVEL])
    run(TOPLEVEL, sim, folder, MODULE, folder / "run")
