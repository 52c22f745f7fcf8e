"""ONFI SDR timing presets in clock cycles: nandlab.onfi_spec.sdr_timing -> SV package.

Each preset is the set of PHY timing fields (8 bits each, cycles of the core
clock) for one SDR mode at one clock period. Field order is the order of the
CSR override registers TIMING_WRITE, TIMING_READ, TIMING_SETUP, TIMING_TURN,
TIMING_CCS (hw/regs/nandlab_regs.rdl), so a preset and the override registers
concatenate into the same vector.

Most fields are a minimum rounded up to whole clocks. The read cycle is
planned as a whole (`read_plan`): RE# low / high lengths and the DQ capture
point (T_REA, clocks after RE# falls) are chosen so that the capture sits
inside the die's data-valid window, from tREA after the fall to the end of its
output hold (tRHOH after RE# rises, or tRLOH after the next fall of a
back-to-back read), with at least `MIN_SAMPLE_MARGIN_PS` on both sides and as
centred as whole clocks allow, in the shortest read cycle that gives it.
"""

from __future__ import annotations

from nandlab.hwgen import REPO, Output, timing_ddr
from nandlab.onfi_spec.sdr_timing import SDR_MODES, SdrTiming

PKG = REPO / "hw" / "rtl" / "nandlab_timing_pkg.sv"
CLOCK_PERIODS_PS = (10000, 8000, 5000)
"""Core clocks with presets: 100, 125 and 200 MHz."""
FIELD_BITS = 8
MIN_SAMPLE_MARGIN_PS = 3000
"""Least room on each side of the DQ capture point (board and I/O delays eat into it)."""

# (field, ONFI parameter, kind): "min" = at least the time, "read" = at least
# the time, lengthened by the read plan when the capture needs it, "capture" =
# the DQ capture point after RE# falls (strictly after tREA, see read_plan).
FIELDS: tuple[tuple[str, str, str], ...] = (
    ("T_WP", "tWP", "min"),
    ("T_WH", "tWH", "min"),
    ("T_WC", "tWC", "min"),
    ("T_DS", "tDS", "min"),
    ("T_RP", "tRP", "read"),
    ("T_REH", "tREH", "read"),
    ("T_RC", "tRC", "read"),
    ("T_REA", "tREA", "capture"),
    ("T_CLS", "tCLS", "min"),
    ("T_ALS", "tALS", "min"),
    ("T_CS", "tCS", "min"),
    ("T_DH", "tDH", "min"),
    ("T_WB", "tWB", "min"),
    ("T_WHR", "tWHR", "min"),
    ("T_RHW", "tRHW", "min"),
    ("T_ADL", "tADL", "min"),
    ("T_CCS", "tCCS", "min"),
    ("T_IR", "tIR", "min"),
    ("T_WW", "tWW", "min"),
)


