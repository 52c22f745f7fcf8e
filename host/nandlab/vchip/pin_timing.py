"""ONFI SDR timing checks on recorded pin edges (pure Python, no simulator).

The one checker of both pin-level benches: the virtual FT2232H
(`nandlab.vusb.nand_bus`) and the RTL cocotb testbenches
(`nandlab.rtlsim.onfi_pins`). A controller model reports every edge of the
ONFI pins, in time order, with `edge(t_ps, pin, level)`; the checker measures
each SDR parameter the controller owns against the selected timing mode
(`nandlab.onfi_spec.sdr_timing`, plus the hold and turnaround minima
tabulated below) and records a `TimingViolation` per broken rule.

Pins: ``ce_n`` (CE# of the selected target: low when any target is selected),
``cle``, ``ale``, ``we_n``, ``re_n``, ``dq`` (the byte the controller drives),
``dq_oe`` (1 while the controller drives DQ), ``rb_n`` (R/B# of the selected
target, driven by the chip), ``wp_n``. Times are integer picoseconds.

=========  =====================================================  ==========
parameter  measured                                                checked at
=========  =====================================================  ==========
tWP        WE# low pulse                                           WE# rise
tWH        WE# high between cycles                                 WE# fall
tWC        WE# fall to WE# fall                                    WE# fall
tRP        RE# low pulse                                           RE# rise
tREH       RE# high between cycles                                 RE# fall
tRC        RE# fall to RE# fall                                    RE# fall
tCLS/tALS  CLE / ALE stable before WE# rise (either level)         WE# rise
tCLH/tALH  WE# rise to CLE / ALE fall after a command / address    CLE/ALE
tCS        CE# low before WE# rise                                 WE# rise
tCH        WE# rise to CE# rise                                    CE# rise
tDS        DQ (and its output enable) stable before WE# rise       WE# rise
tDH        WE# rise to the next DQ change                          DQ change
tWB        WE# rise that starts a busy period to the next cycle    WE#/RE# fall
tWHR       last WE# rise to RE# fall                               RE# fall
tADL       last address WE# rise to first data WE# rise            WE# rise
tCCS       change column (E0h; 85h + address) to data out / in     RE#/WE#
tRHW       RE# rise to WE# fall                                    WE# fall
tRR        R/B# rise to RE# fall                                   RE# fall
tCLR/tAR   CLE / ALE low before RE# fall                           RE# fall
tCR        CE# low to RE# fall                                     RE# fall
tIR        DQ released (output enable low) to RE# fall             RE# fall
tRHZ       RE# rise to the controller driving DQ again             DQ_OE rise
tWW        WP# change to WE# fall                                  WE# fall
=========  =====================================================  ==========

Holds (tCLH, tALH, tCH, tDH) are measured against the mode the latching WE#
cycle ran in: a RESET latched at a WE# rise returns the die to mode 0 only
after that rise, so the controller may still release CLE with mode-5 holds.

tWB is required after every cycle that starts a busy period, whether or not
R/B# is watched: the confirm commands (`BUSY_CMDS`), the address of READ
PARAMETER PAGE / UNIQUE ID / GET FEATURES, the last parameter of SET
FEATURES, and any cycle R/B# falls after (vendor operations).

Bus rules (reported with no measured value): CE# low during a cycle, CLE and
ALE never both high at a WE# rise, WE# and RE# never both low, DQ driven at a
WE# rise and released at a RE# fall; while R/B# is low only READ STATUS
(70h, 78h + address), its data out and RESET (FFh, FCh, FAh) may run
("busy": a real die returns garbage to a read and ignores or corrupts on a
write); `rule()` lets an adapter add its own (e.g. two targets selected at once).

Controller samples (`sample_dq`, `sample_rb`): DQ read no earlier than tREA
after RE# fell and tCEA after CE# fell, and no later than the die holds the
byte: tRHOH after RE# rose, tRLOH after the next RE# fall (EDO, modes 4, 5),
tCOH after CE# rose (a sample on the very edge a hold ends passes with
margin 0). R/B# not looked at within tWB of the cycle that starts busy.

Every measured rule also records its margin (measured - required, ns):
`margins` holds the smallest seen per parameter, the figure a bench reports.

`check_edges()` runs the checker over a recorded edge list.

    >>> chk = SdrTimingChecker(mode=0)
    >>> for pin, level in (("ce_n", 0), ("cle", 1), ("dq_oe", 1), ("we_n", 0)):
    ...     chk.edge(0, pin, level)
    >>> chk.edge(30_000, "we_n", 1)          # 30 ns < tWP 50 ns
    >>> chk.violations[0].param
    'tWP'
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace

from nandlab.onfi_spec.sdr_timing import SdrTiming, sdr

PS_PER_NS = 1000

PINS = ("ce_n", "cle", "ale", "we_n", "re_n", "dq", "dq_oe", "rb_n", "wp_n")
BUSY_CMDS = frozenset({0x10, 0x11, 0x15, 0x30, 0x31, 0x32, 0x35, 0x3F, 0xD0, 0xD1,
                       0xFA, 0xFC, 0xFF})
"""Commands whose WE# rise starts a busy period (confirms and resets)."""
BUSY_AFTER_ADDR = frozenset({0xEC, 0xED, 0xEE})
"""Commands whose (single) address cycle starts a busy period."""
CMD_SET_FEATURES = 0xEF
FEATURE_PARAMS = 4
STATUS_CMDS = frozenset({0x70, 0x78})
RESET_CMDS = frozenset({0xFA, 0xFC, 0xFF})
CMD_CHANGE_READ_COLUMN_CONFIRM = 0xE0
CMD_CHANGE_WRITE_COLUMN = 0x85
NEVER = -(10**18)
"""Time of an edge that has not happened (every rule measured from it is skipped)."""


