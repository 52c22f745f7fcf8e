"""The ONFI SDR pin timing checker (nandlab.vchip.pin_timing) on hand-made edge lists.

The checker is the one both pin-level benches use (virtual FT2232H and the RTL
cocotb testbenches). The per-parameter grid (an ideal controller's waveform,
one edge 1 ns too early per parameter, modes 0, 3, 5) is in
tests/test_rtl_timing_checker.py; these are the rules and features it does not
reach: bus rules, controller samples, tCLR / tAR, holds across a mode change,
strict mode.
"""

from __future__ import annotations

import pytest

from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.vchip.pin_timing import (
    OnfiTimingError,
    SdrTimingChecker,
    check_edges,
)

NS = 1000


def cycle(t: int, kind: str, value: int, *, wp: int = 60, setup: int = 60, hold: int = 40
          ) -> list[tuple[int, str, int]]:
    """One write cycle at t (ns): CLE/ALE/data levels, WE# low `wp` ns, holds `hold` ns."""
    latch = {"cmd": "cle", "addr": "ale"}.get(kind)
    edges = [(t * NS, "ce_n", 0), (t * NS, "dq_oe", 1), (t * NS, "dq", value)]
    if latch:
        edges.append((t * NS, latch, 1))
    edges += [((t + setup) * NS, "we_n", 0), ((t + setup + wp) * NS, "we_n", 1)]
    end = t + setup + wp + hold
    if latch:
        edges.append((end * NS, latch, 0))
    edges += [(end * NS, "dq_oe", 0)]
    return edges


def read(t: int, low: int = 60) -> list[tuple[int, str, int]]:
    return [(t * NS, "re_n", 0), ((t + low) * NS, "re_n", 1)]


def feed(chk: SdrTimingChecker, edges: list[tuple[int, str, int]]) -> SdrTimingChecker:
    for t, pin, level in sorted(edges, key=lambda e: e[0]):
        chk.edge(t, pin, level)
    return chk


def params(edges: list[tuple[int, str, int]], mode: int = 0) -> list[str]:
    return [v.param for v in check_edges(sorted(edges, key=lambda e: e[0]), mode)]


def test_a_clean_status_read_passes() -> None:
    assert params(cycle(0, "cmd", 0x70) + read(400) + read(600)) == []


def test_faster_modes_are_stricter_and_mode_can_change() -> None:
    fast = cycle(0, "cmd", 0x70, setup=15, wp=12, hold=10) + read(200, low=15)
    assert params(fast, mode=5) == []
    assert "tWP" in params(fast, mode=0)
    chk = SdrTimingChecker(0)
    chk.set_mode(5)
    assert chk.mode == 5 and chk.limits.tCLH == 5


def test_mode_switch_applies_to_later_edges() -> None:
    chk = SdrTimingChecker(0)
    chk.edge(0, "ce_n", 0)
    chk.edge(10 * NS, "re_n", 0)  # tCR 10 ns after CE#
    chk.edge(30 * NS, "re_n", 1)  # 20 ns < tRP 50 ns of mode 0
    chk.set_mode(5)
    chk.edge(100 * NS, "re_n", 0)
    chk.edge(110 * NS, "re_n", 1)  # 10 ns = tRP of mode 5
    assert [(v.param, v.mode) for v in chk.violations] == [("tRP", 0)]


def test_holds_use_the_mode_the_latching_cycle_ran_in() -> None:
    """RESET latched in mode 5 puts the die in mode 0 after the rise: its holds stay mode 5."""
    fast = dict(setup=15, wp=12, hold=5)
    reset = cycle(0, "cmd", 0xFF, **fast)
    rise = 27 * NS
    chk = feed(SdrTimingChecker(5), [e for e in reset if e[0] <= rise])
    chk.set_mode(0)  # what the bench does once the die took the RESET
    feed(chk, [e for e in reset if e[0] > rise])
    assert chk.violations == []
    # the next cycle runs in mode 0: a 5 ns CLE hold is now 15 ns short
    feed(chk, cycle(1000, "cmd", 0x70, setup=70, wp=50, hold=5))
    assert {(v.param, v.mode, v.required_ns) for v in chk.violations} == {
        ("tCLH", 0, 20), ("tDH", 0, 20)
    }


@pytest.mark.parametrize("mode", [0, 3, 5])
@pytest.mark.parametrize(
    ("kind", "param"), [("cmd", "tCLR"), ("addr", "tAR")]
)
def test_cle_ale_low_before_re_fall(mode: int, kind: str, param: str) -> None:
    """CLE / ALE held after the cycle, RE# falls at tWHR: the latch must drop tCLR / tAR before."""
    s = sdr(mode)
    need = getattr(s, param)

    def edges(gap: int) -> list[tuple[int, str, int]]:
        rise = 70 + 60  # WE# rise of the cycle (ns)
        return cycle(0, kind, 0x70, setup=70, wp=60, hold=s.tWHR - gap) + read(rise + s.tWHR)

    assert params(edges(need), mode) == []
    violations = check_edges(sorted(edges(need - 1), key=lambda e: e[0]), mode)
    assert [(v.param, v.measured_ns, v.required_ns) for v in violations] == [
        (param, need - 1, need)
    ]


