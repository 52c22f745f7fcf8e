"""The ONFI SDR pin timing checker (nandlab.vchip.pin_timing) on an ideal controller's waveform.

The checker is the one both pin-level benches use: the RTL cocotb testbenches
(nandlab.rtlsim.onfi_pins) and the virtual FT2232H (nandlab.vusb.nand_bus).
A small waveform builder plays an ideal controller (every edge at the
tightest legal time of the mode); the checker must accept it in every mode,
and must catch each parameter, and nothing the moved edge does not also
shorten, when one edge is moved 1 ns too early. Bus rules, controller
samples, tCLR / tAR, holds across a mode change and strict mode are tested on
hand-made edge lists in host/tests/test_vusb_pin_timing.py.
"""

from __future__ import annotations

import pytest
from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.vchip.pin_timing import (
    check_edges,
)

PS = 1000


class Wave:
    """Edges of an ideal SDR controller; `tight` overrides one parameter (ns)."""

    def __init__(self, mode: int, **tight: int) -> None:
        self.mode, self.s, self.tight = mode, sdr(mode), tight
        self.t = 1_000 * PS
        self.we_rise = self.re_rise = self.t
        self.edges: list[tuple[int, str, int]] = []

    def v(self, name: str, default: int | None = None) -> int:
        if name in self.tight:
            return self.tight[name]
        return getattr(self.s, name) if default is None else default

    def at(self, pin: str, value: int, dt_ns: float = 0) -> None:
        self.edges.append((self.t + round(dt_ns * PS), pin, value))

    def wait(self, ns: float) -> Wave:
        self.t += round(ns * PS)
        return self

    def after(self, param: str, since: int, default: int | None = None) -> Wave:
        """Move to `param` ns after `since` (ps); a tightened one may move back before a release."""
        self.t = (
            max(self.t, since + self.v(param, default) * PS)
            if param not in self.tight
            else (since + self.v(param) * PS)
        )
        return self

    def select(self) -> Wave:
        self.at("ce_n", 0)
        return self.wait(
            max(0, self.v("tCS") - self.s.tWP)
        )  # CE# low to the first WE# rise

    def write(self, kind: str, byte: int) -> Wave:
        wp = self.v("tWP")
        wh = max(self.v("tWH"), self.v("tWC") - self.v("tWP"))
        if "tWC" in self.tight:
            wh = self.tight["tWC"] - wp
        self.at("we_n", 0)
        setup = {"cmd": "tCLS", "addr": "tALS", "data": "tDS"}[kind]
        lead = wp - self.v(setup, wp)  # a tight setup moves the level change late
        self.at("cle", int(kind == "cmd"), lead)
        self.at("ale", int(kind == "addr"), lead)
        self.at("dq", byte, lead if kind == "data" else 0)
        self.at("dq_oe", 1)
        self.at("we_n", 1, wp)
        self.we_rise = self.t + wp * PS
        hold = {"cmd": "tCLH", "addr": "tALH", "data": "tDH"}[kind]
        if hold in self.tight:  # release the latched level early
            pin = {"cmd": "cle", "addr": "ale", "data": "dq"}[kind]
            self.at(pin, (byte ^ 1) if pin == "dq" else 0, wp + self.tight[hold])
        return self.wait(wp + wh)

    def cmd(self, byte: int) -> Wave:
        return self.write("cmd", byte)

    def addr(self, *data: int) -> Wave:
        for b in data:
            self.write("addr", b)
        return self

    def din(self, n: int) -> Wave:
        for i in range(n):
            self.write("data", i & 0xFF)
        return self

    def release(self) -> Wave:
        """Drop CLE / ALE and DQ after the last write cycle."""
        self.at("cle", 0)
        self.at("ale", 0)
        self.at("dq_oe", 0)
        return self

    def dout(self, n: int) -> Wave:
        rp = self.v("tRP")
        rh = max(self.v("tREH"), self.v("tRC") - self.v("tRP"))
        if "tRC" in self.tight:
            rh = self.tight["tRC"] - rp
        for _ in range(n):
            self.at("re_n", 0)
            self.at("re_n", 1, rp)
            self.re_rise = self.t + rp * PS
            self.wait(rp + rh)
        return self

    def busy(self, ns: int) -> Wave:
        """R/B# low from just after the last WE# rise for `ns`; the cursor stays."""
        self.edges.append((self.we_rise + PS, "rb_n", 0))
        self.edges.append((self.we_rise + ns * PS, "rb_n", 1))
        self.rb_rise = self.we_rise + ns * PS
        return self

    def to_data_in(self, param: str) -> Wave:
        """Place the next data WE# rise `param` (tADL / tCCS) after the last WE# rise."""
        return self.after(param, self.we_rise - self.v("tWP") * PS)

    def whr(self) -> Wave:
        return self.after("tWHR", self.we_rise)

    def rhw(self) -> Wave:
        return self.after("tRHW", self.re_rise)

    def ready(self) -> Wave:
        """Wait for R/B# high, then tRR."""
        return self.after("tRR", self.rb_rise, sdr(self.mode).tRR)

    def deselect(self) -> Wave:
        self.edges.append(
            (self.we_rise + self.v("tCH", sdr(self.mode).tCH) * PS, "ce_n", 1)
        )
        return self

    def sorted(self) -> list[tuple[int, str, int]]:
        return sorted(self.edges, key=lambda e: e[0])


