"""Testbench of nandlab_onfi_phy: ONFI SDR bus cycles on the pins of virtual dies.

The PHY runs one CMD / ADDR / DIN / DOUT cycle per request, with every time
a count of clocks from its `timing` input. The testbench gives it the preset
of the parameter set's SDR mode (nandlab.hwgen.timing.preset of
nandlab.onfi_spec.sdr_timing, the source of nandlab_timing_pkg), puts a
virtual die on each chip enable through the pin adapter (nandlab.rtlsim.onfi_pins),
whose ONFI timing checker fails the test at the first edge that breaks a
setup, hold, pulse width or turnaround of the die's current mode, and drives
whole ONFI operations as the sequencer would, request by request, back to
back. What must hold, from the ONFI spec: the dies answer (READ ID, status,
a programmed page read back whole and from a changed column, on two targets);
every DOUT request is one RE# pulse and yields the byte the die put on DQ;
`wb_done` rises no earlier than tWB after the last WE# rise.

The PHY has no WP# or R/B# pin: WP# stays high, and the testbench reads R/B#
from the adapter as the sequencer would read the pin. Each DQ capture of the
PHY (the edge rd_valid rises on) is checked against the die's data-valid
window (tREA, tRHOH, tRLOH).

One DDR test drives the PHY's burst engine in NV-DDR2 modes 4 and 0 against a bare
strobe-answering die (no array): ONFI's repeated bytes (after READ ID a byte
takes two RE# edges, the first copy kept; after SET FEATURES a byte goes on
both edges of a DQS period; page data one byte an edge) and the warm-up
cycles that open each burst (SET FEATURES 02h P2 codes).
"""

from __future__ import annotations

import os
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import (
    ClockCycles,
    Edge,
    Event,
    FallingEdge,
    ReadOnly,
    RisingEdge,
    Timer,
)
from nandlab.hwgen import timing_ddr
from nandlab.hwgen.timing import FIELDS, preset
from nandlab.onfi.address import ChipGeometry
from nandlab.onfi_spec.nvddr_timing import DdrInterface, ddr
from nandlab.onfi_spec.opcodes import Cmd, Feature
from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.ops import Pattern, pattern_bytes
from nandlab.profiles import load_profile
from nandlab.rtlsim.grid import Grid, run_set
from nandlab.rtlsim.onfi_pins import OnfiPins
from nandlab.rtlsim.sim_env import TB_PROFILE
from nandlab.vchip.die import VirtualDie
from nandlab.vchip.pin_timing import PS_PER_NS

TOPLEVEL = "nandlab_onfi_phy"
MODULE = Path(__file__).stem
TIMEOUT_US = 2000
"""Simulated time after which a cocotb test fails (a stuck DUT must not hang the run)."""
SDR_FIELDS = tuple(name for name, _, _ in FIELDS)
KIND = {"cmd": 0, "addr": 1, "din": 2, "dout": 3}
"""req_kind encodings (KIND_* in the RTL)."""


class _Pin:
    """A pin the PHY lacks: holds a value, never changes on its own."""

    def __init__(self, value: int) -> None:
        self.value = value
        self._never = Event()

    @property
    def value_change(self):
        return self._never.wait()


class _PhyPins:
    """The DUT's pins as the adapter expects them, plus WP# (high) and R/B# (kept here)."""

    def __init__(self, dut) -> None:
        self._dut = dut
        self._log = dut._log
        self.nand_wp_n = _Pin(1)
        self.nand_rb_n = _Pin((1 << len(dut.nand_ce_n)) - 1)

    def __getattr__(self, name: str):
        return getattr(self._dut, name)


