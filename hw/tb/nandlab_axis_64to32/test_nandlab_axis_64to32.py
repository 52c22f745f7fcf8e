"""Testbench of nandlab_axis_64to32: the 64-bit H2C stream as the 32-bit program stream.

From the spec, not the RTL: a program is a sequence of 32-bit little-endian
words (docs/op-program.md), so the low half of each 64-bit beat is the
earlier word and the byte stream passes unchanged; a last beat with tkeep
0Fh carries one word; tlast goes with the program's last word only; the
output obeys the AXI-Stream handshake (nandlab.rtlsim.axis.AxisRules).
Encoded op programs and random word packets, with and without random stalls
on both sides (the grid's back-pressure axis).
"""

from __future__ import annotations

import random
from pathlib import Path

import cocotb
import pytest
from cocotbext.axi import AxiStreamFrame
from nandlab.onfi_spec.opcodes import Cmd
from nandlab.ops import Program
from nandlab.rtlsim.axis import BACKPRESSURE_ENV, StreamBench, backpressure_from_env
from nandlab.rtlsim.grid import Grid, run_set

TOPLEVEL = "nandlab_axis_64to32"
MODULE = Path(__file__).stem
TIMEOUT_US = 100
"""Simulated time after which a cocotb test fails (a stuck DUT must not hang the run)."""


class TB(StreamBench):
    def __init__(self, dut) -> None:
        super().__init__(dut, "s_axis", "m_axis", backpressure=backpressure_from_env())


def read_id_program() -> Program:
    return Program().ce(0).cmd(Cmd.READ_ID).addr(b"\x20").delay(60).dout(4)


@cocotb.test(timeout_time=TIMEOUT_US, timeout_unit="us")
async def test_beats_split_low_word_first(dut) -> None:
    tb = TB(dut)
    await tb.reset()
    rng = random.Random(9)
    packets = [read_id_program().encode()]
    packets += [rng.randbytes(4 * n) for n in [1, 2, 3, 1, 1, 4, 9, 32, 5]]
    for data in packets:
        await tb.source.send(AxiStreamFrame(data))
    frames = [await tb.sink.recv() for _ in packets]
    assert tb.sink.empty()
    tb.rules.check()
    for data, frame in zip(packets, frames, strict=True):
        assert bytes(frame.tdata) == data, (
            f"{len(data) // 4} words: {frame.tdata.hex()}"
        )
    if backpressure_from_env():
        assert tb.rules.stalls > 0, "back-pressure never stalled the output"


GRID = Grid(
    f"test_{TOPLEVEL}",
    ("sim", "backpressure"),
    quick=[("icarus", 1), ("icarus", 0)],
    full=[(sim, bp) for sim in ("verilator", "icarus") for bp in (0, 1)],
)
"""(simulator, back-pressure)."""
pytest_generate_tests = GRID.generate


@pytest.mark.rtl
def test_nandlab_axis_64to32(sim: str, backpressure: int) -> None:
    env = {BACKPRESSURE_ENV: str(backpressure)}
    run_set(TOPLEVEL, sim, {}, MODULE, f"bp{backpressure}", env, modules=[TOPLEVEL])