def test_bus_rules() -> None:
    chk = SdrTimingChecker(0)
    chk.edge(0, "cle", 1)
    chk.edge(0, "ale", 1)
    chk.edge(0, "dq_oe", 1)
    chk.edge(100 * NS, "we_n", 0)
    chk.edge(200 * NS, "we_n", 1)  # CE# high, CLE and ALE both high
    assert {v.param for v in chk.violations} == {"tCS", "CLE/ALE"}
    chk = feed(SdrTimingChecker(3), [(0, "ce_n", 0)] + cycle(0, "cmd", 0x70) + [
        (300 * NS, "dq_oe", 1),
        (500 * NS, "re_n", 0),  # DQ still driven
        (520 * NS, "we_n", 0),  # WE# falls with RE# low
    ])
    assert [v.param for v in chk.violations] == ["DQ_OE", "WE#/RE#"]
    chk.rule(False, "CE#", 600 * NS, "targets [0, 1] selected at once")
    v = chk.violations[-1]
    assert str(v) == (
        "ONFI SDR mode 3: CE# violated at t = 600 ns: measured n/a, required >= 0 ns "
        "(targets [0, 1] selected at once)"
    )


def test_controller_samples() -> None:
    chk = SdrTimingChecker(0)
    for t, pin, level in cycle(0, "cmd", 0x30) + [(200 * NS, "rb_n", 0)]:
        chk.edge(t, pin, level)
    chk.sample_rb(250 * NS)  # 90 ns after WE# rise: R/B# not valid yet (tWB 200)
    chk.edge(500 * NS, "rb_n", 1)
    chk.edge(600 * NS, "re_n", 0)
    chk.sample_dq(620 * NS)  # 20 ns after RE# fell: data not valid (tREA 40)
    assert [v.param for v in chk.violations] == ["tWB", "tREA"]
    assert "tWB" in str(chk.violations[0]) and "required >= 200 ns" in str(chk.violations[0])


def test_twb_is_the_mode_of_the_command_that_started_the_busy_period() -> None:
    """A RESET latched in mode 5 puts the die in mode 0 afterwards; its tWB is mode 5's
    100 ns, not mode 0's 200 ns (and a command latched in mode 0 keeps 200 ns)."""
    for start, after, t_next, want in [(5, 0, 150, []), (5, 0, 80, ["tWB"]),
                                       (0, 5, 150, ["tWB"])]:
        chk = SdrTimingChecker(start)
        for t, pin, level in cycle(0, "cmd", 0xFF) + [(160 * NS, "rb_n", 0)]:
            chk.edge(t, pin, level)
        chk.set_mode(after)
        chk.sample_rb((120 + t_next) * NS)  # WE# rose at 120 ns
        assert [v.param for v in chk.violations] == want, (start, after, t_next)
    for start, after, want in [(5, 0, []), (0, 5, ["tWB"])]:  # next cycle 150 ns after
        chk = feed(SdrTimingChecker(start), cycle(0, "cmd", 0xFF) + [(160 * NS, "rb_n", 0)])
        chk.set_mode(after)
        feed(chk, cycle(210, "cmd", 0x70))
        assert [v.param for v in chk.violations] == want, (start, after)


@pytest.mark.parametrize(("mode", "hold_ok"), [(0, 0), (1, 15), (5, 15)])
def test_dq_sampled_after_re_rise_only_within_trhoh(mode: int, hold_ok: int) -> None:
    """EDO: the die holds the byte tRHOH after RE# rises; sampling later reads the next state."""
    s = sdr(mode)
    chk = feed(SdrTimingChecker(mode), [(0, "ce_n", 0)] + read(100, low=s.tRC))
    rise = (100 + s.tRC) * NS
    chk.sample_dq(rise + hold_ok * NS)
    assert chk.violations == []
    chk.sample_dq(rise + (hold_ok + 1) * NS)
    assert [v.param for v in chk.violations] == ["tRHOH"]
    assert chk.limits.tRHOH == hold_ok and chk.limits.tRLOH == (5 if mode >= 4 else 0)


def test_strict_raises_first_violation_and_unknown_pin() -> None:
    chk = SdrTimingChecker(0, strict=True)
    with pytest.raises(OnfiTimingError, match="tWP"):
        for t, pin, level in cycle(0, "cmd", 0x70, wp=10):
            chk.edge(t, pin, level)
    with pytest.raises(ValueError, match="unknown pin"):
        chk.edge(0, "vcc", 1)
    chk = SdrTimingChecker(5, strict=True)
    chk.edge(0, "ce_n", 0)
    chk.edge(10 * NS, "re_n", 0)
    with pytest.raises(
        OnfiTimingError, match=r"tRP violated .* measured 3 ns, required >= 10 ns"
    ) as err:
        chk.edge(13 * NS, "re_n", 1)
    assert err.value.violation.param == "tRP"


def test_the_ftdi_socket_sends_wp_edges_to_the_checker() -> None:
    """WP# driven by the virtual FT2232H's socket reaches the checker: WE# falling 50 ns
    after WP# rises breaks tWW (100 ns), 220 ns after does not."""
    from nandlab.profiles import load_profile
    from nandlab.vchip.die import VirtualDie
    from nandlab.vusb import NandBus

    def status_after_wp(gap_ns: int) -> list[str]:
        bus = NandBus(VirtualDie(load_profile("slc-search")))
        bus.drive(1000 * NS, wp_n=1)
        t = (1000 + gap_ns) * NS  # a READ STATUS cycle: WE# low at t + 20 ns for 60 ns
        bus.drive(t, ce_n=0, cle=1, dq_oe=1, dq=0x70)
        bus.drive(t + 20 * NS, we_n=0)
        bus.drive(t + 80 * NS, we_n=1)
        bus.drive(t + 120 * NS, cle=0, dq_oe=0)
        return [v.param for v in bus.violations]

    assert status_after_wp(30) == ["tWW"]
    assert status_after_wp(200) == []