@dataclass(frozen=True)
class TimingViolation:
    """A broken rule: `param` measured `measured_ns` where at least `required_ns` is needed.

    Bus-rule faults (CE# high during a cycle, DQ not driven...) have
    measured_ns = -inf and required_ns = 0; `detail` says what happened.
    """

    param: str
    t_ns: float
    measured_ns: float
    required_ns: float
    mode: int
    detail: str = ""

    def __str__(self) -> str:
        got = "n/a" if math.isinf(self.measured_ns) else f"{self.measured_ns:g} ns"
        text = (
            f"ONFI SDR mode {self.mode}: {self.param} violated at t = {self.t_ns:g} ns: "
            f"measured {got}, required >= {self.required_ns:g} ns"
        )
        return f"{text} ({self.detail})" if self.detail else text


class OnfiTimingError(AssertionError):
    """Raised by a strict checker at its first violation (fails a cocotb test)."""

    def __init__(self, violation: TimingViolation) -> None:
        super().__init__(str(violation))
        self.violation = violation


def limits(mode: int, t_ccs_ns: int | None = None) -> SdrTiming:
    """The ONFI table of SDR mode `mode`, with the part's tCCS when given."""
    s = sdr(mode)
    return s if t_ccs_ns is None else replace(s, tCCS=t_ccs_ns)


