"""NV-DDR2 / NV-DDR3 / Toggle DDR timing checks on recorded pin edges (pure Python).

The DDR counterpart of `pin_timing.SdrTimingChecker`, for the same pin-level
benches: a controller model reports every edge of the pins, in time order,
with `edge(t_ps, pin, level)`, and `sample_dq(t_ps)` when it captures DQ on
data out; the checker measures each parameter the controller owns (or, for
captures, the window the die guarantees) against the selected mode of
`nandlab.onfi_spec.nvddr_timing` and records a `DdrTimingViolation` per
broken rule, with the smallest margin per parameter in `margins` (ns).

Pins: ``ce_n``, ``cle``, ``ale``, ``we_n``, ``re_n`` (and ``re_c``),
``dqs`` (and ``dqs_c``), ``dq``, ``dq_oe``, ``rb_n``, ``wp_n``. ``dq_oe`` is 1
while the controller drives DQ *and* DQS (data in); with it 0, DQS edges are
the die's (data out). The complementary pins are accepted and not checked.

=========  ==================================================  ============
parameter  measured                                            checked at
=========  ==================================================  ============
tWP / tWH  WE_n low / high pulse (command and address cycles)  WE_n edge
tWC        WE_n fall to WE_n fall                              WE_n fall
tCALS      CLE / ALE stable before WE_n rise                   WE_n rise
tCALH      WE_n rise to CLE / ALE fall                         CLE / ALE
tCAS/tCAH  DQ stable before / after the latching WE_n rise     WE_n / DQ
tCS / tCH  CE_n low to WE_n rise / WE_n rise to CE_n rise      WE_n / CE_n
tWPRE      DQS held low (driven) before its first rise         DQS rise
tDS / tDH  DQ stable before / after each DQS edge (data in)    DQS / DQ
tDQSH/L    DQS high / low pulse on data in                     DQS edge
tDSC       DQS rise to rise on data in                         DQS rise
tWPST      last DQS fall to DQS released (data in ends)        DQ_OE fall
tRPRE      RE_n low before its first rise of a burst           RE_n rise
tRC        RE_n rise to rise                                   RE_n rise
tREH/tRP   RE_n high / low pulse                               RE_n edge
tRPST      last RE_n edge to the next command (WE_n fall)      WE_n fall
tDQSQ      DQ captured no earlier than tDQSQ after a DQS edge  sample
tQH        DQ captured no later than tQH after that edge       sample
repeat     after SET FEATURES / ODT CONFIGURE, every data-in   DQ_OE fall,
bytes      byte on two DQS edges (even count, equal pairs)     WE_n fall
warm-up    SET FEATURES' burst: 2 x warm-up cycles + 8 edges   DQ_OE fall,
                                                               WE_n fall
=========  ==================================================  ============

A burst starts at the first DQS edge after DQ_OE rose (data in) or the
first RE_n fall after a command or address cycle (data out). The repeat-byte
rule is a bus rule (measured n/a, required 0, as the SDR checker's CE# rule):
the command is DQ at its latching WE_n rise, and a die that takes such a
burst keeps one copy per pair, so bytes sent once reach it halved
(`onfi_spec.ddr_features.REPEAT_BYTE_COMMANDS`; on data out the die repeats and
what the controller keeps is its own business); Toggle DDR repeats nothing,
so the rule is NV-DDR2 / NV-DDR3 only. Warm-up cycles (feature 02h,
`set_warmup`) open each burst with edges that carry no data; they are left
out of the repeat check, and a SET FEATURES burst, whose length ONFI fixes,
must carry them: one that omits them gives the die a parameter short. Other
bursts have no length the pins tell, so an omitted warm-up there shows as
shifted data, not as a violation here.

    >>> chk = DdrTimingChecker("nv-ddr3", 10)
    >>> for t, pin, level in ((0, "dq_oe", 1), (0, "dqs", 0), (5_000, "dqs", 1)):
    ...     chk.edge(t, pin, level)
    >>> [v.param for v in chk.violations]         # 5 ns < tWPRE 15 ns
    ['tWPRE']
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from nandlab.onfi_spec.ddr_features import REPEAT_BYTE_COMMANDS
from nandlab.onfi_spec.nvddr_timing import DdrInterface, DdrTiming, ddr
from nandlab.onfi_spec.opcodes import Cmd
from nandlab.vchip.pin_timing import NEVER, OnfiTimingError, TimingViolation

PS_PER_NS = 1000
FEATURE_PARAMS = 4
"""P1..P4 of SET FEATURES."""
DDR_PINS = ("ce_n", "cle", "ale", "we_n", "re_n", "re_c", "dqs", "dqs_c", "dq", "dq_oe",
            "rb_n", "wp_n")


@dataclass(frozen=True)
class DdrTimingViolation(TimingViolation):
    """A broken DDR rule; `interface` names the interface of `mode`."""

    interface: str = ""

    def __str__(self) -> str:
        got = "n/a" if math.isinf(self.measured_ns) else f"{self.measured_ns:g} ns"
        text = (
            f"{self.interface} mode {self.mode}: {self.param} violated at t = {self.t_ns:g} ns: "
            f"measured {got}, required {self.required_ns:g} ns"
        )
        return f"{text} ({self.detail})" if self.detail else text


class DdrTimingChecker:
    """Checks NV-DDR2 / NV-DDR3 / Toggle DDR timing over the pin edges of one channel.

    Args:
        interface: "nv-ddr2", "nv-ddr3" or "toggle2"; `set_mode` changes it.
        mode: timing mode of that interface.
        strict: raise OnfiTimingError at the first violation instead of collecting.
    """

    def __init__(self, interface: DdrInterface | str, mode: int, *, strict: bool = False):
        self.strict = strict
        self.limits: DdrTiming = ddr(interface, mode)
        self.violations: list[DdrTimingViolation] = []
        self.margins: dict[str, float] = {}
        self.level: dict[str, int] = {p: int(p.endswith("_n")) for p in DDR_PINS}
        self.changed: dict[str, int] = dict.fromkeys(DDR_PINS, NEVER)
        self.we_fall = self.we_rise = NEVER
        self.last_cycle = ""  # "cmd" | "addr" of the last WE_n cycle
        self.command = -1  # the last command byte latched
        self.din_command = -1  # the command before the data-in burst
        self.warmup_out = self.warmup_in = 0  # warm-up cycles per burst (feature 02h)
        self.din_bytes: list[int] = []  # DQ at each controller DQS edge of the burst
        self.din_burst = False  # DQS has toggled since DQ_OE rose
        self.dqs_rise = self.dqs_fall = NEVER  # the controller's DQS edges (data in)
        self.die_dqs_edge = NEVER  # the die's last DQS edge (data out)
        self.dq_since_dqs = False  # DQ changed since the last controller DQS edge
        self.dout_burst = False  # RE_n has toggled since the last command / address
        self.re_fall = self.re_rise = NEVER

    def set_mode(self, interface: DdrInterface | str, mode: int) -> None:
        self.limits = ddr(interface, mode)

    def set_warmup(self, data_out: int, data_in: int) -> None:
        """Warm-up cycles (not codes) the die expects at the start of each burst."""
        self.warmup_out, self.warmup_in = data_out, data_in

    # ---------------------------------------------------------------- reporting

    def _violate(self, param: str, t: int, measured_ps: float, need_ps: int, detail: str) -> None:
        lim = self.limits
        v = DdrTimingViolation(param, t / PS_PER_NS, measured_ps / PS_PER_NS,
                               need_ps / PS_PER_NS, lim.mode, detail, lim.interface.value)
        self.violations.append(v)
        if self.strict:
            raise OnfiTimingError(v)

    def rule(self, ok: bool, param: str, t: int, detail: str) -> None:
        """Record a bus-rule violation `param` at `t` (ps) unless `ok`."""
        if not ok:
            self._violate(param, t, -math.inf, 0, detail)

    def _at_least(self, param: str, t: int, since: int, need_ps: int, detail: str = "") -> None:
        """Require t - since >= need_ps (skipped when `since` never happened)."""
        if since == NEVER:
            return
        margin = t - since - need_ps
        self.margins[param] = min(self.margins.get(param, math.inf), margin / PS_PER_NS)
        if margin < 0:
            self._violate(param, t, t - since, need_ps, detail)

    # ---------------------------------------------------------------- input

    def edge(self, t_ps: int, pin: str, level: int) -> None:
        """`pin` took `level` at `t_ps`; edges must come in time order."""
        if pin not in self.level:
            raise ValueError(f"unknown pin '{pin}': pins are {', '.join(DDR_PINS)}")
        level, t = int(level), int(t_ps)
        if self.level[pin] == level:
            return
        if pin == "we_n":
            self._we(t, level)
        elif pin == "re_n":
            self._re(t, level)
        elif pin == "dqs":
            self._dqs(t, level)
        elif pin == "dq":
            self._dq(t)
        elif pin == "dq_oe":
            self._dq_oe(t, level)
        elif pin in ("cle", "ale") and level == 0 and self.last_cycle:
            self._at_least("tCALH", t, self.we_rise, self.limits.tCALH, f"{pin} after WE_n rise")
        elif pin == "ce_n" and level == 1:
            self._at_least("tCH", t, self.we_rise, self.limits.tCH, "WE_n rise to CE_n high")
        self.level[pin] = level
        self.changed[pin] = t

    def sample_dq(self, t_ps: int) -> None:
        """The controller captured DQ at `t_ps` on data out: inside [edge + tDQSQ, edge + tQH]
        of the die's last DQS edge."""
        t, lim = int(t_ps), self.limits
        edge = self.die_dqs_edge
        if edge == NEVER:
            self._violate("tDQSQ", t, -math.inf, lim.tDQSQ, "DQ captured before any DQS edge")
            return
        self._at_least("tDQSQ", t, edge, lim.tDQSQ, "DQS edge to DQ captured")
        late = t - edge
        self.margins["tQH"] = min(self.margins.get("tQH", math.inf), (lim.tQH - late) / PS_PER_NS)
        if late > lim.tQH:
            self._violate("tQH", t, late, lim.tQH, "DQ captured after the die's hold ended")

    # ---------------------------------------------------------------- cycles

    def _we(self, t: int, level: int) -> None:
        lim = self.limits
        if level == 0:
            self._end_din(t)
            self._at_least("tWH", t, self.we_rise, lim.tWH)
            self._at_least("tWC", t, self.we_fall, lim.tWC)
            if self.dout_burst:
                last_re = max(self.re_fall, self.re_rise)
                self._at_least("tRPST", t, last_re, lim.tRPST, "last RE_n edge to next command")
                self.dout_burst = False
            self.we_fall = t
            return
        self._at_least("tWP", t, self.we_fall, lim.tWP)
        self._at_least("tCS", t, self.changed["ce_n"], lim.tCS, "CE_n low to WE_n high")
        cle, ale = self.level["cle"], self.level["ale"]
        self._at_least("tCALS", t, max(self.changed["cle"], self.changed["ale"]), lim.tCALS,
                       f"CLE={cle} ALE={ale} to WE_n high")
        self._at_least("tCAS", t, self.changed["dq"], lim.tCAS, "DQ to WE_n high")
        self.last_cycle = "cmd" if cle else "addr" if ale else ""
        if cle:
            self.command = self.level["dq"]
        self.we_rise = t

    def _dq(self, t: int) -> None:
        if self.level["dq_oe"] and self.din_burst:
            last = max(self.dqs_rise, self.dqs_fall)
            if not self.dq_since_dqs:
                self._at_least("tDH", t, last, self.limits.tDH, "DQS edge to next DQ change")
            self.dq_since_dqs = True
        elif self.level["dq_oe"] and self.last_cycle and self.changed["dq"] <= self.we_rise:
            self._at_least("tCAH", t, self.we_rise, self.limits.tCAH, "WE_n rise to DQ change")

    def _dq_oe(self, t: int, level: int) -> None:
        if level:
            self.din_burst = False
            self.dqs_rise = self.dqs_fall = NEVER
            self.din_bytes = []
            return
        if self.din_burst:
            self._at_least("tWPST", t, self.dqs_fall, self.limits.tWPST, "last DQS fall to release")
            self._end_din(t)
        self.din_burst = False

    def _end_din(self, t: int) -> None:
        """The data-in bytes end (DQ released or the next command): were they repeated?"""
        got, self.din_bytes = self.din_bytes, []
        toggle = self.limits.interface == DdrInterface.TOGGLE2  # JESD230 repeats nothing
        if not got or toggle or self.din_command not in REPEAT_BYTE_COMMANDS:
            return
        warm = 2 * self.warmup_in
        if self.din_command == Cmd.SET_FEATURES and self.warmup_in:
            self.rule(len(got) == warm + 2 * FEATURE_PARAMS, "warm-up", t,
                      f"SET FEATURES burst of {len(got)} DQS edges: {warm} warm-up + "
                      f"{2 * FEATURE_PARAMS} data expected")
        got = got[warm:]
        pairs_equal = all(a == b for a, b in zip(got[::2], got[1::2], strict=False))
        self.rule(len(got) % 2 == 0 and pairs_equal, "repeat bytes", t,
                  f"command {self.din_command:02X}h: each data byte twice in DDR, got "
                  + " ".join(f"{b:02X}" for b in got))

    def _dqs(self, t: int, level: int) -> None:
        lim = self.limits
        if not self.level["dq_oe"]:
            self.die_dqs_edge = t
            return
        if not self.din_burst:
            if level:
                preamble_from = max(self.changed["dqs"], self.changed["dq_oe"])
                self._at_least("tWPRE", t, preamble_from, lim.tWPRE, "DQS low before first rise")
                self.din_burst, self.din_command = True, self.command
            else:
                return
        else:
            if level:
                self._at_least("tDQSL", t, self.dqs_fall, lim.tDQSL)
                self._at_least("tDSC", t, self.dqs_rise, lim.tDSC, "DQS rise to rise")
            else:
                self._at_least("tDQSH", t, self.dqs_rise, lim.tDQSH)
        self._at_least("tDS", t, self.changed["dq"], lim.tDS, "DQ stable before DQS edge")
        self.din_bytes.append(self.level["dq"])
        self.dq_since_dqs = False
        if level:
            self.dqs_rise = t
        else:
            self.dqs_fall = t

    def _re(self, t: int, level: int) -> None:
        lim = self.limits
        if level == 0:
            if not self.dout_burst:
                self.dout_burst, self.re_rise = True, NEVER
            else:
                self._at_least("tREH", t, self.re_rise, lim.tREH)
            self.re_fall = t
            return
        if self.re_rise == NEVER:
            self._at_least("tRPRE", t, self.re_fall, lim.tRPRE, "RE_n low before first rise")
        else:
            self._at_least("tRP", t, self.re_fall, lim.tRP)
            self._at_least("tRC", t, self.re_rise, lim.tRC, "RE_n rise to rise")
        self.re_rise = t


