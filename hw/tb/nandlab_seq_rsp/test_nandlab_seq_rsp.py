"""Testbench of nandlab_seq_rsp: result records on the stream, and RSP_LIMIT.

A sequencer model offers random records of every result tag, laid out as
spec.yaml says (`nandlab.ops.layout.pack` over `RESULT_LAYOUTS`): the header
and its fixed words (Word / U64 items) through rec_start / rec_emit, the
payload (Bytes / Repeat items) as single words when push_ready. Each program
ends with END, sometimes after an ERROR. Checks:

- the result stream carries exactly the packed records, tlast on END's last
  word only, and keeps the AXI-Stream handshake rules under back-pressure;
- rec_fits is the RSP_LIMIT rule: the whole record (size from its header, as
  the layout defines it) plus the closing ERROR (2) and END (3) words fit in
  the limit, counting the words of this program so far (0 = no limit); a
  record that does not fit is replaced by ERROR OVERFLOW and END, as the
  sequencer does.
"""

from __future__ import annotations

import os
import random
import struct
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly, RisingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamSink
from nandlab.ops._generated import RESULT_LAYOUTS, ErrorCode, ResultTag
from nandlab.ops.layout import U64, Bytes, Layout, Repeat, Word, pack
from nandlab.rtlsim.axis import (
    BACKPRESSURE_ENV,
    AxisRules,
    backpressure_from_env,
    random_pauses,
)
from nandlab.rtlsim.sim_env import build, run

TOPLEVEL = "nandlab_seq_rsp"
MODULE = Path(__file__).stem
LIMIT_ENV = "NANDLAB_TB_RSP_LIMIT"
CLOSING_WORDS = 5
"""ERROR (header + index) and END (header + 64-bit time) that must always still fit."""


def words_of(data: bytes) -> list[int]:
    return list(struct.unpack(f"<{len(data) // 4}I", data))


def fixed_count(layout: Layout) -> int:
    """Header plus the fixed trailing words (they precede any Bytes / Repeat payload)."""
    n = 1
    for item in layout.trailing:
        if isinstance(item, Word):
            n += 1
        elif isinstance(item, U64):
            n += 2
    return n