class TB:
    """The PHY with its clock, reset, timing input, request driver and a die per target."""

    def __init__(self, dut) -> None:
        self.dut = dut
        self.clk_ps = int(os.environ["NANDLAB_TB_CLK_PS"])
        self.mode = int(os.environ["NANDLAB_TB_MODE"])
        Clock(dut.clk, self.clk_ps, unit="ps").start()
        profile = load_profile(TB_PROFILE)
        self.geo = ChipGeometry.from_profile(profile)
        self.id_bytes = bytes(profile.identity.id_bytes)
        self.dies = [VirtualDie(profile, 0, k) for k in range(len(dut.nand_ce_n))]
        # the PHY's DQ captures go to the checker (inside the die's valid window)
        self.pins = OnfiPins(_PhyPins(dut), self.dies, probes={"capture": dut.rd_valid})
        self.ce = 0
        self.reads: list[int] = []
        cocotb.start_soon(self._collect_reads())

    def set_timing(self, mode: int) -> None:
        fields = preset(sdr(mode), self.clk_ps)
        self.dut.timing.value = sum(v << (8 * i) for i, v in enumerate(fields))

    async def _collect_reads(self) -> None:
        while True:
            await RisingEdge(self.dut.clk)
            if str(self.dut.rd_valid.value) == "1":
                self.reads.append(int(self.dut.rd_data.value))

    async def start(self) -> None:
        """Reset, RESET both dies, then switch dies and PHY to the parameter set's mode."""
        self.set_timing(0)
        self.dut.ce_sel.value = 0
        self.dut.req_valid.value = 0
        self.dut.req_kind.value = 0
        self.dut.req_data.value = 0
        self.dut.nand_dq_i.value = 0xFF
        self.dut.wp_n.value = 1
        self.dut.ddr.value = 0   # SDR: the DDR burst inputs stay idle
        self.dut.ddr_repeat.value = 0
        self.dut.warmup.value = 0
        self.dut.ddr_timing.value = 0
        self.dut.burst_hold.value = 0
        self.dut.rd_ready.value = 1
        self.dut.dqs_delay.value = 0
        self.dut.rst.value = 1
        self.pins.start()
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        for ce in range(len(self.dies)):
            await self.select(ce)
            await self.request("cmd", Cmd.RESET)
            await self.wait_ready()
            if self.mode:
                await self.request("cmd", Cmd.SET_FEATURES)
                await self.request("addr", Feature.TIMING_MODE)
                for b in (self.mode, 0, 0, 0):
                    await self.request("din", b)
                await self.wait_ready()
        self.set_timing(self.mode)
        await self.select(0)

    async def select(self, ce: int) -> None:
        await self.until_idle()
        self.ce = ce
        self.dut.ce_sel.value = 1 << ce

    async def request(self, kind: str, byte: int = 0) -> None:
        """Hand one bus cycle to the PHY; returns once it is taken (not yet run).

        The request is driven on a falling edge and req_ready read before the rising
        edge that samples it, so no write races the PHY's sampling edge."""
        await FallingEdge(self.dut.clk)
        self.dut.req_kind.value = KIND[kind]
        self.dut.req_data.value = byte
        self.dut.req_valid.value = 1
        while True:
            await ReadOnly()
            taken = str(self.dut.req_ready.value) == "1"
            await RisingEdge(self.dut.clk)
            if taken:
                break
            await FallingEdge(self.dut.clk)
        await FallingEdge(self.dut.clk)
        self.dut.req_valid.value = 0

    async def write(self, kind: str, data: bytes) -> None:
        for b in data:
            await self.request(kind, b)

    async def dout(self, n: int) -> bytes:
        """n DOUT requests back to back; the n bytes read, once the last is in."""
        first = len(self.reads)
        strobes = self._strobes("dout")
        for _ in range(n):
            await self.request("dout")
        await self.until_idle()
        await ClockCycles(self.dut.clk, 2)
        assert self._strobes("dout") - strobes == n, "one RE# pulse per DOUT request"
        got = bytes(self.reads[first:])
        assert len(got) == n, f"{n} DOUT requests gave {len(got)} bytes"
        return got

    def _strobes(self, kind: str) -> int:
        return sum(1 for _, k in self.pins.strobes if k == kind)

    async def until_idle(self) -> None:
        """Until no bus cycle is in progress (from the edge after the last request's)."""
        await RisingEdge(self.dut.clk)
        while str(self.dut.idle.value) != "1":
            await RisingEdge(self.dut.clk)

    async def wait_ready(self) -> None:
        """Wait for wb_done (checking it against tWB), then for the die's R/B# high, then tRR."""
        await self.until_idle()
        while str(self.dut.wb_done.value) != "1":
            await RisingEdge(self.dut.clk)
        we_rise = max(t for t, k in self.pins.strobes if k != "dout")
        t_wb_ps = sdr(self.dies[self.ce].timing_mode).tWB * PS_PER_NS
        waited = self.pins.now_ps() - we_rise
        assert waited >= t_wb_ps, (
            f"wb_done {waited} ps after WE# rise, tWB is {t_wb_ps} ps"
        )
        while not self.pins.rb_bits >> self.ce & 1:
            await RisingEdge(self.dut.clk)
        await Timer(
            self.pins.checker.limits.tRR, unit="ns"
        )  # the sequencer's DELAY tRR

    async def read_status(self) -> int:
        await self.request("cmd", Cmd.READ_STATUS)
        return (await self.dout(1))[0]


