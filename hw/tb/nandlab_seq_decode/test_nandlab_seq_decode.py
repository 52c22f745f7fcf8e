"""Testbench of nandlab_seq_decode: header checks as the op-program spec defines them.

The reference is built from the instruction layouts of spec.yaml
(`nandlab.ops._generated.OP_LAYOUTS`) and the FPGA rules of docs/fpga.md:
an unknown opcode is BAD_OPCODE; a reserved arg bit, a field outside its
range, END without tlast, a POWER stop with no window open or a TIMING
other than a mode the timing tables have (SDR 0..MAX_SDR_MODE, NV-DDR2 and
Toggle 0..7, NV-DDR3 0..15, any warm-up code; no clocked NV-DDR) is
BAD_ARG; a bus instruction before CE, or CE of a target >= NUM_CE,
is NO_TARGET; a valid header with tlast that still needs
words (trailing words, DIN data) is TRUNCATED. The trailing word count is
that of the layout, except DIN, whose data streams to the bus as it comes.
Headers are random, biased towards field limits, under every combination of
tlast, target selected and POWER window open.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import cocotb
import pytest
from cocotb.triggers import Timer
from nandlab.onfi_spec.nvddr_timing import DDR_MODES, DdrInterface
from nandlab.ops._generated import (
    MAX_SDR_MODE,
    OP_LAYOUTS,
    ErrorCode,
    Interface,
    Opcode,
)
from nandlab.ops.layout import Bytes, Layout, Word
from nandlab.rtlsim.sim_env import build, run

TOPLEVEL = "nandlab_seq_decode"
LAST_MODE = {
    Interface.SDR: MAX_SDR_MODE,
    Interface.NV_DDR2: len(DDR_MODES[DdrInterface.NV_DDR2]) - 1,
    Interface.NV_DDR3: len(DDR_MODES[DdrInterface.NV_DDR3]) - 1,
    Interface.TOGGLE: len(DDR_MODES[DdrInterface.TOGGLE2]) - 1,
}
"""Highest mode with a preset per interface (the spec tables); NV-DDR has none."""
MODULE = Path(__file__).stem
NUM_CE_ENV = "NANDLAB_TB_NUM_CE"

BUS_OPS = {Opcode.CMD, Opcode.ADDR, Opcode.DIN, Opcode.DIN_PAT, Opcode.DOUT,
           Opcode.DOUT_CMP, Opcode.WAIT_RDY}
"""Instructions that need a selected target."""


def fields_of(layout: Layout, arg: int) -> dict[str, int]:
    return {f.name: (arg >> f.lsb) & ((1 << f.width) - 1) for f in layout.fields}


def trailing_words(layout: Layout, args: dict[str, int]) -> int:
    """Words the sequencer collects after the header (DIN's data is streamed, not collected)."""
    n = 0
    for item in layout.trailing:
        if isinstance(item, Word):
            n += item.when is None or bool(args[item.when])
        elif isinstance(item, Bytes) and layout.code != Opcode.DIN:
            n += -(-args[item.count] // 4)
    return n


def expected(hdr: int, last: bool, ce_valid: bool, window: bool, num_ce: int) -> tuple[int, int]:
    """(error code, trailing words) of a header; the word count matters only without error."""
    op, arg = hdr >> 24, hdr & 0xFFFFFF
    layout = OP_LAYOUTS.get(op)
    if layout is None:
        return ErrorCode.BAD_OPCODE, 0
    args = fields_of(layout, arg)
    words = trailing_words(layout, args)
    bad = (
        arg & layout.reserved_mask != 0
        or any(not f.lo <= args[f.name] <= f.hi for f in layout.fields)
        or (op == Opcode.END and not last)
        or (op == Opcode.POWER and not args["start"] and not window)
        or (op == Opcode.TIMING and args["mode"] > LAST_MODE.get(args["interface"], -1))
    )
    if bad:
        return ErrorCode.BAD_ARG, words
    if (op == Opcode.CE and args["target"] >= num_ce) or (op in BUS_OPS and not ce_valid):
        return ErrorCode.NO_TARGET, words
    if last and (words or op == Opcode.DIN):
        return ErrorCode.TRUNCATED, words
    return 0, words


def random_arg(rng: random.Random, layout: Layout) -> int:
    """An arg with each field at, inside or just past a limit; reserved bits mostly clear."""
    arg = 0
    for f in layout.fields:
        top = (1 << f.width) - 1
        value = rng.choice([f.lo, f.hi, min(f.hi + 1, top), max(f.lo - 1, 0), 0, top,
                            rng.randint(0, top)])
        arg |= value << f.lsb
    if rng.random() < 0.2:
        arg |= 1 << rng.randrange(24)
    return arg


class TB:
    """Drives the header inputs of the combinational decoder (built for NUM_CE targets)."""

    def __init__(self, dut) -> None:
        self.dut = dut
        self.num_ce = int(os.environ[NUM_CE_ENV])

    async def decode(self, hdr: int, last: bool, ce_valid: bool, window: bool) -> tuple[int, int]:
        self.dut.hdr.value = hdr
        self.dut.hdr_last.value = int(last)
        self.dut.ce_valid.value = int(ce_valid)
        self.dut.window_open.value = int(window)
        await Timer(1, unit="ns")
        return int(self.dut.err.value), int(self.dut.nargs.value)

    async def check(self, hdr: int) -> None:
        for state in range(8):
            last, ce_valid, window = bool(state & 1), bool(state & 2), bool(state & 4)
            err, nargs = await self.decode(hdr, last, ce_valid, window)
            want_err, want_words = expected(hdr, last, ce_valid, window, self.num_ce)
            where = f"header {hdr:08x} last={last} ce={ce_valid} window={window}"
            assert err == want_err, f"{where}: error {err}, spec says {want_err}"
            if err == 0:
                assert nargs == want_words, f"{where}: {nargs} trailing words, spec {want_words}"


@cocotb.test()
async def test_every_opcode_against_the_spec(dut) -> None:
    tb = TB(dut)
    rng = random.Random(11)
    for layout in OP_LAYOUTS.values():
        await tb.check(layout.code << 24)
        for _ in range(60):
            await tb.check(layout.code << 24 | random_arg(rng, layout))
    for target in range(tb.num_ce + 2):
        await tb.check(Opcode.CE << 24 | target)


@cocotb.test()
async def test_unknown_opcodes(dut) -> None:
    tb = TB(dut)
    for op in range(256):
        if op not in OP_LAYOUTS:
            await tb.check(op << 24 | (op * 0x10101) & 0xFFFFFF)


GRID = {
    "quick": [("icarus", 4), ("icarus", 1)],
    "full": [(sim, num_ce) for sim in ("verilator", "icarus") for num_ce in (1, 4, 8)],
}
"""(simulator, NUM_CE)."""


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.definition.name == f"test_{TOPLEVEL}":
        full = metafunc.config.getoption("rtl_full", default=False)
        metafunc.parametrize(("sim", "num_ce"), GRID["full" if full else "quick"])


@pytest.mark.rtl
def test_nandlab_seq_decode(sim: str, num_ce: int) -> None:
    folder = build(TOPLEVEL, sim, {"NUM_CE": num_ce}, modules=[TOPLEVEL])
    run(TOPLEVEL, sim, folder, MODULE, folder / "run", {NUM_CE_ENV: str(num_ce)})
