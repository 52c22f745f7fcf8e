"""Testbench of nandlab_seq: the sequencer engine alone, between op programs and a PHY model.

Op programs (`nandlab.ops.Program(...).encode()`) go in on s_axis_cmd; a
model of the PHY request interface (nandlab_onfi_phy's ports: one request
per bus cycle, a DOUT returns its byte on rd_valid, `idle`, `wb_done` some
cycles after a WE# cycle) and of R/B# per target answers; results come out
on m_axis_rsp and are decoded with `nandlab.ops.decode_results`. What the
spec (spec.yaml, docs/op-program.md) says a program yields is checked:

- CE selects the one-hot `ce_sel` (0 between programs, never changed while
  a bus cycle runs); CMD / ADDR / DIN / DOUT become PHY requests of their
  kind with their bytes in program order;
- DATA carries the bytes the PHY model read, BUSY the R/B# low time the
  model drove (clock cycles x CLK_PERIOD_PS), MARK its id, END closes;
- a WAIT_RDY shorter than the busy time gives ERROR TIMEOUT + END, an unknown
  opcode ERROR BAD_OPCODE, a DOUT over `rsp_limit` ERROR OVERFLOW with no
  read cycle; `cnt_programs` / `cnt_errors` count, `status_last_error` shows
  the latest code;
- the result stream keeps the AXI-Stream rules under random back-pressure.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import random
import struct
from collections import deque
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource
from nandlab.ops import (
    Addr,
    BusyRecord,
    Ce,
    Cmd,
    DataRecord,
    Delay,
    Din,
    Dout,
    EndRecord,
    ErrorCode,
    ErrorRecord,
    Instruction,
    Mark,
    MarkRecord,
    Opcode,
    Program,
    Record,
    WaitRdy,
    decode_results,
)
from nandlab.rtlsim.axis import (
    BACKPRESSURE_ENV,
    AxisRules,
    backpressure_from_env,
    random_pauses,
)
from nandlab.rtlsim.grid import Grid, run_set

TOPLEVEL = "nandlab_seq"
MODULE = Path(__file__).stem
MODULES = [
    TOPLEVEL,
    "nandlab_seq_decode",
    "nandlab_seq_rsp",
    "nandlab_pattern_gen",
    "nandlab_err_counter",
    "nandlab_udiv",
]
CLK_ENV = "NANDLAB_TB_CLK_PS"
NUM_CE_ENV = "NANDLAB_TB_NUM_CE"
TIMEOUT_US = 2000
"""Simulated time after which a cocotb test fails (a stuck DUT must not hang the run)."""

KIND_CMD, KIND_ADDR, KIND_DIN, KIND_DOUT = range(4)
BUSY_CMDS = frozenset({0x10, 0x30, 0xD0, 0xFF})
"""Commands after which the model pulls the selected target's R/B# low (program, read,
erase, reset confirm), for the next time the test planned."""
WB_CYCLES = 3
"""Cycles from the end of a WE# cycle (CMD / ADDR / DIN) until the model raises wb_done."""


@dataclasses.dataclass(frozen=True)
class Request:
    target: int
    kind: int
    data: int | None
    """The byte for CMD / ADDR / DIN; None for DOUT (the PHY drives the byte)."""


