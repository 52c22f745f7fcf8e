"""Bus efficiency of the RTL controller in SDR mode 5 and every DDR mode, measured on the pins.

Runs nandlab_ctrl under Verilator with a virtual slc-search die (4096 + 256
byte pages) on its pins, switches die and controller to SDR mode 5 and
measures from the pin adapter's strobe log:

- data out / data in efficiency: ideal time (bytes - 1) x tRC (tWC) over the
  time from the first to the last RE# fall (WE# rise) of one page-sized DOUT
  (DIN); 1.0 means every cycle is as short as mode 5 allows;
- gaps between consecutive instructions: extra clock cycles, beyond one
  tWC / tRC, between the last bus cycle of an instruction and the first of the
  next (CMD -> CMD, DIN -> DIN, DOUT -> DOUT).

DDR (issue 19): nandlab_ctrl at 200 MHz with a virtual mlc-176l die (16384 +
2208 byte pages) switches to each NV-DDR2 mode 0..7 and NV-DDR3 mode 8..12
(then SDR mode 5 for comparison) and moves one whole page each way:
change read column (05h, 2 column cycles, E0h) + DOUT of the page, and
PROGRAM (80h, 5 address cycles) + DIN of the page. Efficiency = ideal /
measured, ideal = cycles x tWC (tWP + tWH of the mode) for the command and
address cycles + bytes x tRC / 2 at the mode's rated rate (SDR: bytes x
tRC), measured = from the first command cycle to the last data strobe (the
turnarounds tCCS / tADL, preambles and clock rounding all count against it).
The PHY moves at most one byte per core clock (200 MT/s at 200 MHz), so a
mode rated faster runs slower than rated and scores below 1 by that ratio.
Last line: the page transfer time of SDR mode 5 over NV-DDR3 mode 10 (800 MT/s
rated), both measured here.

Prints `name: value` lines. Run: .venv/bin/python bench/rtl_throughput.py
(`--sdr-only` skips the DDR part, about 10 minutes on one core).
This file is also the cocotb test module the simulation imports.
"""

from __future__ import annotations

import itertools
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

import cocotb
from nandlab.onfi_spec.nvddr_timing import ddr
from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.ops import Interface, Pattern, Program, pattern_bytes
from nandlab.rtlsim.ctrl_bench import BenchConfig, CtrlBench
from nandlab.rtlsim.eye import DDR_INTERFACES, nominal_tap
from nandlab.rtlsim.programs import Programs
from nandlab.sequences import core

MODE = 5
PROFILE = "slc-search"
OUT_ENV = "NANDLAB_BENCH_OUT"
REPEAT = 8
DDR_PROFILE = "mlc-176l"
DDR_CLK_PS = 5000
DDR_SETS = [(Interface.NV_DDR2, m) for m in range(8)] + [
    (Interface.NV_DDR3, m) for m in range(8, 13)] + [(Interface.SDR, 5)]
"""Every NV-DDR2 mode (what the 1.8 V KCU105 card runs), the NV-DDR3 modes above them that the
die offers (mlc-176l: up to 12, 1200 MT/s; NV-DDR3 modes 0..7 have NV-DDR2's timing rows, so
their figures are the same), SDR mode 5."""
PART_ENV = "NANDLAB_BENCH_PART"


def _span(strobes: list[tuple[int, str]], kind: str, t0: int) -> list[int]:
    return [t for t, k in strobes if k == kind and t >= t0]


def _spread(times: list[int], clk_ps: int) -> str:
    """Clocks per byte: 'min / mean / max' over consecutive strobes."""
    d = [(b - a) / clk_ps for a, b in itertools.pairwise(times)]
    return f"{min(d):g} / {statistics.fmean(d):.2f} / {max(d):g}"


