"""DDR timing presets in clock cycles: nandlab.onfi_spec.nvddr_timing -> SV package.

Part of hw/rtl/nandlab_timing_pkg.sv (rendered by `nandlab.hwgen.timing`).
A DDR preset is the SDR field vector (the command / address cycles and the
turnarounds, which the PHY runs as in SDR) followed by the burst fields:

- T_BIT: clocks per transfer (one RE# or DQS edge, one byte). The PHY moves
  at most one byte per core clock, so a mode faster than the clock runs at
  the clock's rate (slower than rated, which ONFI allows: tRC / tDSC are minima).
- T_RPRE, T_RPST, T_RPSTH: read preamble (RE# low before the first edge),
  postamble (RE# held after the last edge: tDQSRE + half a cycle, so the
  die's last DQS edge and its data are out) and postamble hold.
- T_WPRE, T_WPST, T_WPSTH: write preamble (DQS driven low before the first
  edge), postamble (DQS held after the last edge) and postamble hold (DQS and
  DQ driven after it).

The command / address fields come from the DDR table: tWP, tWH (tWC is their
sum), tCALS for tCLS / tALS, tCAS for tDS, tCAH for tDH, tCS. The DDR table
has no tWB, tWHR, tRHW, tADL, tCCS, tIR or tWW: those are ONFI's SDR mode 5
figures (the mode-independent ones of the SDR table). The SDR read fields
(tRP, tREH, tRC) take the DDR tRP / tREH; no SDR read runs in a DDR mode.

REPEAT_BYTE_CMDS (once, not per clock): a 256-bit mask of the opcodes whose
data bytes go twice in NV-DDR2 / NV-DDR3 (`onfi_spec.ddr_features`).
"""

from __future__ import annotations

from nandlab.onfi_spec.ddr_features import REPEAT_BYTE_COMMANDS
from nandlab.onfi_spec.nvddr_timing import DDR_MODES, DdrInterface, DdrTiming
from nandlab.onfi_spec.sdr_timing import SDR_MODES

FIELD_BITS = 8
DDR_FIELDS: tuple[tuple[str, str], ...] = (
    ("T_BIT", "transfer: half tRC, at least one clock"),
    ("T_RPRE", "at least tRPRE"),
    ("T_RPST", "at least tDQSRE + T_BIT"),
    ("T_RPSTH", "at least tRPSTH"),
    ("T_WPRE", "at least tWPRE"),
    ("T_WPST", "at least tWPST"),
    ("T_WPSTH", "at least tWPSTH"),
)
INTERFACE_SLOTS: tuple[DdrInterface, ...] = (
    DdrInterface.NV_DDR2, DdrInterface.NV_DDR3, DdrInterface.TOGGLE2)
"""Preset table order: entry slot * 16 + mode (nandlab_ops_pkg IF_NV_DDR2 + slot ...)."""
MODES_PER_SLOT = 16


