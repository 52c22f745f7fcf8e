"""ONFI SDR timing presets in clock cycles: nandlab.onfi_spec.sdr_timing -> SV package.

Each preset is the set of PHY timing fields (8 bits each, cycles of the core
clock) for one SDR mode at one clock period. Field order is the order of the
CSR override registers TIMING_WRITE, TIMING_READ, TIMING_SETUP, TIMING_TURN,
TIMING_CCS (hw/regs/nandlab_regs.rdl), so a preset and the override registers
concatenate into the same vector.
"""

from __future__ import annotations

from nandlab.hwgen import REPO, Output
from nandlab.onfi_spec.sdr_timing import SDR_MODES, SdrTiming

PKG = REPO / "hw" / "rtl" / "nandlab_timing_pkg.sv"
CLOCK_PERIODS_PS = (10000, 8000, 5000)
"""Core clocks with presets: 100, 125 and 200 MHz."""
FIELD_BITS = 8

# (field, ONFI parameter, kind): "min" = at least the time, "capture" = first
# clock edge strictly after the time (the DQ sample point after RE# falls).
FIELDS: tuple[tuple[str, str, str], ...] = (
    ("T_WP", "tWP", "min"),
    ("T_WH", "tWH", "min"),
    ("T_WC", "tWC", "min"),
    ("T_DS", "tDS", "min"),
    ("T_RP", "tRP", "min"),
    ("T_REH", "tREH", "min"),
    ("T_RC", "tRC", "min"),
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
)


def cycles(ns: int, period_ps: int, kind: str) -> int:
    """Clock cycles for `ns` at `period_ps`: ceil for a minimum, floor + 1 for a capture point."""
    ps = ns * 1000
    n = ps // period_ps + 1 if kind == "capture" else -(-ps // period_ps)
    n = max(n, 1)
    if n >= 1 << FIELD_BITS:
        raise ValueError(f"{ns} ns is {n} cycles at {period_ps} ps: over {FIELD_BITS} bits")
    return n


def preset(mode: SdrTiming, period_ps: int) -> list[int]:
    """The field values (cycles) of one mode at one clock period, in FIELDS order."""
    return [cycles(getattr(mode, param), period_ps, kind) for _, param, kind in FIELDS]


def _vector(values: list[int]) -> str:
    return ", ".join(f"8'd{v}" for v in reversed(values))


def render() -> str:
    bits = FIELD_BITS * len(FIELDS)
    out = [
        "// generated from host/nandlab/onfi_spec/sdr_timing.py by nandlab.hwgen.timing, "
        "do not edit",
        "// ONFI SDR timing presets in core clock cycles, modes 0..5 per clock period.",
        "// A preset packs the fields below, 8 bits each, field i at bits [8i+7:8i]: the",
        "// same layout as the CSR override registers {TIMING_CCS[7:0], TIMING_TURN,",
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
        what = "capture edge after" if kind == "capture" else "at least"
        out.append(f"  localparam int {name} = {i};  // {what} {param}")
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
    out += ["  /* verilator lint_on UNUSEDPARAM */", "", "endpackage : nandlab_timing_pkg", "",
            "`default_nettype wire", ""]
    return "\n".join(out)


def outputs() -> list[Output]:
    return [Output(PKG, render())]
