"""Testbench of nandlab_timing_sel: the preset of each SDR mode, in clock cycles.

Each field but the read cycle's must be the fewest cycles that cover the
ONFI minimum of nandlab.onfi_spec.sdr_timing (ceil(t / period)). The read
cycle (tRP, tREH, tRC, capture point) must meet its minima and put the DQ
capture at least 3 ns inside the die's data-valid window on both sides (from
tREA after RE# falls to tRHOH after it rises or tRLOH after the next fall of
a back-to-back read), measured here from the ONFI table alone. With use_csr
the CSR vector passes through. Built once per supported clock period.

DDR interfaces (NV-DDR2, NV-DDR3, Toggle): `ddr` is set, and every mode of
nandlab.onfi_spec.nvddr_timing gives command-cycle fields covering the DDR
table's tWP, tWH, tCALS, tCAS, tCAH, tCS, turnarounds covering SDR mode 5's
tWB, tWHR, tRHW, tADL, tCCS, and burst fields covering the preambles and
postambles, with a transfer (T_BIT clocks) no shorter than half of tRC and
no clock longer than needed (at least one clock).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import cocotb
import pytest
from cocotb.triggers import Timer
from nandlab.onfi_spec.nvddr_timing import DDR_MODES, DdrInterface
from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.ops import Interface
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
    "tIR",
    "tWW",
]
"""Field i of the timing vector sits at bits [8i+7:8i] (nandlab_timing_pkg)."""
READ_PLAN = ("tRP", "tREH", "tRC", "tREA")
SAMPLE_MARGIN_PS = 3000


def problems(mode: int, period_ps: int, got: dict[str, int]) -> list[str]:
    """What in one preset breaks the ONFI table (or the capture margin)."""
    s = sdr(mode)
    bad = []
    for name in FIELDS:
        need = max(-(-getattr(s, name) * 1000 // period_ps), 1)
        if name not in READ_PLAN and got[name] != need:
            bad.append(f"{name} {got[name]} != {need}")
        elif name in READ_PLAN[:3] and got[name] < need:
            bad.append(f"{name} {got[name]} < {need}")
    low, cycle, cap = got["tRP"] * period_ps, got["tRC"] * period_ps, got["tREA"] * period_ps
    if got["tRP"] + got["tREH"] != got["tRC"]:
        bad.append("tRP + tREH != tRC")
    held_until = min(low + s.tRHOH * 1000, cycle + s.tRLOH * 1000)
    if cap - s.tREA * 1000 < SAMPLE_MARGIN_PS or held_until - cap < SAMPLE_MARGIN_PS:
        bad.append(f"capture at {cap} ps: window {s.tREA * 1000}..{held_until} ps")
    return bad


@cocotb.test()
async def test_presets_cover_onfi_minima(dut) -> None:
    period = int(os.environ["NANDLAB_TB_CLK_PS"])
    dut.use_csr.value = 0
    dut.csr_timing.value = 0
    dut.iface.value = Interface.SDR
    for mode in range(6):
        dut.mode.value = mode
        await Timer(1, unit="ns")
        word = int(dut.timing.value)
        got = {n: (word >> (8 * i)) & 0xFF for i, n in enumerate(FIELDS)}
        bad = problems(mode, period, got)
        assert not bad, f"mode {mode} at {period} ps: " + ", ".join(bad)
        assert int(dut.ddr.value) == 0


DDR_IFACES = {Interface.NV_DDR2: DdrInterface.NV_DDR2, Interface.NV_DDR3: DdrInterface.NV_DDR3,
              Interface.TOGGLE: DdrInterface.TOGGLE2}
BURST = ("T_BIT", "T_RPRE", "T_RPST", "T_RPSTH", "T_WPRE", "T_WPST", "T_WPSTH")


@cocotb.test()
async def test_ddr_presets_cover_the_ddr_table(dut) -> None:
    period = int(os.environ["NANDLAB_TB_CLK_PS"])
    s5 = sdr(5)
    dut.use_csr.value = 0
    dut.csr_timing.value = 0
    for iface, table in DDR_IFACES.items():
        for t in DDR_MODES[table]:
            dut.iface.value = iface
            dut.mode.value = t.mode
            await Timer(1, unit="ns")
            assert int(dut.ddr.value) == 1
            word, burst = int(dut.timing.value), int(dut.ddr_timing.value)
            got = {n: (word >> (8 * i)) & 0xFF for i, n in enumerate(FIELDS)}
            got.update({n: (burst >> (8 * i)) & 0xFF for i, n in enumerate(BURST)})
            ps = {n: v * period for n, v in got.items()}
            need = {"tWP": t.tWP, "tWH": t.tWH, "tCLS": t.tCALS, "tALS": t.tCALS,
                    "tDS": t.tCAS, "tDH": t.tCAH, "tCS": t.tCS,
                    "tWB": s5.tWB * 1000, "tWHR": s5.tWHR * 1000, "tRHW": s5.tRHW * 1000,
                    "tADL": s5.tADL * 1000, "tCCS": s5.tCCS * 1000,
                    "T_RPRE": t.tRPRE, "T_RPSTH": t.tRPSTH, "T_WPRE": t.tWPRE,
                    "T_WPST": t.tWPST, "T_WPSTH": t.tWPSTH, "T_BIT": t.tRC / 2,
                    "T_RPST": t.tDQSRE + got["T_BIT"] * period}
            short = {n: (ps[n], v) for n, v in need.items() if ps[n] < v}
            where = f"{table.value} mode {t.mode} at {period} ps"
            assert not short, f"{where}: shorter than the table: {short}"
            assert got["T_BIT"] == 1 or (got["T_BIT"] - 1) * period < t.tRC / 2, where


@cocotb.test()
async def test_csr_override_passes_through(dut) -> None:
    rng = random.Random(7)
    dut.use_csr.value = 1
    dut.iface.value = Interface.SDR
    for mode in (0, 5, 9):
        value = rng.getrandbits(152)
        dut.mode.value = mode
        dut.csr_timing.value = value
        await Timer(1, unit="ns")
        assert int(dut.timing.value) == value


@pytest.mark.rtl
@pytest.mark.parametrize("clk_ps", [10_000, 8_000, 5_000])
def test_nandlab_timing_sel(clk_ps: int) -> None:
    folder = build(TOPLEVEL, "icarus", {"CLK_PERIOD_PS": clk_ps}, modules=[TOPLEVEL])
    run(
        TOPLEVEL,
        "icarus",
        folder,
        MODULE,
        folder / "run",
        {"NANDLAB_TB_CLK_PS": str(clk_ps)},
    )