def _gaps(times: list[int], per: int, period_ps: int, clk_ps: int) -> float:
    """Mean extra clocks between instruction groups of `per` strobes, beyond one period."""
    gaps = [
        (times[i * per] - times[i * per - 1] - period_ps) / clk_ps
        for i in range(1, len(times) // per)
    ]
    return statistics.fmean(gaps)


@cocotb.test()
async def measure(dut) -> None:
    if os.environ.get(PART_ENV) != "sdr":
        return
    bench = CtrlBench(dut)
    await bench.reset()
    progs = Programs(bench.profile)
    for prog in (progs.reset(), progs.set_timing_mode(MODE)):
        (await bench.run(prog)).raise_for_errors()
    s, clk = sdr(MODE), bench.clk_ps
    n = progs.page_bytes
    strobes = bench.pins.strobes
    out: dict[str, float] = {}

    t0 = bench.pins.now_ps()
    (
        await bench.run(progs.program_page(1, 0, pattern_bytes(Pattern.prbs(), 1, n)))
    ).raise_for_errors()
    din = _span(strobes, "din", t0)
    out["din_efficiency"] = (len(din) - 1) * s.tWC * 1000 / (din[-1] - din[0])
    out["din_clocks"] = _spread(din, clk)

    t0 = bench.pins.now_ps()
    (await bench.run(progs.read_page(1, 0))).raise_for_errors()
    dout = _span(strobes, "dout", t0)
    out["dout_efficiency"] = (len(dout) - 1) * s.tRC * 1000 / (dout[-1] - dout[0])
    out["dout_clocks"] = _spread(dout, clk)

    t0 = bench.pins.now_ps()
    (await bench.run(progs.read_compare(1, 0, Pattern.prbs(), 1, 512))).raise_for_errors()
    cmp = _span(strobes, "dout", t0)
    out["cmp_efficiency"] = (len(cmp) - 1) * s.tRC * 1000 / (cmp[-1] - cmp[0])
    out["cmp_clocks"] = _spread(cmp, clk)

    t0 = bench.pins.now_ps()
    prog = progs.ops()
    for _ in range(REPEAT):
        prog.cmd(0x70)
    (await bench.run(prog)).raise_for_errors()
    out["cmd_cmd_gap_cycles"] = _gaps(_span(strobes, "cmd", t0), 1, s.tWC * 1000, clk)

    t0 = bench.pins.now_ps()
    prog = progs.ops().cmd(0x80).addr(bytes(5)).delay(s.tADL)
    for _ in range(REPEAT):
        prog.din(bytes(4))
    (await bench.run(prog)).raise_for_errors()
    out["din_din_gap_cycles"] = _gaps(_span(strobes, "din", t0), 4, s.tWC * 1000, clk)

    t0 = bench.pins.now_ps()
    prog = Program(list(progs.read_page(1, 0, 4)))
    for _ in range(REPEAT - 1):
        prog.dout(4)
    (await bench.run(prog)).raise_for_errors()
    out["dout_dout_gap_cycles"] = _gaps(
        _span(strobes, "dout", t0), 4, s.tRC * 1000, clk
    )
    Path(os.environ[OUT_ENV]).write_text(json.dumps(out))


def _page_span(strobes: list[tuple[int, str]], t0: int, data: str, n: int
               ) -> tuple[int, int, int]:
    """(command / address cycles, data strobes, ps from the first command to the n-th data
    strobe) of the strobes since t0 (a burst's parking edge after the n-th is not data)."""
    cycles = [t for t, k in strobes if t >= t0 and k in ("cmd", "addr")]
    datas = [t for t, k in strobes if t >= t0 and k == data][:n]
    return len(cycles), len(datas), datas[-1] - cycles[0]


@cocotb.test()
async def measure_ddr(dut) -> None:
    """One page each way in every DDR mode (and SDR mode 5): efficiency and time."""
    if os.environ.get(PART_ENV) != "ddr":
        return
    bench = CtrlBench(dut)
    await bench.reset()
    progs = Programs(bench.profile)
    geo, n = progs.geo, progs.page_bytes
    strobes = bench.pins.strobes
    out: dict[str, dict[str, float]] = {}
    for iface, mode in DDR_SETS:
        (await bench.run(progs.reset())).raise_for_errors()
        if iface == Interface.SDR:
            (await bench.run(progs.set_timing_mode(mode))).raise_for_errors()
            s = sdr(mode)
            cmd_ps, byte_ps, rate = s.tWC * 1000, s.tRC * 1000, 1e6 / (s.tRC * 1000)
        else:
            await bench.write_reg("DQS_DELAY", nominal_tap(iface, mode))
            (await bench.run(progs.set_interface(iface, mode))).raise_for_errors()
            t = ddr(DDR_INTERFACES[iface], mode)
            cmd_ps, byte_ps, rate = t.tWP + t.tWH, t.tRC / 2, t.data_rate_mts
        (await bench.run(progs.read_page(1, 0, 2))).raise_for_errors()
        t0 = bench.pins.now_ps()
        read = progs.ops(core.change_read_column(geo.column_bytes(0), progs.sdr.tCCS, n))
        (await bench.run(read)).raise_for_errors()
        c, k, span = _page_span(strobes, t0, "dout", n)
        rd = (c * cmd_ps + k * byte_ps) / (span + cmd_ps + byte_ps)
        t0 = bench.pins.now_ps()
        write = progs.ops(Program().cmd(0x80), core.address(geo.full_address(2, 0)),
                          Program().delay(progs.sdr.tADL).din_pattern(n, Pattern.prbs(), 3))
        (await bench.run(write)).raise_for_errors()
        c2, k2, span2 = _page_span(strobes, t0, "din", n)
        wr = (c2 * cmd_ps + k2 * byte_ps) / (span2 + cmd_ps + byte_ps)
        assert k == n and k2 == n, (k, k2, n)
        out[f"{iface.name}-{mode}"] = {"rate": rate, "read": rd, "write": wr,
                                       "read_us": (span + cmd_ps + byte_ps) / 1e6}
    bench.pins.check()
    Path(os.environ[OUT_ENV]).write_text(json.dumps(out))


def _simulate(part: str, profile: str, clk_ps: int) -> dict:
    from nandlab.rtlsim.sim_env import build_ctrl, run

    folder = build_ctrl("verilator", clk_ps)
    with tempfile.TemporaryDirectory(prefix="nandlab-bench-") as tmp:
        result = Path(tmp) / "out.json"
        env = {**BenchConfig(profile=profile, clk_ps=clk_ps).to_env(), OUT_ENV: str(result),
               PART_ENV: part}
        run("nandlab_ctrl", "verilator", folder, Path(__file__).stem, folder / f"bench-{part}",
            env)
        return json.loads(result.read_text())


def main() -> int:
    from nandlab.rtlsim.sim_env import SimulatorMissing

    try:
        out = _simulate("sdr", PROFILE, 10_000)
    except SimulatorMissing as exc:
        print(f"rtl_throughput: {exc}", file=sys.stderr)
        return 1
    print(
        f"rtl_dout_efficiency_mode{MODE}: {out['dout_efficiency']:.3f} "
        "(ideal bytes x tRC / measured; higher is better, 1.0 = ideal, target >= 0.95)"
    )
    print(
        f"rtl_din_efficiency_mode{MODE}: {out['din_efficiency']:.3f} "
        "(ideal bytes x tWC / measured; higher is better, 1.0 = ideal, target >= 0.95)"
    )
    print(
        f"rtl_dout_cmp_efficiency_mode{MODE}: {out['cmp_efficiency']:.3f} "
        "(DOUT_CMP of a page against the pattern, 512-byte chunks; same measure; higher is "
        "better)"
    )
    for key in ("dout", "din", "cmp"):
        print(
            f"rtl_{key}_clocks_per_byte_mode{MODE}: {out[key + '_clocks']} "
            "(min / mean / max clocks between bytes; lower is better, ideal 2)"
        )
    for key in ("cmd_cmd", "din_din", "dout_dout"):
        print(
            f"rtl_{key}_gap_cycles_mode{MODE}: {out[key + '_gap_cycles']:.2f} "
            "(extra clocks between consecutive instructions; lower is better)"
        )
    if "--sdr-only" in sys.argv[1:]:
        return 0
    ddr_out = _simulate("ddr", DDR_PROFILE, DDR_CLK_PS)
    for name, row in ddr_out.items():
        print(f"rtl_page_efficiency_{name}: read {row['read']:.3f} write {row['write']:.3f} "
              f"({row['rate']:g} MT/s rated; {DDR_PROFILE} page of 18592 bytes with its "
              f"command and address cycles at {1e6 / DDR_CLK_PS:g} MHz; higher is better, "
              "target >= 0.95 where the rate fits one byte per clock)")
    ratio = ddr_out["SDR-5"]["read_us"] / ddr_out["NV_DDR3-10"]["read_us"]
    print(f"rtl_page_read_time_ratio_sdr5_over_nvddr3_800: {ratio:.2f} "
          f"({ddr_out['SDR-5']['read_us']:.1f} us / {ddr_out['NV_DDR3-10']['read_us']:.1f} us; "
          "higher means NV-DDR3 saves more)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
