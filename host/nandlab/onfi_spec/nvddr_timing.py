"""DDR interface timing: ONFI NV-DDR2 / NV-DDR3 modes and JEDEC Toggle DDR 2.0, in picoseconds.

One table serves the host (negotiation, transfer time), the virtual die's
pin checker and the generated SystemVerilog timing package, so every figure
is an integer number of picoseconds (the SDR table, `sdr_timing`, is in ns).

Sources (facts only; see docs/interfaces.md):

- Cycle times and data rates per mode: ONFI 4.x, NV-DDR2 / NV-DDR3 timing
  modes (tRC = tDSC, the RE_n / DQS period; two transfers per period).
  NV-DDR2 defines modes 0-7 (33-200 MHz, VccQ 1.8 V); NV-DDR3 (ONFI 4.0,
  VccQ 1.2 V) the same modes plus 8-10 (533-800 MT/s); ONFI 4.1 / 4.2 added
  11-15 (up to 1600 MT/s). The same 16 cycle times appear per mode in a
  public ATE test program for an ONFI 4.x part (tper, modes 0-15).
- tDS / tDH per mode and the mode-independent command, preamble and
  postamble figures (tCS 20, tCALS 15, tCALH / tCAS / tCAH / tCH 5, tWP /
  tWH 11, tWPRE / tRPRE 15, tWPST 6.5, tWPSTH 25, tRPSTH 15, tDQSRE max 25,
  tDQSD 6..18, tCSD 10 ns; tRPST = tDQSRE + tRC / 2) as tabulated per mode in
  that same test program, which follows the ONFI 4.x NV-DDR2 / NV-DDR3 AC
  tables. The command-cycle and turnaround figures (tWC 25, tWB 100, tWHR
  80, tRHW 100, tADL 400, tCCS 400 ns) as a second public test table for a
  1600 MT/s ONFI part lists them; the part's own tCCS (parameter page)
  overrides tCCS, as for SDR.
- tDQSQ (DQS-DQ skew, die output, max) modes 0-7 as the ONFI 3.x / 4.x
  NV-DDR2 table gives them (2.5, 2.0, 1.4, 1.0, 0.8, 0.6, 0.5, 0.4 ns) and
  modes 8-10 as ONFI 4.0's NV-DDR3 (0.3, 0.25, 0.2 ns), written down from the
  specification without a second public copy to check them against (the
  public test tables above do not list tDQSQ). Modes 11-15 (ONFI 4.1 / 4.2)
  are DERIVED, not read: no public copy of those tables, vendor datasheet or
  driver we could find lists them (searched again for issue 19; the only
  tDQSQ figures at 1066-1600 MT/s found were DDR3 SDRAM sheets, another
  interface). From mode 7 on the specification's tDQSQ is a fixed share of
  the cycle (8.0 / 8.0 / 8.3 / 8.0 % of tRC at modes 7-10), so modes 11-15
  take `TDQSQ_SHARE` = 8 % of their tRC (150 ps at 1066 MT/s down to 100 ps
  at 1600 MT/s), marked in `TDQSQ_DERIVED_MODES`; the die's data eye and the
  checker's capture window are that much less certain in those modes.
- tQH (DQ-DQS output hold, min) = 0.37 tRC, tDQSH / tDQSL (host DQS pulse,
  min) = 0.43 tDSC, tREH / tRP = 0.43 tRC: the ONFI NV-DDR2 / NV-DDR3
  proportional limits.
- Toggle DDR 2.0 (JEDEC JESD230, the ONFI-JEDEC joint task group's
  harmonised DDR interface): the same AC limits as NV-DDR2 at the same cycle
  time, 1.8 V, up to 400 MT/s; a Toggle part is DDR from power-on and has
  no ONFI timing-mode feature, so its "modes" here are the speed grades
  indexed like NV-DDR2's (0-7). UNCHECKED: no public Toggle DDR 2.0 AC table
  (JESD230, a Samsung or Kioxia datasheet) giving tDQSQ / tQH / preambles per
  speed was found (searched again for issue 19's leftovers: a Toshiba Toggle
  DDR 1.0 sheet exists only as a title page; open controllers such as
  Cosmos+ OpenSSD hold their own clock counts, not the die's limits).
- tDQSS (first DQS edge to CLK) exists only in the clocked NV-DDR
  interface; the CLK-less NV-DDR2 / NV-DDR3 / Toggle write is checked
  through tWPRE and tDQSH / tDQSL instead (no field here).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class DdrInterface(StrEnum):
    """A DDR data interface; the value is the name used in profiles, boards and CLI output."""

    NV_DDR2 = "nv-ddr2"
    NV_DDR3 = "nv-ddr3"
    TOGGLE2 = "toggle2"


# Feature 01h bits 5:4 (data interface) for the ONFI interfaces; Toggle has none.
FEATURE_01H_INTERFACE = {"sdr": 0, "nv-ddr": 1, "nv-ddr2": 2, "nv-ddr3": 3}

# Cycle time (ps) and rated data rate (MT/s) of modes 0..15.
_T_RC = (30000, 25000, 15000, 12000, 10000, 7500, 6000, 5000,
         3750, 3000, 2500, 1875, 1667, 1500, 1364, 1250)
_RATE = (66, 80, 133, 166, 200, 266, 333, 400, 533, 667, 800, 1066, 1200, 1333, 1466, 1600)
_T_DS = (4000, 3300, 2000, 1100, 700, 600, 550, 400, 300, 260, 240, 220, 200, 180, 160, 140)
_T_DH = (4000, 3300, 2000, 1100, 700, 600, 550, 400, 300, 260, 240, 220, 200, 200, 180, 180)
_T_DQSQ_SPEC = (2500, 2000, 1400, 1000, 800, 600, 500, 400, 300, 250, 200)
TDQSQ_DERIVED_MODES = frozenset(range(len(_T_DQSQ_SPEC), 16))
TDQSQ_SHARE = 0.08
"""tDQSQ / tRC of the specification's modes 7-10, applied to the derived modes 11-15."""

