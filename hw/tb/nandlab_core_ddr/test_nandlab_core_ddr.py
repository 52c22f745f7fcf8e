"""nandlab_core in NV-DDR2 / NV-DDR3 / Toggle DDR modes, measured from its pins.

After RESET (SDR mode 0) the bench switches die and controller to one DDR
mode (SET FEATURES 01h with the interface in bits 5:4, then TIMING), sets
the capture delay to the middle of the die's output window (DQ valid tDQSQ
to tQH after its DQS edge: `nandlab.rtlsim.eye.nominal_tap`) and runs READ
ID 20h / 00h, the parameter page, GET FEATURES 01h, erase, program, READ
STATUS, page read, change read column and a DIN_PAT / DOUT_CMP page, each
compared with `sim://` on a die of the same profile and seed. The virtual
die on the pins (nandlab.rtlsim.onfi_pins) plays the DDR data cycles and
feeds every edge, and each capture of the PHY's delayed strobe, to the DDR
checker of the host package (nandlab.vchip.pin_timing_ddr): zero violations
are asserted; the smallest margin per parameter is printed.

The eye test injects a DQ skew behind the die's DQS edge, sweeps the capture
delay and reads the parameter page at each step: the passing taps must be
one window, inside the die's [tDQSQ, tQH] shifted by the skew, and the
checker must report the captures outside it (tDQSQ before, tQH after).

Quick grid (`pytest hw/tb`): NV-DDR3 mode 10 (800 MT/s rated, run at one
byte per clock) at 200 MHz on Icarus and NV-DDR2 mode 4 at 200 MHz on
Verilator; `--rtl-full`: every NV-DDR2 mode 0..7 and NV-DDR3 mode 0..10 at
200 MHz on Icarus, and NV-DDR2 0 / NV-DDR3 10 at 100 MHz on Verilator.
"""

from __future__ import annotations

import json
from pathlib import Path

import cocotb
import pytest
from nandlab.onfi_spec.nvddr_timing import ddr
from nandlab.onfi_spec.opcodes import Feature
from nandlab.ops import Interface, Pattern, decode_results
from nandlab.rtlsim.core_bench import CoreStreamBench
from nandlab.rtlsim.ctrl_bench import BenchConfig
from nandlab.rtlsim.eye import (
    DDR_INTERFACES,
    TAP_PS,
    TAPS,
    lane_bit_errors,
    nominal_tap,
    widest_window,
)
from nandlab.rtlsim.grid import Grid
from nandlab.rtlsim.sim_env import build, build_dir_for, run
from nandlab.transport.sim import SimTransport

TOPLEVEL = "nandlab_core"
MODULE = Path(__file__).stem
PARAMS = {"NUM_CE": 1}
TIMEOUT_US = 5000
MARGINS_FILE = "margins.json"
EYE_FILE = "eye.json"
EYE_STEP = 32
"""Taps between eye-scan points."""
EYE_BYTES = 48
"""Bytes of the parameter page each scan point reads."""


class TB(CoreStreamBench):
    """nandlab_core with AXI-Stream models on its streams, for the DDR interfaces."""

    def __init__(self, dut) -> None:
        super().__init__(dut, SimTransport)

    async def start_ddr(self, skew_ps: int = 0) -> tuple[Interface, int]:
        """Reset, then die and controller to the configured DDR mode, capture delay centred;
        the die's DQ runs `skew_ps` behind its DQS (the capture centre does not know it)."""
        self.pins.dq_skew_ps = skew_ps
        await self.reset()
        await self.check(self.progs.reset())
        iface, mode = Interface(self.config.interface), self.config.mode
        self.dut.csr_dqs_delay.value = nominal_tap(iface, mode)
        await self.check(self.progs.set_interface(iface, mode))
        assert int(self.dut.status_interface.value) == iface
        return iface, mode