def cycles(ns: int, period_ps: int) -> int:
    """Whole clock cycles (at least 1) that last `ns` or more at `period_ps`."""
    n = max(-(-ns * 1000 // period_ps), 1)
    if n >= 1 << FIELD_BITS:
        raise ValueError(f"{ns} ns is {n} cycles at {period_ps} ps: over {FIELD_BITS} bits")
    return n


def valid_window_ps(mode: SdrTiming, period_ps: int, low: int, total: int) -> tuple[int, int]:
    """(first, last) ps after RE# falls that DQ holds the byte, reads back to back.

    RE# low `low` clocks of a `total`-clock cycle: valid from tREA; held until
    tRHOH after RE# rises or tRLOH after the next fall, whichever is first.
    """
    end = min(low * period_ps + mode.tRHOH * 1000, total * period_ps + mode.tRLOH * 1000)
    return mode.tREA * 1000, end


def sample_margin_ps(mode: SdrTiming, period_ps: int, low: int, total: int, cap: int) -> int:
    """Room (ps) on the tighter side of a capture `cap` clocks after RE# falls."""
    first, last = valid_window_ps(mode, period_ps, low, total)
    return min(cap * period_ps - first, last - cap * period_ps)


def read_plan(mode: SdrTiming, period_ps: int) -> dict[str, int]:
    """T_RP, T_REH, T_RC and T_REA (capture) of the shortest read cycle with margin.

    Among the cycles of the shortest length that leaves MIN_SAMPLE_MARGIN_PS
    on both sides of the capture, the one with the most margin (then the
    shortest RE# low, the earliest capture).
    """
    low_min, high_min = cycles(mode.tRP, period_ps), cycles(mode.tREH, period_ps)
    shortest = max(cycles(mode.tRC, period_ps), low_min + high_min)
    for total in range(shortest, 1 << FIELD_BITS):
        margin, low, cap = max(
            (sample_margin_ps(mode, period_ps, low, total, cap), -low, -cap)
            for low in range(low_min, total - high_min + 1)
            for cap in range(1, total + 1)
        )
        if margin >= MIN_SAMPLE_MARGIN_PS:
            return {"T_RP": -low, "T_REH": total + low, "T_RC": total, "T_REA": -cap}
    raise ValueError(f"no read cycle of SDR mode {mode.mode} at {period_ps} ps has margin")


def preset(mode: SdrTiming, period_ps: int) -> list[int]:
    """The field values (cycles) of one mode at one clock period, in FIELDS order."""
    values = read_plan(mode, period_ps)
    return [values[name] if name in values else cycles(getattr(mode, param), period_ps)
            for name, param, _ in FIELDS]


def _vector(values: list[int]) -> str:
    return ", ".join(f"8'd{v}" for v in reversed(values))


def render() -> str:
    bits = FIELD_BITS * len(FIELDS)
    out = [
        "// generated from host/nandlab/onfi_spec/sdr_timing.py, nvddr_timing.py and "
        "ddr_features.py by",
        "// nandlab.hwgen.timing, do not edit",
        "// ONFI SDR timing presets in core clock cycles, modes 0..5 per clock period,",
        "// then the DDR presets (nandlab.hwgen.timing_ddr): the same fields for the",
        "// command / address cycles, followed by the DDR burst fields.",
        "// A preset packs the fields below, 8 bits each, field i at bits [8i+7:8i]: the",
        "// same layout as the CSR override registers {TIMING_CCS[23:0], TIMING_TURN,",
        "// TIMING_SETUP, TIMING_READ, TIMING_WRITE}.",
        "",
        "`default_nettype none",
        "",
        "package nandlab_timing_pkg;",
        "",
        "  /* verilator lint_off UNUSEDPARAM */",
        "",
        f"  localparam int TIMING_FIELDS = {len(FIELDS)};",
        f"  localparam int TIMING_BITS = {bits};",
        "  localparam int TIMING_MODES = 6;",
    ]
    for i, (name, param, kind) in enumerate(FIELDS):
        what = {"capture": "DQ capture, clocks after RE# low, after", "read": "read plan, at least"
                }.get(kind, "at least")
        out.append(f"  localparam int {name} = {i};  // {what} {param}")
    ddr_bits = FIELD_BITS * (len(FIELDS) + len(timing_ddr.DDR_FIELDS))
    out.append(f"  localparam int DDR_TIMING_BITS = {ddr_bits};")
    for i, (name, what) in enumerate(timing_ddr.DDR_FIELDS):
        out.append(f"  localparam int {name} = {len(FIELDS) + i};  // {what}")
    out += timing_ddr.repeat_lines()
    out.append("")
    for period in CLOCK_PERIODS_PS:
        out.append(f"  // {period} ps ({1e6 / period:g} MHz); mode 0 in the low bits")
        rows = [preset(m, period) for m in SDR_MODES]
        for m, row in zip(SDR_MODES, rows, strict=True):
            out.append(f"  //   mode {m.mode}: " + " ".join(
                f"{n[2:]}={v}" for (n, _, _), v in zip(FIELDS, row, strict=True)))
        body = ",\n    ".join("{" + _vector(r) + "}" for r in reversed(rows))
        out.append(f"  localparam logic [{len(SDR_MODES) * bits - 1}:0] PRESETS_{period}PS = {{")
        out.append(f"    {body}\n  }};")
        out.append("")
        out += timing_ddr.render_lines(period, tuple(name for name, _, _ in FIELDS))
    out += ["  /* verilator lint_on UNUSEDPARAM */", "", "endpackage : nandlab_timing_pkg", "",
            "`default_nettype wire", ""]
    return "\n".join(out)


def outputs() -> list[Output]:
    return [Output(PKG, render())]