MODES_PER_INTERFACE = {
    DdrInterface.NV_DDR2: 8,
    DdrInterface.NV_DDR3: 16,
    DdrInterface.TOGGLE2: 8,
}
VCCQ_MV = {DdrInterface.NV_DDR2: 1800, DdrInterface.NV_DDR3: 1200, DdrInterface.TOGGLE2: 1800}


@dataclass(frozen=True)
class DdrTiming:
    """Timing of one DDR mode, every field in ps.

    Die output limits (the host's capture must allow for them): tDQSRE
    (RE_n edge to DQS edge, max), tDQSQ (DQS edge to last DQ settling, max),
    tQH (DQ valid after DQS edge, min). Host output limits (the die's pin
    checker enforces them): tDS / tDH around each DQS edge, tDQSH / tDQSL,
    tREH / tRP, preambles and postambles, command / address setup and hold.
    """

    interface: DdrInterface
    mode: int
    tRC: int
    data_rate_mts: int
    tDS: int
    tDH: int
    tDQSQ: int
    tQH: int
    tDQSH: int
    tDQSL: int
    tREH: int
    tRP: int
    tDQSRE: int = 25000
    tWPRE: int = 15000
    tWPST: int = 6500
    tWPSTH: int = 25000
    tRPRE: int = 15000
    tRPSTH: int = 15000
    tCS: int = 20000
    tCALS: int = 15000
    tCALH: int = 5000
    tCAS: int = 5000
    tCAH: int = 5000
    tCH: int = 5000
    tWP: int = 11000
    tWH: int = 11000
    tWC: int = 25000
    tWB: int = 100000
    tWHR: int = 80000
    tRHW: int = 100000
    tADL: int = 400000
    tCCS: int = 400000
    tCSD: int = 10000
    tDQSD_min: int = 6000
    tDQSD_max: int = 18000

    @property
    def tDSC(self) -> int:
        """DQS cycle time on data input: the same period as tRC."""
        return self.tRC

    @property
    def tRPST(self) -> int:
        """Read postamble (min): RE_n held after the last edge until DQS has returned."""
        return self.tDQSRE + self.tRC // 2

    @property
    def vccq_mv(self) -> int:
        return VCCQ_MV[self.interface]

    @property
    def data_eye_ps(self) -> int:
        """Width of the read data eye at the die's pins: tQH - tDQSQ."""
        return self.tQH - self.tDQSQ

    def transfer_ns(self, n_bytes: int) -> float:
        """Time to move n_bytes on an 8-bit bus at this mode's rated rate."""
        return n_bytes * 1000.0 / self.data_rate_mts


def _row(interface: DdrInterface, mode: int) -> DdrTiming:
    t_rc = _T_RC[mode]
    dqsq = _T_DQSQ_SPEC[mode] if mode < len(_T_DQSQ_SPEC) else round(t_rc * TDQSQ_SHARE)
    return DdrTiming(
        interface=interface,
        mode=mode,
        tRC=t_rc,
        data_rate_mts=_RATE[mode],
        tDS=_T_DS[mode],
        tDH=_T_DH[mode],
        tDQSQ=dqsq,
        tQH=round(t_rc * 0.37),
        tDQSH=round(t_rc * 0.43),
        tDQSL=round(t_rc * 0.43),
        tREH=round(t_rc * 0.43),
        tRP=round(t_rc * 0.43),
    )


DDR_MODES: dict[DdrInterface, tuple[DdrTiming, ...]] = {
    iface: tuple(_row(iface, m) for m in range(n)) for iface, n in MODES_PER_INTERFACE.items()
}


def ddr(interface: DdrInterface | str, mode: int) -> DdrTiming:
    """Timing of one DDR interface mode; ValueError names the allowed interfaces or modes."""
    try:
        iface = DdrInterface(interface)
    except ValueError:
        known = ", ".join(i.value for i in DdrInterface)
        raise ValueError(f"unknown DDR interface {interface!r}: known {known}") from None
    modes = DDR_MODES[iface]
    if not 0 <= mode < len(modes):
        last = len(modes) - 1
        raise ValueError(f"{iface.value} timing mode {mode} does not exist: use 0..{last}")
    return modes[mode]


def mode_for_rate(interface: DdrInterface | str, data_rate_mts: int) -> DdrTiming:
    """The fastest mode of an interface whose rated rate does not exceed data_rate_mts."""
    iface = DdrInterface(interface)
    fitting = [t for t in DDR_MODES[iface] if t.data_rate_mts <= data_rate_mts]
    if not fitting:
        raise ValueError(
            f"{iface.value} has no mode at or below {data_rate_mts} MT/s "
            f"(slowest is {DDR_MODES[iface][0].data_rate_mts} MT/s)"
        )
    return fitting[-1]