@cocotb.test(timeout_time=TIMEOUT_US, timeout_unit="us")
async def test_ddr_operations_at_the_pins(dut) -> None:
    tb = TB(dut)
    iface, mode = await tb.start_ddr()
    progs = tb.progs
    assert (await tb.check(progs.read_id(0x20, 4))).data[0] == b"ONFI"
    await tb.check(progs.read_id(0x00, 5))
    assert (await tb.check(progs.parameter_page(256))).data[0][:4] == b"ONFI"
    p1 = (await tb.check(progs.get_features(Feature.TIMING_MODE))).data[0][0]
    assert p1 == mode | int(iface) << 4, f"feature 01h P1 {p1:02X}h"
    n = progs.page_bytes
    data = bytes((5 * i + 1) & 0xFF for i in range(n))
    await tb.check(progs.erase(1))
    status = (await tb.check(progs.program_page(1, 0, data))).data[0][0]
    assert status & 0x41 == 0x40, f"program status {status:02X}h"
    assert (await tb.check(progs.read_page(1, 0))).data[0] == data
    await tb.check(progs.change_read_column(n // 3, 16))
    await tb.check(progs.erase(2))
    await tb.check(progs.program_pattern(2, 0, Pattern.prbs(), 7))
    await tb.check(progs.read_compare(2, 0, Pattern.prbs(), 7, 32))
    pins = tb.pins
    assert pins.violations == [], pins.violations[:3]
    assert pins.samples["dq"] > 2 * n, pins.samples
    margins = dict(sorted(pins.ddr_checker.margins.items()))
    (Path.cwd() / MARGINS_FILE).write_text(json.dumps(margins, indent=1))
    dut._log.info("smallest margin per parameter (ns): %s",
                  ", ".join(f"{k} {v:g}" for k, v in margins.items()))


@cocotb.test(timeout_time=TIMEOUT_US, timeout_unit="us")
async def test_data_eye_with_skew(dut) -> None:
    """Sweep the capture delay: one passing window, where the die's DQ is valid."""
    tb = TB(dut)
    iface, mode = await tb.start_ddr(tb.config.skew_ps)
    tb.pins.strict = False
    expected = tb.ref.run(tb.progs.parameter_page(EYE_BYTES)).data[0]
    assert expected[:4] == b"ONFI"
    taps = list(range(0, TAPS, EYE_STEP))
    passed = []
    for tap in taps:
        dut.csr_dqs_delay.value = tap
        await tb.send_words(tb.progs.parameter_page(EYE_BYTES).encode())
        got = decode_results(await tb.recv_results()).data[0]
        passed.append(lane_bit_errors(got, expected) == (0,))
    window = widest_window(taps, passed)
    assert window is not None, "no capture delay reads the page"
    assert sum(passed) == (window[1] - window[0]) // EYE_STEP + 1, "passing taps not one window"
    t = ddr(DDR_INTERFACES[iface], mode)
    skew = tb.config.skew_ps
    lo, hi = (t.tDQSQ + skew) / TAP_PS, (t.tQH + skew) / TAP_PS
    # the window's edges are those of the die's output, to a scan step and a tap
    assert lo - 1 <= window[0] < lo + EYE_STEP + 1, (window, lo, hi)
    if hi < TAPS - EYE_STEP:
        assert hi - EYE_STEP - 1 < window[1] <= hi + 1, (window, lo, hi)
    found = {v.param for v in tb.pins.violations}
    assert "tDQSQ" in found and (hi >= TAPS - EYE_STEP or "tQH" in found), found
    (Path.cwd() / EYE_FILE).write_text(json.dumps(
        {"window_taps": window, "die_window_taps": [lo, hi], "tap_ps": TAP_PS}))


GRID = Grid(
    f"test_{TOPLEVEL}_ddr",
    ("sim", "clk_ps", "interface", "mode", "skew_ps"),
    quick=[("icarus", 5_000, Interface.NV_DDR3, 10, 600),
           ("verilator", 5_000, Interface.NV_DDR2, 4, -300)],
    full=[("icarus", 5_000, Interface.NV_DDR2, m, 500) for m in range(8)]
    + [("icarus", 5_000, Interface.NV_DDR3, m, 300) for m in range(11)]
    + [("verilator", 10_000, Interface.NV_DDR2, 0, 1000),
       ("verilator", 10_000, Interface.NV_DDR3, 10, 200)],
)
"""(simulator, clock period ps, interface, mode, injected DQ skew ps)."""
pytest_generate_tests = GRID.generate


@pytest.mark.rtl
def test_nandlab_core_ddr(sim: str, clk_ps: int, interface: int, mode: int,
                          skew_ps: int) -> None:
    config = BenchConfig(mode=mode, clk_ps=clk_ps, interface=int(interface), skew_ps=skew_ps)
    params = {"CLK_PERIOD_PS": clk_ps, **PARAMS}
    folder = build(TOPLEVEL, sim, params)
    run_folder = build_dir_for(TOPLEVEL, sim, params) / f"ddr-if{int(interface)}-mode{mode}"
    run(TOPLEVEL, sim, folder, MODULE, run_folder, config.to_env())
    margins = json.loads((run_folder / MARGINS_FILE).read_text())
    eye = json.loads((run_folder / EYE_FILE).read_text())
    print(f"\n{sim} {clk_ps} ps if {int(interface)} mode {mode}: eye taps {eye['window_taps']} "
          f"(die {eye['die_window_taps']}); smallest margins (ns) "
          + ", ".join(f"{k} {v:g}" for k, v in margins.items()))