def cycles_ps(ps: int, period_ps: int) -> int:
    """Whole clock cycles (at least 1) that last `ps` or more."""
    n = max(-(-ps // period_ps), 1)
    if n >= 1 << FIELD_BITS:
        raise ValueError(f"{ps} ps is {n} cycles at {period_ps} ps: over {FIELD_BITS} bits")
    return n


def sdr_part(t: DdrTiming, period_ps: int) -> dict[str, int]:
    """The SDR-layout fields (nandlab.hwgen.timing.FIELDS names) of a DDR mode."""
    sdr5 = SDR_MODES[5]
    wp, wh = cycles_ps(t.tWP, period_ps), cycles_ps(t.tWH, period_ps)
    rp, reh = cycles_ps(t.tRP, period_ps), cycles_ps(t.tREH, period_ps)
    ns = {
        "T_WP": wp, "T_WH": wh, "T_WC": wp + wh, "T_DS": cycles_ps(t.tCAS, period_ps),
        "T_RP": rp, "T_REH": reh, "T_RC": rp + reh, "T_REA": 1,
        "T_CLS": cycles_ps(t.tCALS, period_ps), "T_ALS": cycles_ps(t.tCALS, period_ps),
        "T_CS": cycles_ps(t.tCS, period_ps), "T_DH": cycles_ps(t.tCAH, period_ps),
    }
    for name, param in (("T_WB", "tWB"), ("T_WHR", "tWHR"), ("T_RHW", "tRHW"),
                        ("T_ADL", "tADL"), ("T_CCS", "tCCS"), ("T_IR", "tIR"), ("T_WW", "tWW")):
        ns[name] = cycles_ps(getattr(sdr5, param) * 1000, period_ps)
    return ns


def bit_cycles(t: DdrTiming, period_ps: int) -> int:
    """Clocks per transfer: half the cycle time, rounded up, at least one."""
    return cycles_ps(-(-t.tRC // 2), period_ps)


def ddr_part(t: DdrTiming, period_ps: int) -> list[int]:
    """The burst fields (DDR_FIELDS order) of a DDR mode."""
    bit = bit_cycles(t, period_ps)
    return [
        bit,
        cycles_ps(t.tRPRE, period_ps),
        cycles_ps(t.tDQSRE, period_ps) + bit,
        cycles_ps(t.tRPSTH, period_ps),
        cycles_ps(t.tWPRE, period_ps),
        cycles_ps(t.tWPST, period_ps),
        cycles_ps(t.tWPSTH, period_ps),
    ]


def preset(t: DdrTiming, period_ps: int, sdr_fields: tuple[str, ...]) -> list[int]:
    """All fields of one DDR mode: the SDR layout (in `sdr_fields` order), then the burst fields."""
    sdr = sdr_part(t, period_ps)
    return [sdr[name] for name in sdr_fields] + ddr_part(t, period_ps)


def rated_efficiency(t: DdrTiming, period_ps: int) -> float:
    """Rated transfer time over the PHY's (1.0 when one transfer fits in T_BIT clocks exactly)."""
    return (t.tRC / 2) / (bit_cycles(t, period_ps) * period_ps)


def repeat_lines() -> list[str]:
    """REPEAT_BYTE_CMDS: bit i set when opcode i's data bytes go twice in NV-DDR2 / NV-DDR3."""
    mask = sum(1 << int(op) for op in REPEAT_BYTE_COMMANDS)
    names = ", ".join(f"{int(op):02X}h" for op in sorted(REPEAT_BYTE_COMMANDS))
    return [f"  // opcodes whose data bytes are repeated in NV-DDR2 / NV-DDR3: {names}",
            f"  localparam logic [255:0] REPEAT_BYTE_CMDS = 256'h{mask:064X};"]


def render_lines(period_ps: int, sdr_fields: tuple[str, ...]) -> list[str]:
    """Package lines of the DDR presets at one clock period."""
    n_fields = len(sdr_fields) + len(DDR_FIELDS)
    zero = [0] * n_fields
    rows: list[list[int]] = []
    out = [f"  // DDR presets at {period_ps} ps: entry slot * 16 + mode, slots "
           + ", ".join(f"{i} {s.value}" for i, s in enumerate(INTERFACE_SLOTS))
           + "; modes an interface lacks are 0"]
    for iface in INTERFACE_SLOTS:
        modes = DDR_MODES[iface]
        for m in range(MODES_PER_SLOT):
            if m < len(modes):
                row = preset(modes[m], period_ps, sdr_fields)
                ddr = row[len(sdr_fields):]
                out.append(f"  //   {iface.value} mode {m} ({modes[m].data_rate_mts} MT/s): "
                           + " ".join(f"{n[2:]}={v}" for (n, _), v in zip(DDR_FIELDS, ddr,
                                                                          strict=True)))
                rows.append(row)
            else:
                rows.append(zero)
    body = ",\n    ".join("{" + ", ".join(f"8'd{v}" for v in reversed(r)) + "}"
                          for r in reversed(rows))
    bits = FIELD_BITS * n_fields * len(rows)
    out.append(f"  localparam logic [{bits - 1}:0] DDR_PRESETS_{period_ps}PS = {{")
    out.append(f"    {body}\n  }};")
    out.append("")
    return out
