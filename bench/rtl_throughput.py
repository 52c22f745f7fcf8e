"""Bus efficiency of the RTL controller at ONFI SDR mode 5, measured on the pins.

Runs nandlab_ctrl under Verilator with a virtual slc-search die (4096 + 256
byte pages) on its pins, switches die and controller to SDR mode 5 and
measures from the pin adapter's strobe log:

- data out / data in efficiency: ideal time (bytes - 1) x tRC (tWC) over the
  time from the first to the last RE# fall (WE# rise) of one page-sized DOUT
  (DIN); 1.0 means every cycle is as short as mode 5 allows;
- gaps between consecutive instructions: extra clock cycles, beyond one
  tWC / tRC, between the last bus cycle of an instruction and the first of the
  next (CMD -> CMD, DIN -> DIN, DOUT -> DOUT).

Prints `name: value` lines. Run: .venv/bin/python bench/rtl_throughput.py
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
from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.ops import Pattern, Program, pattern_bytes
from nandlab.rtlsim.ctrl_bench import BenchConfig, CtrlBench
from nandlab.rtlsim.programs import Programs

MODE = 5
PROFILE = "slc-search"
OUT_ENV = "NANDLAB_BENCH_OUT"
REPEAT = 8


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


def main() -> int:
    from nandlab.rtlsim.sim_env import SimulatorMissing, build_ctrl, run

    try:
        folder = build_ctrl("verilator")
    except SimulatorMissing as exc:
        print(f"rtl_throughput: {exc}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="nandlab-bench-") as tmp:
        result = Path(tmp) / "out.json"
        env = {**BenchConfig(profile=PROFILE).to_env(), OUT_ENV: str(result)}
        run(
            "nandlab_ctrl",
            "verilator",
            folder,
            Path(__file__).stem,
            folder / "bench",
            env,
        )
        out = json.loads(result.read_text())
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
