"""The DDR pin checker on a careful client (no violation) and a careless one whose
violations are counted exactly, rule by rule, at NV-DDR3 mode 10 (800 MT/s)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from nandlab.onfi_spec.nvddr_timing import DDR_MODES, DdrTiming, ddr
from nandlab.vchip.pin_timing import OnfiTimingError
from nandlab.vchip.pin_timing_ddr import DdrOutputModel, DdrTimingChecker, check_ddr_edges

T = ddr("nv-ddr3", 10)
GRID = [(i.value, t.mode) for i, rows in DDR_MODES.items() for t in rows]


@dataclass
class Client:
    """Drives NV-DDR3 pins; `slack` shortens chosen gaps (ps) to break one rule each."""

    slack: dict[str, int] = field(default_factory=dict)
    lim: DdrTiming = T
    t: int = 0
    edges: list[tuple[int, str, int]] = field(default_factory=list)
    samples: list[int] = field(default_factory=list)
    die_dqs: list[int] = field(default_factory=list)
    warmup_in: int = 0
    """Warm-up cycles the checker is told the die expects on data in (feature 02h)."""

    def at(self, dt: int, pin: str, level: int) -> None:
        self.t += dt
        self.edges.append((self.t, pin, level))

    def cycle(self, pin: str, byte: int) -> None:
        """A command (pin 'cle') or address ('ale') cycle latched by WE_n."""
        self.at(0, pin, 1)
        self.at(0, "dq", byte)
        self.at(1000, "we_n", 0)
        self.at(self.lim.tCALS, "we_n", 1)
        self.at(self.lim.tCALH, pin, 0)
        self.at(self.lim.tWH, "dq", 0)
        self.t += self.lim.tWC

    def half(self, i: int) -> int:
        """Half cycles alternate floor / ceil, so an odd tRC in ps is kept exactly."""
        return self.lim.tRC // 2 if i % 2 == 0 else self.lim.tRC - self.lim.tRC // 2

    def data_in(self, data: bytes, park: bool = True, release: bool = True) -> None:
        """DQS edges after the preamble, one per byte; `park=False` releases DQS where the
        last edge left it (high after an odd count) instead of a final fall; `release=False`
        keeps DQ driven after the burst."""
        self.at(0, "dq_oe", 1)
        self.at(0, "dqs", 0)
        self.t += self.lim.tWPRE - self.slack.get("tWPRE", 0) - self.lim.tDS - 20
        for i, byte in enumerate(data):
            late = self.slack.get("tDS", 0) if i == 1 else 0
            self.at(late, "dq", byte)
            self.at(self.lim.tDS + 20 - late, "dqs", 1 - i % 2)
            glitch = self.lim.tDH - self.slack["tDH"] if i == 2 and "tDH" in self.slack else 0
            if glitch:
                self.at(glitch, "dq", byte ^ 0xFF)  # DQ moves inside the hold
            self.t += self.half(i) - self.lim.tDS - 20 - glitch
        if park:
            self.at(0, "dqs", 0)
        if release:
            self.at(self.lim.tWPST + 100, "dq_oe", 0)
        else:
            self.t += self.lim.tWPST + 100

    def data_out(self, n: int, capture: dict[int, int]) -> None:
        """RE_n burst of n bytes; the die answers each RE_n edge with a DQS edge 3 ns later;
        `capture` moves chosen captures (byte -> delay after its DQS edge, ps)."""
        self.at(self.lim.tWHR, "re_n", 0)
        self.t += self.lim.tRPRE - self.slack.get("tRPRE", 0)
        for i in range(n):
            self.at(0, "re_n", 1 - i % 2)
            dqs_t = self.t + 3000
            self.die_dqs.append(dqs_t)
            self.samples.append(dqs_t + capture.get(i, (self.lim.tDQSQ + self.lim.tQH) // 2))
            self.t += self.half(i)
        self.at(0, "re_n", 1)
        self.t += self.lim.tRPST - self.slack.get("tRPST", 0)

    def session(self, capture: dict[int, int] | None = None) -> None:
        self.at(0, "ce_n", 0)
        self.t += self.lim.tCS
        for pin, byte in (("cle", 0x80), *(("ale", 0) for _ in range(5))):
            self.cycle(pin, byte)
        self.t += self.lim.tADL
        self.data_in(b"\x12\x34\x56\x78")
        self.cycle("cle", 0x10)
        self.cycle("cle", 0x05)
        self.cycle("ale", 0)
        self.cycle("cle", 0xE0)
        self.data_out(4, capture or {})
        self.cycle("cle", 0x70)

    def run(self) -> DdrTimingChecker:
        chk = DdrTimingChecker(self.lim.interface, self.lim.mode)
        chk.set_warmup(0, self.warmup_in)
        events = [(t, 0, pin, lvl) for t, pin, lvl in self.edges]
        events += [(t, 1, "dqs", 1 - i % 2) for i, t in enumerate(self.die_dqs)]
        events += [(t, 2, "", 0) for t in self.samples]
        for t, kind, pin, lvl in sorted(events, key=lambda e: (e[0], e[1])):
            if kind == 2:
                chk.sample_dq(t)
            else:
                chk.edge(t, pin, lvl)
        return chk


@pytest.mark.parametrize(("interface", "mode"), GRID)
def test_a_careful_client_breaks_nothing_and_keeps_margin(interface: str, mode: int) -> None:
    client = Client(lim=ddr(interface, mode))
    client.session()
    chk = client.run()
    assert chk.violations == []
    assert min(chk.margins.values()) >= 0
    assert chk.margins["tDS"] == pytest.approx(0.02)


@pytest.mark.parametrize(("interface", "mode"), GRID)
def test_a_careless_client_is_caught_once_per_fault(interface: str, mode: int) -> None:
    lim = ddr(interface, mode)
    slack = {"tWPRE": 5000, "tDS": 100, "tDH": 100, "tRPRE": 10000, "tRPST": 20000}
    client = Client(slack=slack, lim=lim)
    client.session(capture={1: lim.tDQSQ - 50, 2: lim.tQH + 50})
    found = client.run().violations
    assert sorted(v.param for v in found) == sorted(
        ["tWPRE", "tDS", "tDH", "tRPRE", "tRPST", "tDQSQ", "tQH"])
    assert str(found[0]).startswith(f"{interface} mode {mode}: tWPRE violated")
    assert "required 15 ns" in str(found[0])


def test_strict_mode_stops_at_the_first_fault_and_check_edges_collects() -> None:
    client = Client(slack={"tWPRE": 5000})
    client.session()
    strict = DdrTimingChecker("nv-ddr3", 10, strict=True)
    with pytest.raises(OnfiTimingError, match="tWPRE"):
        for t, pin, lvl in client.edges:
            strict.edge(t, pin, lvl)
    assert [v.param for v in check_ddr_edges(client.edges, "nv-ddr3", 10)] == ["tWPRE"]
    with pytest.raises(ValueError, match="unknown pin 'clk'"):
        strict.edge(0, "clk", 1)


def test_the_same_pins_are_legal_at_a_slower_mode() -> None:
    client = Client()
    client.session()
    slow = DdrTimingChecker("nv-ddr2", 7)  # 400 MT/s wants longer DQS pulses
    for t, pin, lvl in client.edges:
        slow.edge(t, pin, lvl)
    assert {v.param for v in slow.violations} >= {"tDQSH", "tDSC"}


def test_output_model_window_and_injected_skew() -> None:
    model = DdrOutputModel(T, lane_skew_ps=(0, 400))
    assert model.capture_ok(0, T.tDQSQ) and model.capture_ok(0, T.tQH)
    assert not model.capture_ok(0, T.tDQSQ - 1) and not model.capture_ok(0, T.tQH + 1)
    assert not model.capture_ok(1, T.tDQSQ) and model.capture_ok(1, T.tQH + 400)


def set_features(client: Client, sent: bytes) -> DdrTimingChecker:
    """SET FEATURES 01h with `sent` on the DQS edges, then READ STATUS (an odd count leaves
    DQS high: a parking fall would latch the last byte again and even the count)."""
    client.at(0, "ce_n", 0)
    client.t += client.lim.tCS
    client.cycle("cle", 0xEF)
    client.cycle("ale", 0x01)
    client.t += client.lim.tADL
    client.data_in(sent, park=len(sent) % 2 == 0)
    client.cycle("cle", 0x70)
    return client.run()


@pytest.mark.parametrize(("interface", "mode"), GRID)
def test_set_features_bytes_sent_twice_pass(interface: str, mode: int) -> None:
    # ONFI's repeat bytes: P1 P1 P2 P2 P3 P3 P4 P4 on eight DQS edges
    chk = set_features(Client(lim=ddr(interface, mode)), bytes.fromhex("3a3a000000000000"))
    assert chk.violations == []


@pytest.mark.parametrize(
    ("sent", "shown"),
    [
        (bytes.fromhex("3a000000"), "got 3A 00 00 00"),           # each byte once
        (bytes.fromhex("3a3a0000000000"), "got 3A 3A 00 00 00 00 00"),  # odd edge count
        (bytes.fromhex("3a3b000000000000"), "got 3A 3B 00"),      # a pair that differs
    ],
)
def test_set_features_bytes_not_repeated_are_one_violation(sent: bytes, shown: str) -> None:
    found = set_features(Client(), sent).violations
    assert [v.param for v in found] == ["repeat bytes"]
    assert "command EFh" in found[0].detail and shown in found[0].detail
    assert str(found[0]).startswith("nv-ddr3 mode 10: repeat bytes violated")


@pytest.mark.parametrize(("command", "faults"), [(0x80, []), (0xEF, ["repeat bytes"])])
def test_a_burst_belongs_to_the_command_before_it(command: int, faults: list[str]) -> None:
    # a controller that keeps driving DQ through the next commands (as the RTL PHY does):
    # PROGRAM's page data, sent once, is not judged by the READ STATUS that follows it
    client = Client()
    client.at(0, "ce_n", 0)
    client.t += client.lim.tCS
    client.cycle("cle", command)
    client.cycle("ale", 0x01)
    client.t += client.lim.tADL
    client.data_in(b"\x12\x34\x56\x78", release=False)
    client.cycle("cle", 0x10)
    client.cycle("cle", 0x70)
    client.at(client.lim.tWHR, "dq_oe", 0)
    assert [v.param for v in client.run().violations] == faults


@pytest.mark.parametrize("cycles", [1, 2, 4])
def test_set_features_after_warm_up_edges_passes(cycles: int) -> None:
    # the warm-up edges carry no data (DQ 00h here), then P1 P1 .. P4 P4
    sent = bytes(2 * cycles) + bytes.fromhex("3a3a000000000000")
    assert set_features(Client(warmup_in=cycles), sent).violations == []


def test_set_features_without_its_warm_up_is_one_violation() -> None:
    found = set_features(Client(warmup_in=2), bytes.fromhex("3a3a000000000000")).violations
    assert [v.param for v in found] == ["warm-up"]
    assert "burst of 8 DQS edges: 4 warm-up + 8 data expected" in found[0].detail


def test_toggle_moves_set_features_bytes_once() -> None:
    # the repeat is ONFI's NV-DDR rule; a Toggle DDR 2.0 part takes P1..P4 on four edges
    client = Client(lim=ddr("toggle2", 7))
    assert set_features(client, bytes.fromhex("3a000000")).violations == []
