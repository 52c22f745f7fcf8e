"""ONFI SDR timing checker on pin edges (pure Python, no simulator needed).

Feed it every edge of a controller's ONFI pins, in time order, and it checks
each SDR timing parameter the controller is responsible for against the
selected timing mode:

=========  =====================================================  ==========
parameter  measured                                                reference
=========  =====================================================  ==========
tWP        WE# low pulse                                           WE# rise
tWH        WE# high between cycles                                 WE# fall
tWC        WE# fall to WE# fall                                    WE# fall
tRP        RE# low pulse                                           RE# rise
tREH       RE# high between cycles                                 RE# fall
tRC        RE# fall to RE# fall                                    RE# fall
tCLS/tALS  CLE / ALE stable before WE# rise                        WE# rise
tCLH/tALH  WE# rise to CLE / ALE fall after a command / address    CLE/ALE
tCS        CE# low before WE# rise                                 WE# rise
tCH        WE# rise to CE# rise                                    CE# rise
tDS        DQ (and its output enable) stable before WE# rise       WE# rise
tDH        WE# rise to the next DQ change                          DQ change
tWB        WE# rise that starts a busy period to the next cycle    WE#/RE# fall
tWHR       last WE# rise to RE# fall                               RE# fall
tADL       last address WE# rise to first data WE# rise            WE# rise
tCCS       change column (E0h, 85h + address) to data              RE#/WE#
tRHW       RE# rise to WE# fall                                    WE# fall
tRR        R/B# rise to RE# fall                                   RE# fall
tCLR/tAR   CLE / ALE low before RE# fall                           RE# fall
=========  =====================================================  ==========

plus bus rules: CE# low during a cycle, CLE and ALE never both high, WE# and
RE# never both low, DQ driven at a WE# rise and released at a RE# fall.

Times are integers in picoseconds. `check_edges()` runs the checker over a
recorded edge list, so it is unit-testable without a simulator.

    >>> chk = SdrTimingChecker(mode=0)
    >>> chk.edge(0, "ce_n", 0); chk.edge(0, "cle", 1); chk.edge(0, "dq_oe", 1)
    >>> chk.edge(0, "we_n", 0); chk.edge(20_000, "we_n", 1)   # 20 ns < tWP 50 ns
    >>> chk.violations[0].param
    'tWP'
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from nandlab.onfi_spec.sdr_timing import SdrTiming, sdr

PS = 1000  # ps per ns

# Hold and turnaround minima that nandlab.onfi_spec.sdr_timing does not carry
# (ONFI 4.x SDR timing table, modes 0..5; the same values Linux's
# nand_timings.c tabulates), in ns.
T_CLH = (20, 10, 10, 5, 5, 5)
T_ALH = (20, 10, 10, 5, 5, 5)
T_CH = (20, 10, 10, 5, 5, 5)
T_CLR = (20, 10, 10, 10, 10, 10)
T_AR = (25, 10, 10, 10, 10, 10)
T_RR = (40, 20, 20, 20, 20, 20)
T_RLOH = (0, 0, 0, 0, 5, 5)
"""RE# low to output hold (EDO modes 4, 5): the chip keeps the previous byte this long."""
T_RHOH = (0, 15, 15, 15, 15, 15)
"""RE# high to output hold: the chip keeps the byte this long after RE# rises."""

CHANGE_READ_COLUMN_CONFIRM = 0xE0
CHANGE_WRITE_COLUMN = 0x85

PINS = ("ce_n", "cle", "ale", "we_n", "re_n", "dq", "dq_oe", "rb_n")
NEVER = -(10**18)


@dataclass(frozen=True)
class TimingViolation:
    """One broken timing rule: `param` measured `measured_ns`, needs >= `required_ns`."""

    param: str
    t_ns: float
    measured_ns: float
    required_ns: float
    mode: int
    detail: str = ""

    def __str__(self) -> str:
        measured = (
            "never" if math.isinf(self.measured_ns) else f"{self.measured_ns:g} ns"
        )
        text = (
            f"ONFI SDR mode {self.mode}: {self.param} violated at t = {self.t_ns:g} ns: "
            f"measured {measured}, required >= {self.required_ns:g} ns"
        )
        return f"{text} ({self.detail})" if self.detail else text


class OnfiTimingError(AssertionError):
    """Raised by a strict checker on the first violation (fails a cocotb test)."""

    def __init__(self, violation: TimingViolation) -> None:
        super().__init__(str(violation))
        self.violation = violation