def check_ddr_edges(
    edges: Iterable[tuple[int, str, int]], interface: DdrInterface | str, mode: int
) -> list[DdrTimingViolation]:
    """Every violation in (t_ps, pin, level) edges given in time order."""
    checker = DdrTimingChecker(interface, mode)
    for t, pin, level in edges:
        checker.edge(t, pin, level)
    return checker.violations


@dataclass(frozen=True)
class DdrOutputModel:
    """When the die's data is valid on each byte lane after one of its DQS edges (ps).

    A die within spec drives DQ no later than tDQSQ and holds it until tQH after
    the edge; `lane_skew_ps` moves a lane's window (a routed trace or an
    injected fault), so a capture delay that passes one lane may fail another.
    `capture_ok` is the checker's own capture rule on that shifted window.
    """

    timing: DdrTiming
    lane_skew_ps: tuple[int, ...] = (0,)

    def capture_ok(self, lane: int, delay_ps: int) -> bool:
        """A capture `delay_ps` after the DQS edge reads lane `lane` correctly."""
        chk = DdrTimingChecker(self.timing.interface, self.timing.mode)
        skew = self.lane_skew_ps[lane]
        chk.edge(0, "dqs", 0)
        chk.edge(10**6, "dqs", 1)  # the die's DQS edge (DQ_OE low: the die drives)
        chk.sample_dq(10**6 + delay_ps - skew)
        return not chk.violations
