"""Testbench of nandlab_fifo_packer: programs framed on a FIFO link, results back.

From the spec, not the RTL (docs/fpga.md "FIFO link framing", docs/op-program.md):
the host sends each program as a word holding its length N in words, then
the N words, every word little-endian, so the FIFO carries its bytes (8-bit
link) or whole words (32-bit link) in stream order; a frame of N = 0 is
nothing. Out of the packer come the programs whole, tlast with the last word
only, on an AXI-Stream that obeys the handshake rules. Result words go back
on the link least significant part first. Both directions run at once, with
and without random stalls on every handshake (the grid's back-pressure axis).
"""

from __future__ import annotations

import random
from pathlib import Path

import cocotb
import pytest
from cocotb.triggers import RisingEdge
from cocotbext.axi import AxiStreamFrame
from nandlab.onfi_spec.opcodes import Cmd
from nandlab.ops import Pattern, Program
from nandlab.rtlsim.axis import BACKPRESSURE_ENV, StreamBench, backpressure_from_env
from nandlab.rtlsim.grid import Grid, run_set

TOPLEVEL = "nandlab_fifo_packer"
MODULE = Path(__file__).stem
TIMEOUT_US = 100
"""Simulated time after which a cocotb test fails (a stuck DUT must not hang the run)."""


class TB(StreamBench):
    """The packer between a FIFO link model (rx / tx) and AXI-Stream models (cmd / rsp)."""

    def __init__(self, dut) -> None:
        self.stall = backpressure_from_env()
        super().__init__(dut, "s_axis_rsp", "m_axis_cmd", backpressure=self.stall)
        self.part = len(dut.rx_data) // 8
        self.rng = random.Random(3)
        dut.rx_valid.value = 0
        dut.rx_data.value = 0
        dut.tx_ready.value = 0
        self.tx_bytes = bytearray()
        cocotb.start_soon(self._take_tx())

    def _pause(self) -> bool:
        return self.stall and self.rng.random() < 0.4

    async def send_link(self, data: bytes) -> None:
        """Put `data` on the link's receive side, one FIFO word per accepted cycle."""
        for i in range(0, len(data), self.part):
            while self._pause():
                self.dut.rx_valid.value = 0
                await RisingEdge(self.clk)
            self.dut.rx_data.value = int.from_bytes(data[i : i + self.part], "little")
            self.dut.rx_valid.value = 1
            await RisingEdge(self.clk)
            while not int(self.dut.rx_ready.value):
                await RisingEdge(self.clk)
        self.dut.rx_valid.value = 0

    async def _take_tx(self) -> None:
        while True:
            self.dut.tx_ready.value = int(not self._pause())
            await RisingEdge(self.clk)
            if (
                str(self.dut.tx_ready.value) == "1"
                and str(self.dut.tx_valid.value) == "1"
            ):
                self.tx_bytes += int(self.dut.tx_data.value).to_bytes(
                    self.part, "little"
                )


def framed(words: bytes) -> bytes:
    return (len(words) // 4).to_bytes(4, "little") + words


@cocotb.test(timeout_time=TIMEOUT_US, timeout_unit="us")
async def test_frames_in_results_out(dut) -> None:
    tb = TB(dut)
    await tb.reset()
    rng = random.Random(11)
    programs = [
        Program().ce(0).cmd(Cmd.READ_ID).addr(b"\x20").delay(60).dout(4).encode(),
        Program()
        .ce(1)
        .cmd(Cmd.READ)
        .addr(bytes(5))
        .cmd(Cmd.READ_CONFIRM)
        .delay(100)
        .wait_rdy(100_000)
        .dout_compare(128, Pattern.prbs(), 7, 32)
        .encode(),
        *(rng.randbytes(4 * n) for n in (1, 2, 3, 17)),
    ]
    link = b"".join(framed(p) + framed(b"") * (i % 2) for i, p in enumerate(programs))
    results = rng.randbytes(4 * 41)
    sender = cocotb.start_soon(tb.send_link(link))
    await tb.source.send(AxiStreamFrame(results))
    frames = [await tb.sink.recv() for _ in programs]
    await sender
    for _ in range(200):
        if len(tb.tx_bytes) >= len(results):
            break
        await RisingEdge(tb.clk)
    tb.rules.check()
    for want, frame in zip(programs, frames, strict=True):
        assert bytes(frame.tdata) == want, (
            f"{len(want) // 4}-word program: {frame.tdata.hex()}"
        )
    assert tb.sink.empty(), "an empty frame made a program"
    assert bytes(tb.tx_bytes) == results
    if tb.stall:
        assert tb.rules.stalls > 0, "back-pressure never stalled the program stream"


GRID = Grid(
    f"test_{TOPLEVEL}",
    ("sim", "width", "backpressure"),
    quick=[("icarus", 8, 1), ("icarus", 32, 1)],
    full=[
        (sim, width, bp)
        for sim in ("verilator", "icarus")
        for width in (8, 32)
        for bp in (0, 1)
    ],
)
"""(simulator, FIFO_WIDTH, back-pressure)."""
pytest_generate_tests = GRID.generate


@pytest.mark.rtl
def test_nandlab_fifo_packer(sim: str, width: int, backpressure: int) -> None:
    params = {"FIFO_WIDTH": width}
    env = {BACKPRESSURE_ENV: str(backpressure)}
    run_set(TOPLEVEL, sim, params, MODULE, f"bp{backpressure}", env, modules=[TOPLEVEL])