@dataclass(frozen=True)
class Limits:
    """Every minimum the checker applies, in ns, for one SDR mode."""

    mode: int
    sdr: SdrTiming
    tCLH: int
    tALH: int
    tCH: int
    tCLR: int
    tAR: int
    tRR: int
    tCCS: int

    @classmethod
    def of(cls, mode: int, t_ccs_ns: int | None = None) -> Limits:
        s = sdr(mode)
        return cls(
            mode,
            s,
            T_CLH[mode],
            T_ALH[mode],
            T_CH[mode],
            T_CLR[mode],
            T_AR[mode],
            T_RR[mode],
            t_ccs_ns if t_ccs_ns is not None else s.tCCS,
        )


class SdrTimingChecker:
    """Checks ONFI SDR timing on pin edges of one channel.

    Args:
        mode: SDR timing mode 0..5 to check against (change with `set_mode`).
        strict: raise OnfiTimingError on the first violation instead of collecting.
        t_ccs_ns: tCCS of the part (its parameter page); ONFI's 500 ns if None.

    Pins (`edge(t_ps, pin, value)`): ce_n (CE# of the selected target: low when
    any target is selected), cle, ale, we_n, re_n, dq (the byte the controller
    drives), dq_oe (1 = controller drives DQ), rb_n (R/B# of the selected target).
    """

    def __init__(
        self, mode: int = 0, *, strict: bool = False, t_ccs_ns: int | None = None
    ):
        self.strict = strict
        self.t_ccs_ns = t_ccs_ns
        self.limits = Limits.of(mode, t_ccs_ns)
        self.violations: list[TimingViolation] = []
        self.level = {p: (1 if p.endswith("_n") else 0) for p in PINS}
        self.changed = dict.fromkeys(PINS, NEVER)
        self.we_fall = self.we_rise = self.re_fall = self.re_rise = NEVER
        # holds after a WE# rise belong to the mode the cycle ran in: a RESET
        # latched at that rise puts the die back in mode 0 only afterwards
        self.we_rise_limits = self.limits
        self.rb_rise = NEVER
        self.addr_rise = NEVER  # WE# rise of the last address cycle
        self.cmd_rise = NEVER
        self.last_cmd: int | None = None
        self.last_cycle = ""  # "cmd", "addr", "data" of the last WE# cycle
        self.busy_from: int | None = None  # WE# rise that started a busy period (tWB)
        self.column_change: int | None = None  # t of a change-column point (tCCS)
        self.cycles = 0

    @property
    def mode(self) -> int:
        return self.limits.mode

    def set_mode(self, mode: int) -> None:
        """Check later edges against SDR mode `mode`."""
        if mode != self.limits.mode:
            self.limits = Limits.of(mode, self.t_ccs_ns)

    # ------------------------------------------------------------ reporting

    def _fail(
        self,
        param: str,
        t: int,
        measured_ps: float,
        required_ns: float,
        detail: str = "",
    ):
        v = TimingViolation(
            param, t / PS, measured_ps / PS, required_ns, self.mode, detail
        )
        self.violations.append(v)
        if self.strict:
            raise OnfiTimingError(v)

    def _min(
        self, param: str, t: int, since: int, required_ns: int, detail: str = ""
    ) -> None:
        """Require t - since >= required_ns (skipped when `since` never happened)."""
        if since == NEVER:
            return
        if t - since < required_ns * PS:
            self._fail(param, t, t - since, required_ns, detail)

    def rule(self, ok: bool, param: str, t: int, detail: str) -> None:
        if not ok:
            self._fail(param, t, -math.inf, 0, detail)

    # ------------------------------------------------------------ edges

    def edge(self, t_ps: int, pin: str, value: int) -> None:
        """Record that `pin` took `value` at `t_ps` (ps); checks the rules this edge closes."""
        if pin not in self.level:
            raise ValueError(f"unknown pin '{pin}': use one of {', '.join(PINS)}")
        value = int(value)
        if self.level[pin] == value:
            return
        t = int(t_ps)
        handler = getattr(self, f"_on_{pin}")
        handler(t, value)
        self.level[pin] = value
        self.changed[pin] = t

    def _on_we_n(self, t: int, value: int) -> None:
        lim, s = self.limits, self.limits.sdr
        if value == 0:
            self._min("tWH", t, self.we_rise, s.tWH)
            self._min("tWC", t, self.we_fall, s.tWC)
            if self.re_rise > self.we_rise:
                self._min("tRHW", t, self.re_rise, s.tRHW)
            self._check_wb(t)
            self.rule(
                self.level["re_n"] == 1, "RE#/WE#", t, "WE# fell while RE# is low"
            )
            self.we_fall = t
            return
        self._min("tWP", t, self.we_fall, s.tWP)
        self.rule(self.level["ce_n"] == 0, "tCS", t, "WE# rose with CE# high")
        self._min("tCS", t, self.changed["ce_n"], s.tCS, "CE# low to WE# high")
        cle, ale = self.level["cle"], self.level["ale"]
        self.rule(not (cle and ale), "CLE/ALE", t, "CLE and ALE both high at WE# rise")
        self._min("tCLS", t, self.changed["cle"], s.tCLS, f"CLE={cle} to WE# high")
        self._min("tALS", t, self.changed["ale"], s.tALS, f"ALE={ale} to WE# high")
        self.rule(self.level["dq_oe"] == 1, "tDS", t, "DQ not driven at WE# rise")
        self._min("tDS", t, max(self.changed["dq"], self.changed["dq_oe"]), s.tDS)
        if cle:
            self.last_cycle, self.last_cmd, self.cmd_rise = "cmd", self.level["dq"], t
            if self.last_cmd == CHANGE_READ_COLUMN_CONFIRM:
                self.column_change = t
        elif ale:
            self.last_cycle, self.addr_rise = "addr", t
            if self.last_cmd == CHANGE_WRITE_COLUMN:
                self.column_change = t
        else:
            if self.last_cycle == "addr":
                if (
                    self.last_cmd == CHANGE_WRITE_COLUMN
                    and self.column_change is not None
                ):
                    self._min(
                        "tCCS", t, self.addr_rise, lim.tCCS, "85h address to data in"
                    )
                else:
                    self._min("tADL", t, self.addr_rise, s.tADL, "address to data in")
            self.last_cycle = "data"
        self.we_rise = t
        self.we_rise_limits = lim
        self.cycles += 1

    def _on_re_n(self, t: int, value: int) -> None:
        lim, s = self.limits, self.limits.sdr
        if value == 1:
            self._min("tRP", t, self.re_fall, s.tRP)
            self.re_rise = t
            return
        self._min("tREH", t, self.re_rise, s.tREH)
        self._min("tRC", t, self.re_fall, s.tRC)
        self.rule(self.level["ce_n"] == 0, "CE#", t, "RE# fell with CE# high")
        self.rule(self.level["we_n"] == 1, "RE#/WE#", t, "RE# fell while WE# is low")
        self.rule(
            self.level["dq_oe"] == 0, "DQ_OE", t, "controller drives DQ during data out"
        )
        self.rule(self.level["cle"] == 0, "tCLR", t, "CLE high at RE# fall")
        self.rule(self.level["ale"] == 0, "tAR", t, "ALE high at RE# fall")
        self._min("tCLR", t, self.changed["cle"], lim.tCLR, "CLE low to RE# low")
        self._min("tAR", t, self.changed["ale"], lim.tAR, "ALE low to RE# low")
        if self.we_rise > self.re_rise:
            self._min("tWHR", t, self.we_rise, s.tWHR)
            if self.last_cycle == "cmd" and self.column_change == self.we_rise:
                self._min("tCCS", t, self.we_rise, lim.tCCS, "E0h to data out")
        if self.rb_rise > max(self.re_rise, self.we_rise):
            self._min("tRR", t, self.rb_rise, lim.tRR)
        self._check_wb(t)
        self.re_fall = t
        self.cycles += 1

    def _check_wb(self, t: int) -> None:
        if self.busy_from is not None:
            self._min(
                "tWB",
                t,
                self.busy_from,
                self.limits.sdr.tWB,
                "busy start to next cycle",
            )
            self.busy_from = None

    def _on_cle(self, t: int, value: int) -> None:
        if (
            value == 0
            and self.last_cycle == "cmd"
            and self.we_rise >= self.changed["cle"]
        ):
            self._min("tCLH", t, self.we_rise, self.we_rise_limits.tCLH)

    def _on_ale(self, t: int, value: int) -> None:
        if (
            value == 0
            and self.last_cycle == "addr"
            and self.we_rise >= self.changed["ale"]
        ):
            self._min("tALH", t, self.we_rise, self.we_rise_limits.tALH)

    def _on_ce_n(self, t: int, value: int) -> None:
        if value == 1 and self.we_rise >= self.changed["ce_n"]:
            self._min("tCH", t, self.we_rise, self.we_rise_limits.tCH)

    def _on_dq(self, t: int, value: int) -> None:
        self._dq_hold(t)

    def _on_dq_oe(self, t: int, value: int) -> None:
        self._dq_hold(t)

    def _dq_hold(self, t: int) -> None:
        if self.level["dq_oe"] or self.changed["dq_oe"] == t:
            self._min("tDH", t, self.we_rise, self.we_rise_limits.sdr.tDH)

    def _on_rb_n(self, t: int, value: int) -> None:
        if value == 0:
            self.busy_from = self.we_rise
        else:
            self.rb_rise = t


def check_edges(
    edges: Iterable[tuple[int, str, int]], mode: int, *, t_ccs_ns: int | None = None
) -> list[TimingViolation]:
    """Run the checker over (t_ps, pin, value) edges in time order; returns every violation."""
    chk = SdrTimingChecker(mode, t_ccs_ns=t_ccs_ns)
    for t, pin, value in edges:
        chk.edge(t, pin, value)
    return chk.violations