def session(w: Wave) -> Wave:
    """READ ID, SET FEATURES, PROGRAM + status while busy, READ, change column."""
    m = w.mode
    w.select()
    w.cmd(0x90).addr(0x20).release().whr().dout(4).rhw()
    w.cmd(0xEF).addr(0x01).release().to_data_in("tADL").din(4).busy(1000).ready()
    w.cmd(0x80).addr(0, 0, 1, 0, 0).release().to_data_in("tADL").din(8).cmd(0x10)
    w.busy(5000).after("tWB", w.we_rise).cmd(0x70).release().whr().dout(1).rhw().ready()
    w.cmd(0x00).addr(0, 0, 1, 0, 0).cmd(0x30).release().busy(3000)
    w.after("tCLR", w.we_rise, max(sdr(m).tCLR, sdr(m).tAR)).ready().dout(8).rhw()
    w.cmd(0x05).addr(4, 0).cmd(0xE0).release().after("tCCS", w.we_rise).dout(2).rhw()
    w.cmd(0x85).addr(2, 0).release().to_data_in("tCCS").din(2).cmd(0x10)
    w.deselect()
    return w


@pytest.mark.parametrize("mode", range(6))
def test_ideal_controller_passes_every_mode(mode: int) -> None:
    assert check_edges(session(Wave(mode)).sorted(), mode) == []


CHECKED = [
    "tWP",
    "tWH",
    "tWC",
    "tRP",
    "tREH",
    "tRC",
    "tCS",
    "tCLS",
    "tALS",
    "tDS",
    "tCLH",
    "tALH",
    "tDH",
    "tCH",
    "tWB",
    "tWHR",
    "tADL",
    "tRHW",
    "tRR",
    "tCCS",
]


# moving one edge early also shortens what is measured to that edge when it sat
# at its minimum: the first WE# rise (tWP short) comes 1 ns sooner after CE#,
# CLE and ALE; the builder moves CLE and ALE together (tCLS / tALS short); the
# controller drives DQ at the WE# fall, so tRHW at its minimum is also tRHZ's
ALSO_SHORTENED = {"tWP": {"tCS", "tCLS", "tALS"}, "tCLS": {"tALS"}, "tALS": {"tCLS"},
                  "tRHW": {"tRHZ"}}


def _required(mode: int, param: str) -> int:
    extra = {
        "tCLH": sdr(mode).tCLH,
        "tALH": sdr(mode).tCLH,
        "tCH": sdr(mode).tCH,
        "tRR": sdr(mode).tRR,
    }
    return extra.get(param, getattr(sdr(mode), param, 0))


def _implied(mode: int, param: str) -> bool:
    """tWH / tREH that the cycle time already forces (tWC - tWP > tWH) cannot be broken alone."""
    s = sdr(mode)
    if param == "tWH":
        return s.tWC - s.tWP > s.tWH
    if param == "tREH":
        return s.tRC - s.tRP > s.tREH
    return False


@pytest.mark.parametrize(
    ("mode", "param"),
    [(m, p) for m in (0, 3, 5) for p in CHECKED if not _implied(m, p)],
)
def test_one_ns_short_is_caught(mode: int, param: str) -> None:
    required = _required(mode, param)
    short = required - 1
    violations = check_edges(session(Wave(mode, **{param: short})).sorted(), mode)
    hits = [v for v in violations if v.param == param]
    assert hits, f"{param} {short} ns not caught; got {[str(v) for v in violations]}"
    others = {v.param for v in violations} - {param} - ALSO_SHORTENED.get(param, set())
    assert not others, f"{param} {short} ns also reported {sorted(others)}"
    v = hits[0]
    assert v.required_ns == required and v.measured_ns == pytest.approx(short)
    assert (
        param in str(v)
        and f"{short:g} ns" in str(v)
        and f">= {required:g} ns" in str(v)
    )