@cocotb.test(timeout_time=TIMEOUT_US, timeout_unit="us")
async def test_read_id_on_each_target(dut) -> None:
    tb = TB(dut)
    await tb.start()
    for ce in range(len(tb.dies)):
        await tb.select(ce)
        await tb.request("cmd", Cmd.READ_ID)
        await tb.request("addr", 0x20)
        assert await tb.dout(4) == b"ONFI", f"CE {ce}"
        await tb.request("cmd", Cmd.READ_ID)
        await tb.request("addr", 0x00)
        assert await tb.dout(len(tb.id_bytes)) == tb.id_bytes, f"CE {ce}"
        status = await tb.read_status()
        assert status & 0x60 == 0x60, f"CE {ce}: status {status:02X}h not ready"


@cocotb.test(timeout_time=TIMEOUT_US, timeout_unit="us")
async def test_program_then_read_back(dut) -> None:
    """Erase, program a page (tADL before its data), read it whole and from a new column."""
    tb = TB(dut)
    await tb.start()
    n = tb.geo.total_bytes
    data = pattern_bytes(Pattern.prbs(), 3, n)
    block, page, column = 2, 1, 37
    await tb.select(1)
    await tb.request("cmd", Cmd.ERASE)
    await tb.write("addr", tb.geo.row_bytes(block))
    await tb.request("cmd", Cmd.ERASE_CONFIRM)
    await tb.wait_ready()
    assert await tb.read_status() & 0x01 == 0, "erase failed"
    await tb.request("cmd", Cmd.PROGRAM)
    await tb.write("addr", tb.geo.full_address(block, page))
    await tb.write("din", data)
    await tb.request("cmd", Cmd.PROGRAM_CONFIRM)
    await tb.wait_ready()
    assert await tb.read_status() & 0x01 == 0, "program failed"
    await tb.request("cmd", Cmd.READ)
    await tb.write("addr", tb.geo.full_address(block, page))
    await tb.request("cmd", Cmd.READ_CONFIRM)
    await tb.wait_ready()
    assert await tb.dout(n) == data
    await tb.request("cmd", Cmd.CHANGE_READ_COLUMN)
    await tb.write("addr", tb.geo.column_bytes(column))
    await tb.request("cmd", Cmd.CHANGE_READ_COLUMN_CONFIRM)
    assert await tb.dout(16) == data[column : column + 16]


class _StrobeDie:
    """A bare DDR die for the burst rules alone (no array, no timing checks): answers every
    RE# edge after a burst's preamble fall with a DQS edge carrying 0x10 + the edge's index,
    parks DQS low at the next command, and logs the DQ the PHY drives at its DQS edges."""

    def __init__(self, dut) -> None:
        self.dut = dut
        self.re_edges = 0
        self.in_burst = False
        self.dq_at_dqs: list[int] = []
        dut.nand_dqs_i.value = 0
        dut.nand_dq_i.value = 0
        cocotb.start_soon(self._answer())
        cocotb.start_soon(self._end_bursts())
        cocotb.start_soon(self._listen())

    async def _end_bursts(self) -> None:
        while True:
            await RisingEdge(self.dut.nand_cle)
            self.in_burst = False
            self.dut.nand_dqs_i.value = 0

    async def _answer(self) -> None:
        dut, re_old = self.dut, 1
        while True:
            await Edge(dut.nand_re_n)
            re_now = int(dut.nand_re_n.value)
            if re_now == re_old:
                continue
            re_old = re_now
            if not self.in_burst:
                self.in_burst = re_now == 0   # the preamble's fall carries no byte
                continue
            await Timer(1, unit="ns")
            dut.nand_dq_i.value = 0x10 + self.re_edges
            dut.nand_dqs_i.value = 1 - int(dut.nand_dqs_i.value)
            self.re_edges += 1

    async def _listen(self) -> None:
        """DQS levels as settled in each time step (the ODDR model's zero-width glitches at a
        clock edge are no edges on a pin)."""
        dut, level = self.dut, 0
        while True:
            await Edge(dut.nand_dqs_o)
            await ReadOnly()
            now = int(dut.nand_dqs_o.value)
            if str(dut.nand_dqs_oe.value) == "1" and now != level:
                self.dq_at_dqs.append(int(dut.nand_dq_o.value))
            level = now


