"""`nandlab_core` under test: its program and result streams as cocotbext-axi models.

The core benches of hw/tb (nandlab_core, nandlab_core_timing, nandlab_core_ddr) share this
set-up: an AXI-Stream source on `s_axis_cmd`, a sink on `m_axis_rsp`, every CSR input at
its reset value (no timing override, no result limit, capture delay 0).
"""

from __future__ import annotations

from typing import Any

from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource

from nandlab.rtlsim.program_bench import ProgramBench, ReferenceType


class CoreStreamBench(ProgramBench):
    """nandlab_core with AXI-Stream models on its program and result streams."""

    def __init__(self, dut: Any, reference: ReferenceType) -> None:
        super().__init__(dut, reference)
        self.cmd = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis_cmd"), self.clk,
                                   self.rst)
        self.rsp = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis_rsp"), self.clk,
                                 self.rst)
        for model in (self.cmd, self.rsp):
            model.log.setLevel("WARNING")
        dut.csr_timing_override.value = 0
        dut.csr_timing.value = 0
        dut.csr_rsp_limit.value = 0
        dut.csr_clear_counters.value = 0
        dut.csr_dqs_delay.value = 0

    async def send_words(self, words: bytes) -> None:
        await self.cmd.send(AxiStreamFrame(words))

    async def recv_results(self) -> bytes:
        return bytes((await self.rsp.recv()).tdata)