class TB:
    """Clock, reset, program source, result sink with its rule checker, PHY and R/B# model.

    The model drives its inputs on falling edges and reads the DUT's request
    in the ReadOnly phase after them, so what it reads is what the DUT and
    the model both see at the next rising edge.
    """

    def __init__(self, dut) -> None:
        self.dut = dut
        self.clk, self.rst = dut.clk, dut.rst
        self.ns = int(os.environ[CLK_ENV]) // 1000
        self.num_ce = int(os.environ[NUM_CE_ENV])
        self.backpressure = backpressure_from_env()
        Clock(self.clk, self.ns, unit="ns").start()
        self.cmd = AxiStreamSource(
            AxiStreamBus.from_prefix(dut, "s_axis_cmd"), self.clk, self.rst
        )
        self.rsp = AxiStreamSink(
            AxiStreamBus.from_prefix(dut, "m_axis_rsp"), self.clk, self.rst
        )
        for model in (self.cmd, self.rsp):
            model.log.setLevel("WARNING")
        self.rules = AxisRules(dut, "m_axis_rsp", self.clk, self.rst)
        if self.backpressure:
            self.cmd.set_pause_generator(random_pauses(3, 0.3))
            self.rsp.set_pause_generator(random_pauses(5, 0.5))
        self.rng = random.Random(self.ns * 31 + self.num_ce * 7 + self.backpressure)
        self.requests: list[Request] = []
        self.read: list[int] = []
        """Bytes the model returned for DOUT requests, in order."""
        self.busy_plan: deque[int] = deque()
        """R/B# low cycles for the coming busy commands, in order."""
        self.rb_low = [0] * self.num_ce
        self.overlaps = 0
        """DOUT requests taken while an earlier read's byte was still to come."""
        dut.rsp_limit.value = 0
        dut.clear_counters.value = 0
        dut.phy_req_ready.value = 0
        dut.phy_rd_valid.value = 0
        dut.phy_rd_data.value = 0
        dut.phy_idle.value = 1
        dut.phy_wb_done.value = 1
        dut.rb_n.value = (1 << self.num_ce) - 1

    async def start(self) -> None:
        self.rst.value = 1
        await ClockCycles(self.clk, 4)
        self.rst.value = 0
        cocotb.start_soon(self._phy())
        await ClockCycles(self.clk, 2)

    def rb_high(self) -> bool:
        return not any(self.rb_low)

    async def _phy(self) -> None:
        """The PHY's request side, as nandlab_onfi_phy's header describes it.

        A bus cycle lasts `length` clocks; the next request is taken in its
        last clock. A DOUT's byte comes in that last clock or one later (on
        the edge that starts the next read cycle), so up to two reads overlap.
        """
        dut = self.dut
        rng = random.Random(self.rng.random())
        busy_left = 0  # clocks of the bus cycle in progress still to run
        wb_left = 0
        pending: Request | None = None
        pending_sel = 0
        ended: list[Request] = []
        due: deque[int] = deque()  # clock of each DOUT byte still to come
        for clock in itertools.count():
            await FallingEdge(self.clk)
            if busy_left:
                busy_left -= 1
                if busy_left == 0 and pending is not None:
                    ended.append(pending)
                    pending = None
            for req in ended:
                if req.kind != KIND_DOUT:
                    wb_left = WB_CYCLES
                if req.kind == KIND_CMD and req.data in BUSY_CMDS:
                    assert self.busy_plan, (
                        f"no busy time planned for command {req.data:02X}h"
                    )
                    self.rb_low[req.target] = self.busy_plan.popleft()
            ended.clear()
            rd_valid = bool(due) and due[0] <= clock
            if rd_valid:
                due.popleft()
                byte = rng.getrandbits(8)
                self.read.append(byte)
                dut.phy_rd_data.value = byte
            wb_left = max(0, wb_left - 1)
            rb_n = 0
            for k in range(self.num_ce):
                if self.rb_low[k]:
                    self.rb_low[k] -= 1
                else:
                    rb_n |= 1 << k
            idle = busy_left == 0 and not due
            ready = busy_left <= 1 and not (self.backpressure and rng.random() < 0.4)
            dut.rb_n.value = rb_n
            dut.phy_rd_valid.value = int(rd_valid)
            dut.phy_idle.value = int(idle)
            dut.phy_wb_done.value = int(idle and wb_left == 0)
            dut.phy_req_ready.value = int(ready)
            await ReadOnly()
            ce_sel = int(dut.ce_sel.value)
            if not idle:
                assert ce_sel == pending_sel, (
                    f"ce_sel {ce_sel:b} changed during a bus cycle"
                )
            if ready and int(dut.phy_req_valid.value):
                assert ce_sel and ce_sel & (ce_sel - 1) == 0, (
                    f"request with ce_sel {ce_sel:b}"
                )
                kind = int(dut.phy_req_kind.value)
                data = None if kind == KIND_DOUT else int(dut.phy_req_data.value)
                if pending is not None:
                    ended.append(pending)
                pending = Request(ce_sel.bit_length() - 1, kind, data)
                pending_sel = ce_sel
                self.requests.append(pending)
                busy_left = rng.randint(2, 4) if self.backpressure else 2
                if kind == KIND_DOUT:
                    self.overlaps += bool(due)
                    due.append(clock + busy_left - 1 + rng.randint(0, 1))

    async def run(self, words: bytes) -> list[Record]:
        """Send one program (raw words, tlast on the last), return its decoded results."""
        self.requests.clear()
        self.read.clear()
        await self.cmd.send(AxiStreamFrame(words))
        results = decode_results(bytes((await self.rsp.recv()).tdata))
        await FallingEdge(self.clk)
        assert int(self.dut.ce_sel.value) == 0, "a target stays selected after END"
        return list(results)