@cocotb.test(timeout_time=TIMEOUT_US, timeout_unit="us")
async def test_ddr_repeated_bytes_and_warm_up(dut) -> None:
    """NV-DDR2 modes 4 and 0 (one and several clocks a transfer): after READ ID each DOUT byte
    takes two RE# edges (the first copy kept), after SET FEATURES each DIN byte goes out on two
    DQS edges; a page-data command reads one byte an edge again. Every burst opens with its
    warm-up cycles (out code 2: 2 cycles, in code 1: 1 cycle) whose bytes are dropped / not data."""
    clk_ps = int(os.environ["NANDLAB_TB_CLK_PS"])
    Clock(dut.clk, clk_ps, unit="ps").start()
    dut.ddr.value = 1
    dut.ddr_repeat.value = 1
    dut.warmup.value = 1 << 2 | 2
    for name, value in (("ce_sel", 1), ("req_valid", 0), ("req_kind", 0), ("req_data", 0),
                        ("wp_n", 1), ("burst_hold", 0), ("rd_ready", 1), ("dqs_delay", 200)):
        getattr(dut, name).value = value
    die = _StrobeDie(dut)
    reads: list[int] = []

    async def collect() -> None:
        while True:
            await RisingEdge(dut.clk)
            if str(dut.rd_valid.value) == "1":
                reads.append(int(dut.rd_data.value))

    cocotb.start_soon(collect())
    tb = TB.__new__(TB)   # only its request driver and idle wait
    tb.dut = dut

    async def burst(kind: str, data: bytes) -> None:
        dut.burst_hold.value = 1   # the instruction has bytes to come: the burst stays open
        for byte in data:
            await tb.request(kind, byte)
        dut.burst_hold.value = 0
        await tb.until_idle()
        await ClockCycles(dut.clk, 4)

    for mode in (4, 0):
        fields = timing_ddr.preset(ddr(DdrInterface.NV_DDR2, mode), clk_ps, SDR_FIELDS)
        word = sum(v << (8 * i) for i, v in enumerate(fields))
        dut.timing.value = word & ((1 << len(dut.timing)) - 1)
        dut.ddr_timing.value = word >> len(dut.timing)
        dut.rst.value = 1
        await ClockCycles(dut.clk, 4)
        dut.rst.value = 0
        await tb.request("cmd", Cmd.READ_ID)
        await tb.request("addr", 0x00)
        first, reads[:] = die.re_edges, []
        await burst("dout", bytes(3))
        # 4 warm-up edges, then pairs: keep the bytes of edges 4, 6, 8; an even count is
        # parked with one more RE# rise
        assert reads == [0x10 + first + k for k in (4, 6, 8)], (mode, [hex(b) for b in reads])
        assert die.re_edges - first == 4 + 2 * 3 + 1, (mode, die.re_edges - first)
        await tb.request("cmd", Cmd.READ)   # page data: one byte an edge again
        first, reads[:] = die.re_edges, []
        await burst("dout", bytes(2))
        assert reads == [0x10 + first + 4, 0x10 + first + 5], (mode, [hex(b) for b in reads])
        assert die.re_edges - first == 4 + 2 + 1, (mode, die.re_edges - first)
        await tb.request("cmd", Cmd.SET_FEATURES)
        await tb.request("addr", Feature.TIMING_MODE)
        first = len(die.dq_at_dqs)
        await burst("din", bytes([0xA5, 0x3C]))
        # 2 warm-up edges (DQ not data), then each byte on both edges of a DQS period
        written = die.dq_at_dqs[first:]
        assert len(written) == 6 and written[2:] == [0xA5, 0xA5, 0x3C, 0x3C], (mode, written)


GRID = Grid(
    f"test_{TOPLEVEL}",
    ("sim", "clk_ps", "mode"),
    quick=[("verilator", 10_000, 0), ("verilator", 10_000, 5), ("icarus", 5_000, 3)],
    full=[(sim, 10_000, mode) for sim in ("verilator", "icarus") for mode in range(6)]
    + [
        (sim, clk, mode)
        for sim in ("verilator", "icarus")
        for clk in (8_000, 5_000)
        for mode in (0, 5)
    ],
)
"""(simulator, clock period ps, SDR mode); the presets exist for 10, 8 and 5 ns clocks."""
pytest_generate_tests = GRID.generate


@pytest.mark.rtl
def test_nandlab_onfi_phy(sim: str, clk_ps: int, mode: int) -> None:
    params = {"NUM_CE": 2}
    env = {"NANDLAB_TB_CLK_PS": str(clk_ps), "NANDLAB_TB_MODE": str(mode)}
    run_set(TOPLEVEL, sim, params, MODULE, f"mode{mode}", env,
            modules=[TOPLEVEL, "nandlab_ddr_io"])