def record_size(header: int) -> int:
    """Words of the whole record the header announces, per its layout."""
    layout = RESULT_LAYOUTS[header >> 24]
    count = header & 0xFFFFFF
    n = fixed_count(layout)
    for item in layout.trailing:
        if isinstance(item, Bytes):
            n += -(-count // 4)
        elif isinstance(item, Repeat):
            n += count * len(item.columns)
    return n


def random_record(rng: random.Random, tag: ResultTag) -> list[int]:
    u32 = rng.getrandbits
    values: dict[str, object]
    if tag == ResultTag.DATA:
        values = {"data": bytes(u32(8) for _ in range(rng.randint(1, 13)))}
    elif tag == ResultTag.BUSY:
        values = {"index": u32(24), "busy_ns": u32(32)}
    elif tag == ResultTag.ERRCNT:
        values = {"chunk_bytes": rng.randint(1, 0xFFFFFF),
                  "counts": [(u32(32), u32(32)) for _ in range(rng.randint(0, 4))]}
    elif tag == ResultTag.POWER:
        values = {"period_ns": rng.randint(1, 2**32 - 1),
                  "samples_uA": [u32(32) for _ in range(rng.randint(0, 3))]}
    elif tag == ResultTag.MARK:
        values = {"id": u32(24), "t_ns": u32(64)}
    elif tag == ResultTag.ERROR:
        values = {"code": rng.choice(list(ErrorCode)), "index": u32(24)}
    else:
        values = {"elapsed_ns": u32(64)}
    return words_of(pack(RESULT_LAYOUTS[tag], values))


class TB:
    """Clock, reset, the result stream sink with its rule checker, and a sequencer model.

    The model drives the record and payload inputs on falling edges, so what
    it reads there (push_ready, rec_done, rec_fits) is what the DUT sees at
    the next rising edge.
    """

    def __init__(self, dut) -> None:
        self.dut = dut
        self.clk = dut.clk
        Clock(self.clk, 10, unit="ns").start()
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis_rsp"), self.clk, dut.rst)
        self.sink.log.setLevel("WARNING")
        if backpressure_from_env():
            self.sink.set_pause_generator(random_pauses(5, 0.5))
        self.rules = AxisRules(dut, "m_axis_rsp", self.clk, dut.rst)
        self.limit = int(os.environ[LIMIT_ENV])
        self.used = 0
        """Result words of the current program so far."""
        self.overflows = 0
        for name in ("rec_start", "rec_emit", "word_valid", "rec_hdr", "rec_w1", "rec_w2",
                     "word_data"):
            getattr(dut, name).value = 0
        dut.rsp_limit.value = self.limit

    async def reset(self) -> None:
        self.dut.rst.value = 1
        await ClockCycles(self.clk, 3)
        self.dut.rst.value = 0

    async def record(self, words: list[int], rng: random.Random) -> bool:
        """Offer one record; send it if it fits (or closes the program). False: OVERFLOW."""
        dut = self.dut
        tag = words[0] >> 24
        fixed = fixed_count(RESULT_LAYOUTS[tag])
        head = words[:fixed] + [0] * (3 - fixed)
        await FallingEdge(self.clk)
        dut.rec_hdr.value, dut.rec_w1.value, dut.rec_w2.value = head
        dut.rec_start.value = 1
        await ReadOnly()
        fits = int(dut.rec_fits.value)
        if tag not in (ResultTag.ERROR, ResultTag.END):
            want = self.limit == 0 or self.used + record_size(words[0]) + CLOSING_WORDS <= self.limit
            assert fits == want, (
                f"rec_fits {fits} for {len(words)}-word {ResultTag(tag).name} after "
                f"{self.used} words, limit {self.limit}"
            )
            if not fits:
                await FallingEdge(self.clk)
                dut.rec_start.value = 0
                self.overflows += 1
                return False
        await FallingEdge(self.clk)
        dut.rec_start.value = 0
        dut.rec_emit.value = 1
        while True:
            await ReadOnly()
            done = int(self.dut.rec_done.value)
            await FallingEdge(self.clk)
            if done:
                break
        dut.rec_emit.value = 0
        for word in words[fixed:]:
            while True:
                ready = int(dut.push_ready.value) and rng.random() < 0.8
                dut.word_valid.value, dut.word_data.value = int(ready), word if ready else 0
                await FallingEdge(self.clk)
                if ready:
                    break
        dut.word_valid.value = 0
        self.used = 0 if tag == ResultTag.END else self.used + len(words)
        return True

    async def program(self, rng: random.Random) -> list[int]:
        """One program's records through the DUT; the words the stream must carry."""
        sent: list[int] = []
        tags = [t for t in ResultTag if t not in (ResultTag.ERROR, ResultTag.END)]
        for _ in range(rng.randint(0, 10)):
            words = random_record(rng, rng.choice(tags))
            if not await self.record(words, rng):
                sent += await self.close(rng, ErrorCode.OVERFLOW)
                return sent
            sent += words
        return sent + await self.close(rng, rng.choice([None, ErrorCode.TIMEOUT]))

    async def close(self, rng: random.Random, error: ErrorCode | None) -> list[int]:
        words: list[int] = []
        if error is not None:
            err = words_of(pack(RESULT_LAYOUTS[ResultTag.ERROR],
                                {"code": error, "index": rng.getrandbits(24)}))
            await self.record(err, rng)
            words += err
        end = random_record(rng, ResultTag.END)
        await self.record(end, rng)
        return words + end


@cocotb.test()
async def test_records_and_limit(dut) -> None:
    tb = TB(dut)
    await tb.reset()
    rng = random.Random(tb.limit * 7 + 1)
    for n in range(40):
        want = await tb.program(rng)
        frame = await tb.sink.recv()
        got = words_of(bytes(frame.tdata))
        assert got == want, f"program {n}: stream {got}, expected {want}"
    await RisingEdge(tb.clk)
    assert tb.sink.empty(), "tlast came before the END record's last word"
    tb.rules.check()
    if tb.limit:
        assert tb.overflows > 0, "no record ever passed the limit"
    if backpressure_from_env():
        assert tb.rules.stalls > 0, "back-pressure never stalled the result stream"


GRID = {
    "quick": [("icarus", 0, 1), ("icarus", 24, 1)],
    "full": [(sim, limit, bp) for sim in ("verilator", "icarus")
             for limit in (0, 9, 24, 48) for bp in (0, 1)],
}
"""(simulator, RSP_LIMIT words, back-pressure)."""


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.definition.name == f"test_{TOPLEVEL}":
        full = metafunc.config.getoption("rtl_full", default=False)
        metafunc.parametrize(("sim", "limit", "backpressure"), GRID["full" if full else "quick"])


@pytest.mark.rtl
def test_nandlab_seq_rsp(sim: str, limit: int, backpressure: int) -> None:
    folder = build(TOPLEVEL, sim, modules=[TOPLEVEL])
    run(TOPLEVEL, sim, folder, MODULE, folder / f"limit{limit}-bp{backpressure}",
        {LIMIT_ENV: str(limit), BACKPRESSURE_ENV: str(backpressure)})