def expected(
    program: Program, read: list[int], busy: list[int], ns: int
) -> tuple[list[Request], list[Record]]:
    """PHY requests and result records (MARK and END times 0) the spec asks of `program`.

    read: the bytes the PHY returned; busy: R/B# low cycles per WAIT_RDY.
    """
    requests: list[Request] = []
    records: list[Record] = []
    target = -1
    reads, busys = iter(read), iter(busy)
    for index, op in enumerate(program):
        if isinstance(op, Ce):
            target = op.target
        elif isinstance(op, Cmd):
            requests.append(Request(target, KIND_CMD, op.byte))
        elif isinstance(op, (Addr, Din)):
            kind = KIND_ADDR if isinstance(op, Addr) else KIND_DIN
            requests += [Request(target, kind, b) for b in op.data]
        elif isinstance(op, Dout):
            requests += [Request(target, KIND_DOUT, None)] * op.n
            records.append(DataRecord(bytes(next(reads) for _ in range(op.n))))
        elif isinstance(op, WaitRdy):
            records.append(BusyRecord(index, next(busys) * ns))
        elif isinstance(op, Mark):
            records.append(MarkRecord(op.id, 0))
    return requests, records + [EndRecord(0)]


def untimed(records: list[Record]) -> list[Record]:
    """The records with MARK / END times set to 0 (they depend on PHY and stream stalls)."""
    out: list[Record] = []
    for r in records:
        if isinstance(r, MarkRecord):
            r = dataclasses.replace(r, t_ns=0)
        elif isinstance(r, EndRecord):
            r = dataclasses.replace(r, elapsed_ns=0)
        out.append(r)
    return out


def random_program(rng: random.Random, num_ce: int) -> tuple[Program, list[int]]:
    """A program of bus cycles, reads, marks, delays and busy waits; R/B# low cycles per wait."""
    ops: list[Instruction] = [Ce(rng.randrange(num_ce))]
    busy: list[int] = []
    plain_cmds = [b for b in range(256) if b not in BUSY_CMDS]
    for _ in range(rng.randint(1, 8)):
        pick = rng.randrange(8)
        if pick == 0:
            ops.append(Ce(rng.randrange(num_ce)))
        elif pick == 1:
            ops.append(Cmd(rng.choice(plain_cmds)))
        elif pick == 2:
            ops.append(Addr(rng.randbytes(rng.randint(1, 8))))
        elif pick == 3:
            ops.append(Din(rng.randbytes(rng.randint(1, 11))))
        elif pick == 4:
            ops.append(Dout(rng.randint(1, 13)))
        elif pick == 5:
            ops.append(Mark(rng.getrandbits(24)))
        elif pick == 6:
            ops.append(Delay(rng.randint(0, 80)))
        else:
            busy.append(rng.randint(1, 60))
            ops += [Cmd(rng.choice(sorted(BUSY_CMDS))), WaitRdy(1_000_000)]
    return Program(ops), busy


def check_times(records: list[Record], ns: int) -> None:
    """MARK times rise, END's elapsed time comes last; all are whole clock cycles."""
    times = [r.t_ns for r in records if isinstance(r, MarkRecord)]
    times += [r.elapsed_ns for r in records if isinstance(r, EndRecord)]
    assert times == sorted(times), f"times out of order: {times}"
    assert all(t % ns == 0 for t in times), (
        f"times not in whole {ns} ns cycles: {times}"
    )


