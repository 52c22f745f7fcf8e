"""Testbench of nandlab_timing_sel: the preset of each SDR mode, in clock cycles.

Each field must be the fewest cycles that cover the ONFI minimum of
nandlab.onfi_spec.sdr_timing (ceil(t / period)); the DQ capture point must
come strictly after tREA (floor(tREA / period) + 1). With use_csr the CSR
vector passes through. Built once per supported clock period.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import cocotb
import pytest
from cocotb.triggers import Timer
from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.rtlsim.sim_env import build, run

TOPLEVEL = "nandlab_timing_sel"
MODULE = Path(__file__).stem
FIELDS = [
    "tWP",
    "tWH",
    "tWC",
    "tDS",
    "tRP",
    "tREH",
    "tRC",
    "tREA",
    "tCLS",
    "tALS",
    "tCS",
    "tDH",
    "tWB",
    "tWHR",
    "tRHW",
    "tADL",
    "tCCS",
]
"""Field i of the timing vector sits at bits [8i+7:8i] (nandlab_timing_pkg)."""


def expected_cycles(mode: int, period_ps: int) -> list[int]:
    s = sdr(mode)
    out = []
    for name in FIELDS:
        t_ps = getattr(s, name) * 1000
        out.append(t_ps // period_ps + 1 if name == "tREA" else -(-t_ps // period_ps))
    return out


@cocotb.test()
async def test_presets_cover_onfi_minima(dut) -> None:
    period = int(os.environ["NANDLAB_TB_CLK_PS"])
    dut.use_csr.value = 0
    dut.csr_timing.value = 0
    for mode in range(6):
        dut.mode.value = mode
        await Timer(1, unit="ns")
        word = int(dut.timing.value)
        got = [(word >> (8 * i)) & 0xFF for i in range(len(FIELDS))]
        want = expected_cycles(mode, period)
        bad = [
            f"{n} {g} != {w}"
            for n, g, w in zip(FIELDS, got, want, strict=True)
            if g != w
        ]
        assert not bad, f"mode {mode} at {period} ps: " + ", ".join(bad)


@cocotb.test()
async def test_csr_override_passes_through(dut) -> None:
    rng = random.Random(7)
    dut.use_csr.value = 1
    for mode in (0, 5, 9):
        value = rng.getrandbits(136)
        dut.mode.value = mode
        dut.csr_timing.value = value
        await Timer(1, unit="ns")
        assert int(dut.timing.value) == value


@pytest.mark.rtl
@pytest.mark.parametrize("clk_ps", [10_000, 8_000, 5_000])
def test_nandlab_timing_sel(clk_ps: int) -> None:
    folder = build(TOPLEVEL, "verilator", {"CLK_PERIOD_PS": clk_ps}, modules=[TOPLEVEL])
    run(
        TOPLEVEL,
        "verilator",
        folder,
        MODULE,
        folder / "run",
        {"NANDLAB_TB_CLK_PS": str(clk_ps)},
    )
