"""Testbench of nandlab_axis_32to64: the 32-bit result stream as the 64-bit C2H stream.

From the spec, not the RTL: the result stream is a sequence of 32-bit
little-endian words (docs/op-program.md), so a 64-bit beat carries the
earlier word in its low half and the byte stream is unchanged; every beat
but the last of a packet keeps all 8 bytes, a packet of an odd word count
ends with tkeep 0Fh; tlast marks exactly the last beat; the output obeys the
AXI-Stream handshake (nandlab.rtlsim.axis.AxisRules). Random packet lengths
with and without random stalls on both sides (the grid's back-pressure axis).
"""

from __future__ import annotations

import random
from pathlib import Path

import cocotb
import pytest
from cocotbext.axi import AxiStreamFrame
from nandlab.rtlsim.axis import BACKPRESSURE_ENV, StreamBench, backpressure_from_env
from nandlab.rtlsim.grid import Grid, run_set

TOPLEVEL = "nandlab_axis_32to64"
MODULE = Path(__file__).stem
TIMEOUT_US = 100
"""Simulated time after which a cocotb test fails (a stuck DUT must not hang the run)."""


class TB(StreamBench):
    def __init__(self, dut) -> None:
        super().__init__(dut, "s_axis", "m_axis", backpressure=backpressure_from_env())


@cocotb.test(timeout_time=TIMEOUT_US, timeout_unit="us")
async def test_words_pack_low_half_first(dut) -> None:
    tb = TB(dut)
    await tb.reset()
    rng = random.Random(5)
    packets = [rng.randbytes(4 * n) for n in [1, 2, 3, 4, 7, 1, 1, 16, 33]]
    for data in packets:
        await tb.source.send(AxiStreamFrame(data))
    frames = [await tb.sink.recv(compact=False) for _ in packets]
    assert tb.sink.empty()
    tb.rules.check()
    for data, frame in zip(packets, frames, strict=True):
        words = len(data) // 4
        beats = -(-words // 2)
        assert len(frame.tdata) == 8 * beats, (
            f"{words} words came as {len(frame.tdata)} bytes"
        )
        keep = [1] * (8 * beats) if words % 2 == 0 else [1] * (8 * beats - 4) + [0] * 4
        assert frame.tkeep == keep, f"{words} words: tkeep {frame.tkeep}"
        assert bytes(frame.tdata[: len(data)]) == data, (
            f"{words} words: bytes reordered"
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
def test_nandlab_axis_32to64(sim: str, backpressure: int) -> None:
    env = {BACKPRESSURE_ENV: str(backpressure)}
    run_set(TOPLEVEL, sim, {}, MODULE, f"bp{backpressure}", env, modules=[TOPLEVEL])
