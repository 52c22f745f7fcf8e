"""Testbench of nandlab_pattern_gen: its byte stream equals nandlab.ops.pattern_bytes.

Every pattern kind, inverted or not, PRBS from the default and from given
seeds, with `next` asserted every cycle or in random bursts (the generator
must hold its byte while `next` is low); illegal pattern words drop `cfg_ok`.
"""

from __future__ import annotations

import random
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge
from nandlab.ops import Pattern, pattern_bytes
from nandlab.rtlsim.sim_env import build, run

TOPLEVEL = "nandlab_pattern_gen"
MODULE = Path(__file__).stem
CASES = [
    (Pattern.constant(0x00), 0),
    (Pattern.constant(0xA7, invert=True), 0),
    (Pattern.checker(0), 0),
    (Pattern.checker(1, invert=True), 0),
    (Pattern.prbs(), 0),
    (Pattern.prbs(), 1),
    (Pattern.prbs(invert=True), 0xDEADBEEF),
]


class TB:
    def __init__(self, dut) -> None:
        self.dut = dut
        cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
        dut.load.value = 0
        dut.next.value = 0
        dut.pattern.value = 0
        dut.seed.value = 0

    async def reset(self) -> None:
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 3)
        self.dut.rst.value = 0

    async def stream(self, pattern: Pattern, seed: int, n: int, stall: float) -> bytes:
        dut, rng = self.dut, random.Random(n)
        dut.pattern.value, dut.seed.value, dut.load.value = pattern.word, seed, 1
        await RisingEdge(dut.clk)
        dut.load.value = 0
        out = bytearray()
        while len(out) < n:
            step = rng.random() >= stall
            dut.next.value = int(step)
            await ReadOnly()
            byte = int(dut.pat_byte.value)
            await RisingEdge(dut.clk)
            if step:
                out.append(byte)
        dut.next.value = 0
        return bytes(out)


@cocotb.test()
async def test_streams_match_host(dut) -> None:
    tb = TB(dut)
    await tb.reset()
    for stall in (0.0, 0.5):
        for pattern, seed in CASES:
            got = await tb.stream(pattern, seed, 37, stall)
            assert got == pattern_bytes(pattern, seed, 37), (
                pattern,
                seed,
                stall,
                got.hex(),
            )


@cocotb.test()
async def test_cfg_ok(dut) -> None:
    tb = TB(dut)
    await tb.reset()
    legal = [p.word for p, _ in CASES]
    illegal = [0x03, 0x1 << 9, 0x0002_0001, 0x0001_0002, 0x0100_0000]
    for word, ok in [(w, 1) for w in legal] + [(w, 0) for w in illegal]:
        dut.pattern.value = word
        await ReadOnly()
        assert int(dut.cfg_ok.value) == ok, f"pattern word {word:08X}"
        await RisingEdge(dut.clk)


@pytest.mark.rtl
@pytest.mark.parametrize("sim", ["verilator", "icarus"])
def test_nandlab_pattern_gen(sim: str) -> None:
    folder = build(TOPLEVEL, sim, modules=[TOPLEVEL])
    run(TOPLEVEL, sim, folder, MODULE, folder / "run")
