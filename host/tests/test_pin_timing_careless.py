"""A careless SDR controller on the pins: the checker counts each lapse exactly once.

The client below runs well-formed bus cycles in mode 0 (WE# and RE# pulses
at the ONFI minima, holds met) but forgets, one at a time, what a client
written without the ONFI table forgets: tWW after WP#, tWB before looking at
R/B# or sending the next command (also when R/B# is not watched at all),
waiting for R/B# before writing or reading, tRR, tREA, tRHOH, tRHZ / tRHW
after a read, tCCS, tWHR, tIR, tCR / tCEA, tADL. R/B# is driven as a die
drives it (low within tWB of a busy start, high when the operation ends).
Numbers are the ONFI SDR mode-0 table (Linux nand_timings.c).
"""

from __future__ import annotations

from nandlab.vchip.pin_timing import SdrTimingChecker

NS = 1000


class Client:
    """Edges of a mode-0 controller, fed straight to the checker (times in ns)."""

    def __init__(self) -> None:
        self.chk = SdrTimingChecker(0)
        self.edge(0, "ce_n", 0)

    def edge(self, t: int, pin: str, level: int) -> None:
        self.chk.edge(t * NS, pin, level)

    def write(self, kind: str, byte: int, at: int) -> int:
        """One write cycle from `at`: WE# low at +10 for tWP 50 ns, latch released at +80."""
        latch = {"cmd": "cle", "addr": "ale"}.get(kind)
        self.edge(at, "dq", byte)
        self.edge(at, "dq_oe", 1)
        if latch:
            self.edge(at, latch, 1)
        self.edge(at + 10, "we_n", 0)
        self.edge(at + 60, "we_n", 1)
        if latch:
            self.edge(at + 80, latch, 0)
        return at + 60

    def read(self, at: int, sample: int | None = 45, low: int = 50) -> None:
        """One read cycle: RE# low at `at` for `low` ns, DQ sampled `sample` ns after the fall."""
        self.edge(at, "re_n", 0)
        if sample is not None and sample < low:
            self.chk.sample_dq((at + sample) * NS)
        self.edge(at + low, "re_n", 1)
        if sample is not None and sample >= low:
            self.chk.sample_dq((at + sample) * NS)


def careless_session() -> SdrTimingChecker:
    c = Client()
    c.write("cmd", 0xFF, 100)  # RESET, busy from its WE# rise at 160
    c.edge(200, "rb_n", 0)
    c.chk.sample_rb(400 * NS)
    c.edge(5000, "rb_n", 1)
    # ERASE sent 60 ns after WP# went high: tWW
    c.edge(5050, "wp_n", 0)
    c.edge(5100, "wp_n", 1)
    c.write("cmd", 0x60, 5150)
    for k, at in enumerate((5250, 5350, 5450)):
        c.write("addr", k, at)
    confirm = c.write("cmd", 0xD0, 5550)
    c.edge(confirm + 40, "rb_n", 0)
    c.chk.sample_rb((confirm + 90) * NS)  # R/B# looked at 90 ns after the confirm: tWB
    c.write("cmd", 0x00, 5900)  # a READ sent while R/B# is low: busy
    c.edge(8000, "rb_n", 1)
    # page READ, then data out with no look at R/B# or status: busy, then tRR
    c.write("cmd", 0x00, 8100)
    for k, at in enumerate(range(8200, 8700, 100)):
        c.write("addr", k, at)
    c.write("cmd", 0x30, 8700)  # WE# rise at 8760
    c.edge(8800, "rb_n", 0)
    c.edge(8800, "dq_oe", 0)
    c.read(8960)  # tWB and tWHR met, but the die is busy
    c.edge(20000, "rb_n", 1)
    c.read(20010)  # 10 ns after R/B# rose: tRR
    c.read(20160, sample=20)  # sampled before tREA
    c.read(20310, sample=55)  # sampled 5 ns after RE# rose, mode 0 holds 0 ns: tRHOH
    # CHANGE WRITE COLUMN 40 ns after the last RE# rise: tRHZ (DQ driven), tRHW
    c.write("cmd", 0x85, 20400)
    c.write("addr", 0, 20500)
    c.write("addr", 0, 20600)
    c.write("data", 0xA5, 20700)  # 100 ns after the column address: tCCS
    c.write("cmd", 0x70, 20800)  # WE# rise at 20860
    c.edge(20900, "dq_oe", 0)
    c.read(20920)  # 60 ns after WE# rose: tWHR
    c.write("cmd", 0x70, 21200)
    c.edge(21400, "dq_oe", 0)
    c.read(21405)  # 5 ns after DQ was released: tIR
    c.edge(21500, "ce_n", 1)
    c.edge(21600, "ce_n", 0)
    c.read(21605)  # 5 ns after CE# fell: tCR; sampled 50 ns after it: tCEA
    c.write("cmd", 0x80, 21900)
    c.write("addr", 0, 22000)
    c.write("data", 0x5A, 22100)  # 100 ns after the address: tADL
    c.write("cmd", 0x10, 22200)  # PROGRAM confirm at 22260; R/B# not even watched
    c.write("cmd", 0x70, 22300)  # READ STATUS 50 ns after it: tWB
    return c.chk


def test_careless_client_lapses_are_counted_exactly() -> None:
    chk = careless_session()
    got = [(v.param, v.measured_ns) for v in chk.violations]
    assert got == [
        ("tWW", 60),
        ("tWB", 90),
        ("busy", float("-inf")),
        ("busy", float("-inf")),
        ("tRR", 10),
        ("tREA", 20),
        ("tRHOH", -5),
        ("tRHZ", 40),
        ("tRHW", 50),
        ("tCCS", 100),
        ("tWHR", 60),
        ("tIR", 5),
        ("tCR", 5),
        ("tCEA", 50),
        ("tADL", 100),
        ("tWB", 50),
    ]
    details = [v.detail for v in chk.violations if v.param == "busy"]
    assert details == ["command 00h while R/B# is low",
                       "data out while R/B# is low (not a status read)"]


def test_margins_are_the_smallest_seen_per_parameter() -> None:
    chk = careless_session()
    assert chk.margins["tWW"] == 60 - 100
    assert chk.margins["tRR"] == 10 - 40
    assert chk.margins["tWP"] == 0  # every WE# pulse at exactly tWP
    assert chk.margins["tRHOH"] == -5


def test_status_reads_and_reset_are_allowed_while_busy() -> None:
    c = Client()
    confirm = c.write("cmd", 0x10, 100)
    c.edge(confirm + 50, "rb_n", 0)
    c.write("cmd", 0x70, confirm + 200)  # tWB met
    c.edge(confirm + 300, "dq_oe", 0)
    c.read(confirm + 400)
    c.write("cmd", 0x78, confirm + 700)
    for k in range(3):
        c.write("addr", k, confirm + 800 + 100 * k)
    c.edge(confirm + 1100, "dq_oe", 0)
    c.read(confirm + 1200)
    c.write("cmd", 0xFF, confirm + 1500)
    assert c.chk.violations == []
