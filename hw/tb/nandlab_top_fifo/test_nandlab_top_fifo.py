"""Testbench of nandlab_top_fifo: the FTDI top behind a 245-style synchronous FIFO.

A model of the FIFO chip's FPGA side (`SyncFifo`) carries the host's
programs, framed as docs/fpga.md says (a word holding the program's length
N in words, then the N little-endian words), and collects the result words
the top writes back; a virtual die sits on the ONFI pins
(nandlab.rtlsim.program_bench). Every program also runs on `sim://` and the
results must match, with the pin adapter's ONFI timing checker on every
edge. The bus rules of a synchronous 245 FIFO hold on every clock: the FPGA
never drives the data bus while OE# is low, reads only with OE# low, and
writes only with its data driven. With back-pressure the FIFO has nothing
to give and no room to take at random cycles. 8-bit (FT2232H / FT232H) and
32-bit (FT601) links.
"""

from __future__ import annotations

import random
from pathlib import Path

import cocotb
import pytest
from cocotb.triggers import RisingEdge
from nandlab.errors import OpProgramError
from nandlab.ops import decode_results
from nandlab.rtlsim.ctrl_bench import BenchConfig
from nandlab.rtlsim.grid import Grid, run_set
from nandlab.rtlsim.program_bench import ProgramBench
from nandlab.transport.sim import SimTransport

TOPLEVEL = "nandlab_top_fifo"
MODULE = Path(__file__).stem
TIMEOUT_US = 5000
"""Simulated time after which a cocotb test fails (a stuck DUT must not hang the run)."""


class SyncFifo:
    """The FIFO chip as the FPGA sees it: RXF# / TXE# flags, data bus, RD# / WR# / OE#.

    A word is read on a clock edge with RD# and RXF# low (OE# must be low too);
    a word is written on an edge with WR# and TXE# low. `rx` holds the bytes
    the host sent, `tx` the bytes the FPGA wrote; `violations` the bus rules broken.
    """

    def __init__(self, dut, stall: bool, seed: int = 4) -> None:
        self.dut = dut
        self.part = len(dut.ft_data_i) // 8
        self.rx = bytearray()
        self.tx = bytearray()
        self.violations: list[str] = []
        self.stall = stall
        self.rng = random.Random(seed)
        dut.ft_rxf_n.value = 1
        dut.ft_txe_n.value = 1
        dut.ft_data_i.value = 0
        cocotb.start_soon(self._run())

    def _pause(self) -> bool:
        return self.stall and self.rng.random() < 0.4

    async def _run(self) -> None:
        dut = self.dut
        rxf_n = txe_n = 1
        while True:
            await RisingEdge(dut.clk)
            if str(dut.rst.value) != "0":
                continue
            oe_n, rd_n, wr_n = (
                int(dut.ft_oe_n.value),
                int(dut.ft_rd_n.value),
                int(dut.ft_wr_n.value),
            )
            driving = int(dut.ft_data_oe.value)
            if driving and not oe_n:
                self.violations.append("FPGA and FIFO drive the data bus at once")
            if not rd_n and not rxf_n:
                if oe_n:
                    self.violations.append("read with OE# high")
                del self.rx[: self.part]
            if not wr_n and not txe_n:
                if not driving:
                    self.violations.append("write without driving the data bus")
                self.tx += int(dut.ft_data_o.value).to_bytes(self.part, "little")
            rxf_n = int(len(self.rx) < self.part or self._pause())
            txe_n = int(self._pause())
            dut.ft_rxf_n.value = rxf_n
            dut.ft_txe_n.value = txe_n
            dut.ft_data_i.value = (
                int.from_bytes(self.rx[: self.part], "little") if not oe_n else 0
            )

    def check(self) -> None:
        assert not self.violations, "; ".join(self.violations[:5])


class TB(ProgramBench):
    def __init__(self, dut) -> None:
        super().__init__(dut, SimTransport)
        self.fifo = SyncFifo(dut, bool(self.config.backpressure))

    async def send_words(self, words: bytes) -> None:
        self.fifo.rx += (len(words) // 4).to_bytes(4, "little") + words

    async def recv_results(self) -> bytes:
        """Bytes off the link until they form a whole result stream (END closes it)."""
        seen = 0
        while True:
            await RisingEdge(self.clk)
            tx = self.fifo.tx
            if len(tx) == seen or len(tx) % 4:
                continue
            seen = len(tx)
            words = bytes(tx)
            try:
                decode_results(words)
            except OpProgramError:
                continue
            del tx[:]
            return words


@cocotb.test(timeout_time=TIMEOUT_US, timeout_unit="us")
async def test_programs_over_the_fifo_link(dut) -> None:
    tb = TB(dut)
    await tb.start()
    await tb.read_id_and_page()
    tb.fifo.check()
    assert not tb.fifo.rx, "program bytes left unread"


GRID = Grid(
    f"test_{TOPLEVEL}",
    ("sim", "width", "mode", "backpressure"),
    quick=[("verilator", 32, 5, 1), ("icarus", 8, 0, 1)],
    full=[
        (sim, width, mode, bp)
        for sim in ("verilator", "icarus")
        for width in (8, 32)
        for mode in (0, 5)
        for bp in (0, 1)
    ],
)
"""(simulator, FIFO_WIDTH, SDR mode, FIFO stalls); 100 MHz, the FT601's clock (the only
FIFO clock with timing presets)."""
pytest_generate_tests = GRID.generate


@pytest.mark.rtl
def test_nandlab_top_fifo(sim: str, width: int, mode: int, backpressure: int) -> None:
    config = BenchConfig(mode=mode, backpressure=backpressure)
    params = {"FIFO_WIDTH": width, "NUM_CE": 2}
    run_set(
        TOPLEVEL, sim, params, MODULE, f"mode{mode}-bp{backpressure}", config.to_env()
    )