@cocotb.test(timeout_time=TIMEOUT_US, timeout_unit="us")
async def test_random_programs(dut) -> None:
    """Random programs: requests, ce_sel, DATA, BUSY, MARK and END as the spec says."""
    tb = TB(dut)
    await tb.start()
    count = 60
    for n in range(count):
        program, busy = random_program(tb.rng, tb.num_ce)
        tb.busy_plan.extend(busy)
        got = await tb.run(program.encode())
        want_requests, want_records = expected(program, tb.read, busy, tb.ns)
        assert tb.requests == want_requests, (
            f"program {n} {program}: PHY requests differ"
        )
        assert untimed(got) == want_records, f"program {n} {program}: results {got}"
        check_times(got, tb.ns)
    assert int(dut.cnt_programs.value) == count
    assert int(dut.cnt_errors.value) == 0
    assert tb.overlaps > 0, "no DOUT was taken while a read was in flight"
    tb.rules.check()
    if tb.backpressure:
        assert tb.rules.stalls > 0, "back-pressure never stalled the result stream"


@cocotb.test(timeout_time=TIMEOUT_US, timeout_unit="us")
async def test_errors_then_usable(dut) -> None:
    """TIMEOUT, BAD_OPCODE and OVERFLOW end their program with ERROR + END; the next one works."""
    tb = TB(dut)
    await tb.start()
    target = tb.num_ce - 1

    busy_cycles = 200
    tb.busy_plan.append(busy_cycles)
    got = await tb.run(
        Program(
            [Ce(target), Cmd(0x60), Cmd(0xD0), WaitRdy(50 * tb.ns), Mark(7)]
        ).encode()
    )
    assert untimed(got) == [ErrorRecord(ErrorCode.TIMEOUT, 3), EndRecord(0)], got
    assert int(dut.status_last_error.value) == ErrorCode.TIMEOUT
    while not tb.rb_high():
        await FallingEdge(tb.clk)

    unknown = next(c for c in range(256) if c not in set(Opcode))
    words = (
        Program([Ce(target), Cmd(0x90)]).encode()[:-4]
        + struct.pack("<I", unknown << 24)
        + Program([Cmd(0x70)]).encode()
    )
    got = await tb.run(words)
    assert untimed(got) == [ErrorRecord(ErrorCode.BAD_OPCODE, 2), EndRecord(0)], got
    assert tb.requests == [Request(target, KIND_CMD, 0x90)], (
        "the program went on after the error"
    )

    dut.rsp_limit.value = 12
    got = await tb.run(Program([Ce(0), Cmd(0x00), Dout(32)]).encode())
    assert untimed(got) == [ErrorRecord(ErrorCode.OVERFLOW, 2), EndRecord(0)], got
    assert tb.requests == [Request(0, KIND_CMD, 0x00)], (
        "a DOUT over the limit read the chip"
    )
    assert int(dut.status_last_error.value) == ErrorCode.OVERFLOW
    dut.rsp_limit.value = 0

    tb.busy_plan.append(busy_cycles)
    program = Program([Ce(target), Cmd(0xFF), WaitRdy(1_000_000), Dout(5)])
    got = await tb.run(program.encode())
    assert untimed(got) == expected(program, tb.read, [busy_cycles], tb.ns)[1], got
    assert int(dut.cnt_programs.value) == 4
    assert int(dut.cnt_errors.value) == 3

    dut.clear_counters.value = 1
    await FallingEdge(tb.clk)
    dut.clear_counters.value = 0
    await ReadOnly()
    assert (int(dut.cnt_programs.value), int(dut.cnt_errors.value)) == (0, 0)
    tb.rules.check()


GRID = Grid(
    f"test_{TOPLEVEL}",
    ("sim", "clk_ps", "num_ce", "backpressure"),
    quick=[("icarus", 10_000, 4, 1), ("icarus", 5_000, 2, 0)],
    full=[
        (sim, clk, num_ce, bp)
        for sim in ("verilator", "icarus")
        for clk, num_ce in ((10_000, 4), (5_000, 2))
        for bp in (0, 1)
    ],
)
"""(simulator, clock period ps, NUM_CE, back-pressure on programs, PHY and results)."""
pytest_generate_tests = GRID.generate


@pytest.mark.rtl
def test_nandlab_seq(sim: str, clk_ps: int, num_ce: int, backpressure: int) -> None:
    run_set(
        TOPLEVEL,
        sim,
        {"CLK_PERIOD_PS": clk_ps, "NUM_CE": num_ce},
        MODULE,
        f"bp{backpressure}",
        {
            CLK_ENV: str(clk_ps),
            NUM_CE_ENV: str(num_ce),
            BACKPRESSURE_ENV: str(backpressure),
        },
        modules=MODULES,
    )
