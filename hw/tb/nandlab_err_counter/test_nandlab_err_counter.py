"""Testbench of nandlab_err_counter: per-chunk 0->1 / 1->0 counts equal the host's.

Random read / expected bytes, random gaps in `valid`, chunks closed by
`clear`; the reference is nandlab.analysis.chunk_error_counts (DOUT_CMP).
"""

from __future__ import annotations

import random
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge
from nandlab.analysis import chunk_error_counts
from nandlab.rtlsim.sim_env import build, run

TOPLEVEL = "nandlab_err_counter"
MODULE = Path(__file__).stem


@cocotb.test()
async def test_chunk_counts_match_host(dut) -> None:
    rng = random.Random(3)
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.clear.value, dut.valid.value, dut.got.value, dut.expected.value = 0, 0, 0, 0
    dut.rst.value = 1
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0
    n, chunk = 200, 48
    got = bytes(rng.getrandbits(8) for _ in range(n))
    want = bytes(b ^ (rng.getrandbits(8) & rng.getrandbits(8)) for b in got)
    counts = []
    for start in range(0, n, chunk):
        for i in range(start, min(n, start + chunk)):
            while rng.random() < 0.3:  # idle cycle
                dut.valid.value = 0
                await RisingEdge(dut.clk)
            dut.valid.value, dut.got.value, dut.expected.value = 1, got[i], want[i]
            await RisingEdge(dut.clk)
        dut.valid.value = 0
        await ReadOnly()
        counts.append([int(dut.cnt_0to1.value), int(dut.cnt_1to0.value)])
        await RisingEdge(dut.clk)
        dut.clear.value = 1
        await RisingEdge(dut.clk)
        dut.clear.value = 0
    assert counts == chunk_error_counts(want, got, chunk).tolist()


@pytest.mark.rtl
@pytest.mark.parametrize("sim", ["verilator", "icarus"])
def test_nandlab_err_counter(sim: str) -> None:
    folder = build(TOPLEVEL, sim, modules=[TOPLEVEL])
    run(TOPLEVEL, sim, folder, MODULE, folder / "run")
