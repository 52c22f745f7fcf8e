"""nandlab_core measured from its own pins against the ONFI SDR table, every clock x mode.

The controller runs, in one SDR timing mode at one clock preset, the
operations a characterization run uses: RESET, READ ID (20h, 00h), the
parameter page, SET / GET FEATURES, erase, program, page read, change read
column, READ STATUS (also straight after a program confirm, while the die is
busy), and a WP# toggle (an erase refused while WP# is low, then one right
after WP# goes high: tWW). A virtual die sits on the pins (nandlab.rtlsim.
onfi_pins) with the host's SDR checker (nandlab.vchip.pin_timing), which also
sees the controller's own sample points: each DQ capture of the PHY and each
look of the sequencer at R/B#. Every program is compared with `sim://`.

Asserted: no violation of any parameter, and at least
nandlab.hwgen.timing.MIN_SAMPLE_MARGIN_PS on both sides of every DQ capture
(tREA / tCEA before, tRHOH / tRLOH after). The smallest margin of every
parameter is logged and written to margins.json in the run folder; the pytest
side prints it (`pytest -s`). A second test checks that the checker does see
the controller's faults: a CSR timing override that captures DQ before tREA
and keeps tWB one clock is reported.

`pytest hw/tb` runs modes 0 and 5 at 100 and 200 MHz on Icarus; `--rtl-full`
every preset clock (100, 125, 200 MHz) x every mode 0..5.
"""

from __future__ import annotations

import json
from pathlib import Path

import cocotb
import pytest
from nandlab.hwgen.timing import CLOCK_PERIODS_PS, FIELDS, MIN_SAMPLE_MARGIN_PS, preset
from nandlab.onfi_spec.opcodes import Cmd, Feature
from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.ops import Program
from nandlab.rtlsim.core_bench import CoreStreamBench
from nandlab.rtlsim.ctrl_bench import BenchConfig
from nandlab.rtlsim.grid import Grid
from nandlab.rtlsim.sim_env import build, build_dir_for, run
from nandlab.sequences import core as seq
from nandlab.transport.sim import SimTransport

TOPLEVEL = "nandlab_core"
MODULE = Path(__file__).stem
PARAMS = {"NUM_CE": 1}
"""One target (the core bench builds NUM_CE 2: separate build folders)."""
TIMEOUT_US = 5000
SAMPLE_PARAMS = ("tREA", "tCEA", "tRHOH", "tRLOH")
MARGINS_FILE = "margins.json"
STATUS_WP_N = 0x80


class TB(CoreStreamBench):
    """nandlab_core with AXI-Stream models on its program and result streams."""

    def __init__(self, dut) -> None:
        super().__init__(dut, SimTransport)


