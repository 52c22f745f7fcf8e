"""The ONFI SDR pin timing checker (nandlab.vchip.pin_timing) on hand-made edge lists."""

from __future__ import annotations

import pytest

from nandlab.vchip.pin_timing import OnfiTimingError, SdrTimingChecker, check_edges

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


def params(edges: list[tuple[int, str, int]], mode: int = 0) -> list[str]:
    return [v.param for v in check_edges(sorted(edges, key=lambda e: e[0]), mode)]


def test_a_clean_status_read_passes() -> None:
    assert params(cycle(0, "cmd", 0x70) + read(400) + read(600)) == []


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        (cycle(0, "cmd", 0x70, wp=30), ["tWP"]),
        (cycle(0, "cmd", 0x70, setup=10, wp=20), ["tWP", "tCLS", "tCS", "tDS"]),
        (cycle(0, "cmd", 0x70, hold=5), ["tCLH", "tDH"]),
        (cycle(0, "cmd", 0x70) + read(200), ["tWHR"]),
        (cycle(0, "addr", 0) + cycle(200, "data", 1), ["tADL"]),
        (cycle(0, "cmd", 0x70) + read(400, low=50) + read(470), ["tREH", "tRC"]),
        (cycle(0, "cmd", 0x70) + read(400, low=20), ["tRP"]),
        (cycle(0, "cmd", 0x70) + read(400) + cycle(500, "cmd", 0xFF), ["tRHW"]),
        (cycle(0, "cmd", 0x05) + cycle(200, "cmd", 0xE0) + read(500), ["tCCS"]),
    ],
)
def test_each_rule_is_caught(edges: list[tuple[int, str, int]], expected: list[str]) -> None:
    assert sorted(params(edges)) == sorted(expected)


def test_faster_modes_are_stricter_and_mode_can_change() -> None:
    fast = cycle(0, "cmd", 0x70, setup=15, wp=12, hold=10) + read(200, low=15)
    assert params(fast, mode=5) == []
    assert "tWP" in params(fast, mode=0)
    chk = SdrTimingChecker(0)
    chk.set_mode(5)
    assert chk.mode == 5 and chk.limits.tCLH == 5


def test_bus_rules_and_controller_samples() -> None:
    chk = SdrTimingChecker(0)
    chk.edge(0, "cle", 1)
    chk.edge(0, "ale", 1)
    chk.edge(0, "dq_oe", 1)
    chk.edge(100 * NS, "we_n", 0)
    chk.edge(200 * NS, "we_n", 1)  # CE# high, CLE and ALE both high
    found = {v.param for v in chk.violations}
    assert {"tCS", "CLE/ALE"} <= found
    chk = SdrTimingChecker(0)
    for t, pin, level in cycle(0, "cmd", 0x30) + [(200 * NS, "rb_n", 0)]:
        chk.edge(t, pin, level)
    chk.sample_rb(250 * NS)  # 90 ns after WE# rise: R/B# not valid yet (tWB 200)
    chk.edge(600 * NS, "re_n", 0)
    chk.sample_dq(620 * NS)  # 20 ns after RE# fell: data not valid (tREA 40)
    assert [v.param for v in chk.violations] == ["tWB", "tREA"]
    assert "tWB" in str(chk.violations[0]) and "needs >= 200 ns" in str(chk.violations[0])


def test_strict_raises_and_unknown_pin() -> None:
    chk = SdrTimingChecker(0, strict=True)
    with pytest.raises(OnfiTimingError, match="tWP"):
        for t, pin, level in cycle(0, "cmd", 0x70, wp=10):
            chk.edge(t, pin, level)
    with pytest.raises(ValueError, match="unknown pin"):
        chk.edge(0, "vcc", 1)