class SdrTimingChecker:
    """Checks ONFI SDR timing over the pin edges of one channel.

    Args:
        mode: SDR timing mode (0..5) to check against; `set_mode` changes it.
        strict: raise OnfiTimingError at the first violation instead of collecting.
        t_ccs_ns: the part's tCCS (parameter page); ONFI's 500 ns when None.
    """

    def __init__(self, mode: int = 0, *, strict: bool = False, t_ccs_ns: int | None = None):
        self.strict = strict
        self.t_ccs_ns = t_ccs_ns
        self.limits = limits(mode, t_ccs_ns)
        self.violations: list[TimingViolation] = []
        self.margins: dict[str, float] = {}
        """Smallest margin (measured - required, ns) seen per parameter."""
        self.level: dict[str, int] = {p: int(p.endswith("_n")) for p in PINS}
        self.changed: dict[str, int] = dict.fromkeys(PINS, NEVER)
        self.we_fall = self.we_rise = self.re_fall = self.re_rise = NEVER
        self.prev_re_fall = NEVER  # the RE# fall before the last one (EDO sample)
        self.pending_sample: int | None = None  # a DQ sample with RE# low, held to its rise
        # holds after a WE# rise belong to the mode the cycle ran in: a RESET
        # latched at that rise puts the die back in mode 0 only afterwards
        self.we_rise_limits = self.limits
        self.rb_rise = NEVER
        self.addr_rise = NEVER  # WE# rise of the last address cycle
        self.last_cmd: int | None = None
        self.last_cycle = ""  # "cmd" | "addr" | "data" of the last WE# cycle
        self.data_cycles = 0  # data cycles since the last address (SET FEATURES P1..P4)
        self.busy_start = NEVER  # WE# rise of the last cycle that starts busy (tWB)
        self.busy_start_limits = self.limits  # the mode of that cycle: tWB is its own
        self.busy_from: int | None = None  # a busy start no cycle has followed yet
        self.column_change: int | None = None  # t of a change-column point (tCCS)
        self.cycles = 0

    @property
    def mode(self) -> int:
        return self.limits.mode

    def set_mode(self, mode: int) -> None:
        """Check later edges against SDR mode `mode` (0..5)."""
        if mode != self.mode:
            self.limits = limits(mode, self.t_ccs_ns)

    # ---------------------------------------------------------------- reporting

    def _violate(
        self, param: str, t: int, measured_ps: float, required_ns: float, detail: str = ""
    ) -> None:
        v = TimingViolation(
            param, t / PS_PER_NS, measured_ps / PS_PER_NS, required_ns, self.mode, detail
        )
        self.violations.append(v)
        if self.strict:
            raise OnfiTimingError(v)

    def _margin(self, param: str, margin_ps: int) -> None:
        ns = margin_ps / PS_PER_NS
        if ns < self.margins.get(param, math.inf):
            self.margins[param] = ns

    def _at_least(self, param: str, t: int, since: int, need_ns: int, detail: str = "") -> None:
        """Require t - since >= need_ns (skipped when `since` never happened)."""
        if since == NEVER:
            return
        self._margin(param, t - since - need_ns * PS_PER_NS)
        if t - since < need_ns * PS_PER_NS:
            self._violate(param, t, t - since, need_ns, detail)

    def _hold(self, param: str, t: int, until: int, detail: str) -> None:
        """A sample at t needs the die's output hold, which ends at `until`."""
        self._margin(param, until - t)
        if t > until:
            self._violate(param, t, until - t, 0, detail)

    def rule(self, ok: bool, param: str, t: int, detail: str) -> None:
        """Record a bus-rule violation `param` at `t` (ps) unless `ok`."""
        if not ok:
            self._violate(param, t, -math.inf, 0, detail)

    # ---------------------------------------------------------------- input

    def edge(self, t_ps: int, pin: str, level: int) -> None:
        """`pin` took `level` at `t_ps`; edges must come in time order."""
        if pin not in self.level:
            raise ValueError(f"unknown pin '{pin}': pins are {', '.join(PINS)}")
        level = int(level)
        if self.level[pin] == level:
            return
        t = int(t_ps)
        if pin == "we_n":
            self._we(t, level)
        elif pin == "re_n":
            self._re(t, level)
        elif pin == "rb_n":
            if level:
                self.rb_rise = t
            elif self.busy_start != self.we_rise:
                self._busy_started(self.we_rise, self.we_rise_limits)
        elif pin in ("dq", "dq_oe"):
            if self.level["dq_oe"] or self.changed["dq_oe"] == t:
                self._after_latch("tDH", t, self.we_rise_limits.tDH, "")
            if pin == "dq_oe" and level:
                self._dq_driven(t)
        elif level == 0 and pin in ("cle", "ale"):
            if self.last_cycle == ("cmd" if pin == "cle" else "addr"):
                lim = self.we_rise_limits
                param, need = ("tCLH", lim.tCLH) if pin == "cle" else ("tALH", lim.tALH)
                self._after_latch(param, t, need, pin)
        elif pin == "ce_n" and level == 1:
            self._after_latch("tCH", t, self.we_rise_limits.tCH, "ce_n")
        self.level[pin] = level
        self.changed[pin] = t

    def _after_latch(self, param: str, t: int, need_ns: int, pin: str) -> None:
        # a hold rule applies to the first change after the latching WE# rise
        # (pin "" = DQ: the data or its output enable)
        last = self.changed[pin] if pin else max(self.changed["dq"], self.changed["dq_oe"])
        if last <= self.we_rise:
            self._at_least(param, t, self.we_rise, need_ns)

    def _dq_driven(self, t: int) -> None:
        """The controller drives DQ: the die must have let go (tRHZ, or tCHZ with CE# high)."""
        if self.re_rise <= self.we_rise or self.re_rise == NEVER:
            return  # no read since the last write: the die is not driving
        ce_high_ps = t - self.changed["ce_n"] if self.level["ce_n"] else -1
        if ce_high_ps < self.limits.tCHZ * PS_PER_NS:
            self._at_least("tRHZ", t, self.re_rise, self.limits.tRHZ, "RE# high to DQ driven")

    def _busy_started(self, t: int, lim: SdrTiming) -> None:
        self.busy_start, self.busy_start_limits, self.busy_from = t, lim, t

    def _busy(self) -> bool:
        return self.level["rb_n"] == 0

    def sample_dq(self, t_ps: int) -> None:
        """The controller latched DQ at `t_ps`.

        Valid from tREA after RE# fell (and tCEA after CE# fell) until the
        die's output hold ends: tRHOH after RE# rose, tRLOH after the next RE#
        fall (EDO), tCOH after CE# rose. A sample at the instant of a RE# fall
        belongs to the cycle before it; a sample with RE# low is held against
        the coming RE# rise. A sample on the very edge a hold ends passes with
        margin 0 (`margins`): a bench that needs margin asserts on it.
        """
        t, s = int(t_ps), self.limits
        fall, edo_next = self.re_fall, False
        if self.level["re_n"] == 0 and fall == t:
            fall, edo_next = self.prev_re_fall, True
        if fall == NEVER:
            self.rule(False, "tREA", t, "DQ sampled before any read cycle")
            return
        self._at_least("tREA", t, fall, s.tREA, "RE# low to DQ sampled")
        if self.level["ce_n"] == 0:
            self._at_least("tCEA", t, self.changed["ce_n"], s.tCEA, "CE# low to DQ sampled")
        else:
            self._hold("tCOH", t, self.changed["ce_n"] + s.tCOH * PS_PER_NS,
                       "DQ sampled after CE# rose, beyond tCOH")
        if edo_next:
            self._hold("tRLOH", t, t + s.tRLOH * PS_PER_NS, "DQ sampled on the next RE# fall")
        if self.re_rise > fall:
            self._hold("tRHOH", t, self.re_rise + s.tRHOH * PS_PER_NS,
                       f"DQ sampled after RE# rose, beyond tRHOH {s.tRHOH} ns")
        else:
            self.pending_sample = t

    def sample_rb(self, t_ps: int) -> None:
        """The controller looked at R/B# at `t_ps`: not within tWB of a busy start."""
        self._at_least("tWB", int(t_ps), self.busy_start, self.busy_start_limits.tWB,
                       "R/B# sampled too soon after a busy start")

    # ---------------------------------------------------------------- cycles

    def _we(self, t: int, level: int) -> None:
        s = self.limits
        if level == 0:
            self._at_least("tWH", t, self.we_rise, s.tWH)
            self._at_least("tWC", t, self.we_fall, s.tWC)
            if self.re_rise > self.we_rise:
                self._at_least("tRHW", t, self.re_rise, s.tRHW)
            self._at_least("tWW", t, self.changed["wp_n"], s.tWW, "WP# change to WE# low")
            self._busy_gap(t)
            self.rule(self.level["re_n"] == 1, "WE#/RE#", t, "WE# fell while RE# is low")
            self.we_fall = t
            return
        self._at_least("tWP", t, self.we_fall, s.tWP)
        self.rule(self.level["ce_n"] == 0, "tCS", t, "WE# rose with CE# high")
        self._at_least("tCS", t, self.changed["ce_n"], s.tCS, "CE# low to WE# high")
        cle, ale, dq = self.level["cle"], self.level["ale"], self.level["dq"]
        self.rule(not (cle and ale), "CLE/ALE", t, "CLE and ALE both high at WE# rise")
        self._at_least("tCLS", t, self.changed["cle"], s.tCLS, f"CLE={cle} to WE# high")
        self._at_least("tALS", t, self.changed["ale"], s.tALS, f"ALE={ale} to WE# high")
        self.rule(self.level["dq_oe"] == 1, "tDS", t, "DQ not driven at WE# rise")
        self._at_least("tDS", t, max(self.changed["dq"], self.changed["dq_oe"]), s.tDS)
        if self._busy():
            ok = bool(cle and dq in STATUS_CMDS | RESET_CMDS) or bool(ale and self.last_cmd == 0x78)
            what = f"command {dq:02X}h" if cle else "address" if ale else "data in"
            self.rule(ok, "busy", t, f"{what} while R/B# is low")
        starts_busy = False
        if cle:
            self.last_cycle, self.last_cmd = "cmd", dq
            starts_busy = dq in BUSY_CMDS
            if dq == CMD_CHANGE_READ_COLUMN_CONFIRM:
                self.column_change = t
        elif ale:
            self.last_cycle, self.addr_rise, self.data_cycles = "addr", t, 0
            starts_busy = self.last_cmd in BUSY_AFTER_ADDR
            if self.last_cmd == CMD_CHANGE_WRITE_COLUMN:
                self.column_change = t
        else:
            if self.last_cycle == "addr":
                if self.last_cmd == CMD_CHANGE_WRITE_COLUMN and self.column_change is not None:
                    self._at_least("tCCS", t, self.addr_rise, s.tCCS, "85h address to data in")
                else:
                    self._at_least("tADL", t, self.addr_rise, s.tADL, "address to data in")
            self.last_cycle = "data"
            self.data_cycles += 1
            starts_busy = self.last_cmd == CMD_SET_FEATURES and self.data_cycles == FEATURE_PARAMS
        if starts_busy:
            self._busy_started(t, s)
        self.we_rise = t
        self.we_rise_limits = s
        self.cycles += 1

    def _re(self, t: int, level: int) -> None:
        s = self.limits
        if level == 1:
            self._at_least("tRP", t, self.re_fall, s.tRP)
            self.re_rise = t
            if self.pending_sample is not None:
                self._hold("tRHOH", self.pending_sample, t + s.tRHOH * PS_PER_NS,
                           "DQ sampled with RE# low")
                self.pending_sample = None
            return
        self._at_least("tREH", t, self.re_rise, s.tREH)
        self._at_least("tRC", t, self.re_fall, s.tRC)
        self.rule(self.level["ce_n"] == 0, "CE#", t, "RE# fell with CE# high")
        self.rule(self.level["we_n"] == 1, "WE#/RE#", t, "RE# fell while WE# is low")
        self.rule(self.level["dq_oe"] == 0, "DQ_OE", t, "controller drives DQ at RE# fall")
        self.rule(self.level["cle"] == 0, "tCLR", t, "CLE high at RE# fall")
        self.rule(self.level["ale"] == 0, "tAR", t, "ALE high at RE# fall")
        self._at_least("tCLR", t, self.changed["cle"], s.tCLR, "CLE low to RE# low")
        self._at_least("tAR", t, self.changed["ale"], s.tAR, "ALE low to RE# low")
        self._at_least("tCR", t, self.changed["ce_n"], s.tCR, "CE# low to RE# low")
        self._at_least("tIR", t, self.changed["dq_oe"], s.tIR, "DQ released to RE# low")
        if self._busy():
            ok = self.last_cmd == 0x70 or (self.last_cmd == 0x78 and self.last_cycle == "addr")
            self.rule(ok, "busy", t, "data out while R/B# is low (not a status read)")
        if self.we_rise > self.re_rise:
            self._at_least("tWHR", t, self.we_rise, s.tWHR)
            if self.last_cycle == "cmd" and self.column_change == self.we_rise:
                self._at_least("tCCS", t, self.we_rise, s.tCCS, "E0h to data out")
        if self.rb_rise > max(self.re_rise, self.we_rise):
            self._at_least("tRR", t, self.rb_rise, s.tRR)
        self._busy_gap(t)
        self.prev_re_fall, self.re_fall = self.re_fall, t
        self.cycles += 1

    def _busy_gap(self, t: int) -> None:
        if self.busy_from is not None:
            tWB = self.busy_start_limits.tWB
            self._at_least("tWB", t, self.busy_from, tWB, "busy start to next cycle")
            self.busy_from = None


def check_edges(
    edges: Iterable[tuple[int, str, int]], mode: int = 0, *, t_ccs_ns: int | None = None
) -> list[TimingViolation]:
    """Every violation in (t_ps, pin, level) edges given in time order."""
    checker = SdrTimingChecker(mode, t_ccs_ns=t_ccs_ns)
    for t, pin, level in edges:
        checker.edge(t, pin, level)
    return checker.violations