@cocotb.test(timeout_time=TIMEOUT_US, timeout_unit="us")
async def test_onfi_table_at_the_pins(dut) -> None:
    tb = TB(dut)
    await tb.start()
    progs, mode = tb.progs, tb.config.mode
    t = progs.sdr
    assert (await tb.check(progs.read_id(0x20, 4))).data[0] == b"ONFI"
    await tb.check(progs.read_id(0x00, 5))
    assert (await tb.check(progs.parameter_page(256))).data[0][:4] == b"ONFI"
    await tb.check(progs.set_features(Feature.TIMING_MODE, bytes([mode, 0, 0, 0])))
    assert (await tb.check(progs.get_features(Feature.TIMING_MODE))).data[0][0] == mode
    n = progs.page_bytes
    data = bytes((5 * i + 1) & 0xFF for i in range(n))
    await tb.check(progs.erase(1))
    # PROGRAM, then READ STATUS straight after the confirm (the die is busy: tWB)
    cycles = progs.geo.full_address(1, 0)
    straight = progs.ops(
        Program().cmd(Cmd.PROGRAM), seq.address(cycles), seq.data_in(t, data),
        Program().cmd(Cmd.PROGRAM_CONFIRM), seq.read_status(t), seq.busy(t, 10**7),
        seq.read_status(t))
    got = await tb.check(straight)
    assert got.data[0][0] & 0x40 == 0 and got.data[1][0] & 0x41 == 0x40
    assert (await tb.check(progs.read_page(1, 0))).data[0] == data
    await tb.check(progs.change_read_column(n // 3, 16))
    # WP# low: the erase is refused; WP# high and an erase right after it (tWW)
    await tb.check(progs.ops(seq.write_protect(True)))
    refused = await tb.check(progs.erase(2))
    assert refused.data[0][0] & STATUS_WP_N == 0
    await tb.check(progs.ops(seq.write_protect(False)) + progs.erase(2))
    assert (await tb.check(progs.status())).data[0][0] & (STATUS_WP_N | 0x41) == 0xC0
    pins = tb.pins
    assert pins.violations == []
    assert pins.samples["dq"] > n and pins.samples["rb"] >= 6, pins.samples
    margins = dict(sorted(pins.checker.margins.items()))
    (Path.cwd() / MARGINS_FILE).write_text(json.dumps(margins, indent=1))
    dut._log.info("smallest margin per parameter (ns): %s",
                  ", ".join(f"{k} {v:g}" for k, v in margins.items()))
    thin = {p: margins[p] for p in SAMPLE_PARAMS
            if p in margins and margins[p] * 1000 < MIN_SAMPLE_MARGIN_PS}
    assert not thin, f"DQ captured with less than {MIN_SAMPLE_MARGIN_PS} ps margin: {thin}"


@cocotb.test(timeout_time=TIMEOUT_US, timeout_unit="us")
async def test_a_careless_timing_override_is_caught(dut) -> None:
    """The checker sees the controller's faults: a CSR override that captures DQ one
    clock after RE# falls (before tREA) and keeps tWB one clock (READ STATUS right
    after the erase confirm) is reported."""
    tb = TB(dut)
    await tb.start()
    fields = [name for name, _, _ in FIELDS]
    values = preset(sdr(tb.config.mode), tb.config.clk_ps)
    values[fields.index("T_REA")] = values[fields.index("T_WB")] = 1
    dut.csr_timing.value = sum(v << (8 * i) for i, v in enumerate(values))
    dut.csr_timing_override.value = 1
    tb.pins.strict = False
    t, row = tb.progs.sdr, tb.progs.geo.row_bytes(1)
    await tb.send_words(tb.progs.ops(
        Program().cmd(Cmd.ERASE), seq.address(row), Program().cmd(Cmd.ERASE_CONFIRM),
        seq.read_status(t), seq.busy(t, 10**7)).encode())
    await tb.recv_results()
    found = {v.param for v in tb.pins.violations}
    assert {"tREA", "tWB"} <= found, found


GRID = Grid(
    f"test_{TOPLEVEL}_timing",
    ("sim", "clk_ps", "mode"),
    quick=[("icarus", clk, mode) for clk in (10_000, 5_000) for mode in (0, 5)],
    full=[("icarus", clk, mode) for clk in CLOCK_PERIODS_PS for mode in range(6)],
)
"""(simulator, clock period ps, SDR mode)."""
pytest_generate_tests = GRID.generate


@pytest.mark.rtl
def test_nandlab_core_timing(sim: str, clk_ps: int, mode: int) -> None:
    config = BenchConfig(mode=mode, clk_ps=clk_ps)
    params = {"CLK_PERIOD_PS": clk_ps, **PARAMS}
    folder = build(TOPLEVEL, sim, params)
    run_folder = build_dir_for(TOPLEVEL, sim, params) / f"timing-mode{mode}"
    run(TOPLEVEL, sim, folder, MODULE, run_folder, config.to_env())
    margins = json.loads((run_folder / MARGINS_FILE).read_text())
    print(f"\n{sim} {clk_ps} ps mode {mode}: smallest margins (ns) "
          + ", ".join(f"{k} {v:g}" for k, v in margins.items()))
