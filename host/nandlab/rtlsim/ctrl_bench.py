"""The nandlab_ctrl bench inside a simulation: clock, reset, AXI models, dies on the pins.

Used by the nandlab_ctrl testbench, by `rtl://` (its program server) and by
bench/rtl_throughput.py. Settings come from the environment the pytest side
passes to the simulator (`BenchConfig.to_env()` / `from_env()`), so the same
module serves every parameter set.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import asdict, dataclass, fields

from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.axi import (
    AxiLiteBus,
    AxiLiteMaster,
    AxiStreamBus,
    AxiStreamFrame,
    AxiStreamSink,
    AxiStreamSource,
)

from nandlab.ops import Program, Results, decode_results
from nandlab.profiles import Profile, load_profile
from nandlab.regs import REG
from nandlab.rtlsim.onfi_pins import OnfiPins
from nandlab.rtlsim.sim_env import TB_PROFILE
from nandlab.vchip.die import VirtualDie

ENV_PREFIX = "NANDLAB_TB_"


@dataclass(frozen=True)
class BenchConfig:
    """One parameter set of a simulation run.

    profile: profile name or YAML path of the virtual dies.
    seed: physics seed of the dies (die k is chip k).
    dies: dies on chip enables 0..dies-1 (<= NUM_CE).
    mode: timing mode the tests switch to (of `interface`).
    backpressure: 1 = the result stream sink stalls (tready low 2 cycles of 3).
    clk_ps: core clock period in ps (the DUT's CLK_PERIOD_PS).
    interface: nandlab.ops.Interface of `mode` (0 SDR).
    skew_ps: DQ delay behind the die's DQS edge on DDR data out (an injected skew).
    """

    profile: str = str(TB_PROFILE)
    seed: int = 0
    dies: int = 1
    mode: int = 0
    backpressure: int = 0
    clk_ps: int = 10_000
    interface: int = 0
    skew_ps: int = 0

    def to_env(self) -> dict[str, str]:
        return {ENV_PREFIX + k.upper(): str(v) for k, v in asdict(self).items()}

    @classmethod
    def from_env(cls) -> BenchConfig:
        values: dict[str, object] = {}
        for f in fields(cls):
            raw = os.environ.get(ENV_PREFIX + f.name.upper())
            if raw is not None:
                values[f.name] = raw if f.name == "profile" else int(raw)
        return cls(**values)  # type: ignore[arg-type]

    def load_profile(self) -> Profile:
        return load_profile(self.profile)


class CtrlBench:
    """nandlab_ctrl with its clock, reset, AXI-Stream / AXI-Lite models and virtual dies."""

    def __init__(
        self, dut, config: BenchConfig | None = None, *, strict: bool = True
    ) -> None:
        self.dut = dut
        self.config = config or BenchConfig.from_env()
        self.profile = self.config.load_profile()
        self.log = dut._log
        self.clk_ps = self.config.clk_ps
        Clock(dut.clk, self.clk_ps, unit="ps").start()
        self.cmd = AxiStreamSource(
            AxiStreamBus.from_prefix(dut, "s_axis_cmd"), dut.clk, dut.rst
        )
        self.rsp = AxiStreamSink(
            AxiStreamBus.from_prefix(dut, "m_axis_rsp"), dut.clk, dut.rst
        )
        self.csr = AxiLiteMaster(
            AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst
        )
        for model in (self.cmd, self.rsp, self.csr.write_if, self.csr.read_if):
            model.log.setLevel("WARNING")
        self.dies = [
            VirtualDie(self.profile, self.config.seed, k)
            for k in range(self.config.dies)
        ]
        self.pins = OnfiPins(dut, self.dies, strict=strict, clk_ps=self.clk_ps,
                             dq_skew_ps=self.config.skew_ps)
        self.set_backpressure(bool(self.config.backpressure))

    def set_backpressure(self, on: bool) -> None:
        """Stall the result stream (tready low 2 cycles of 3) or accept every cycle."""
        if on:
            self.rsp.set_pause_generator(itertools.cycle([1, 1, 0]))
        else:
            self.rsp.clear_pause_generator()

    async def reset(self) -> None:
        self.dut.rst.value = 1
        self.pins.start()
        await ClockCycles(self.dut.clk, 8)
        self.dut.rst.value = 0
        await ClockCycles(self.dut.clk, 8)

    def now_ns(self) -> int:
        return self.pins.now_ps() // 1000

    # ------------------------------------------------------------ CSRs

    async def read_reg(self, name: str) -> int:
        return await self.csr.read_dword(REG[name].offset)

    async def write_reg(self, name: str, value: int) -> None:
        await self.csr.write_dword(REG[name].offset, value)

    # ------------------------------------------------------------ programs

    async def run_words_unchecked(self, words: bytes) -> bytes:
        """Send one encoded program (tlast on its last word); the result stream up to tlast."""
        await self.cmd.send(AxiStreamFrame(words))
        frame = await self.rsp.recv()
        return bytes(frame.tdata)

    async def run_words(self, words: bytes) -> bytes:
        """As run_words_unchecked, then fail on any ONFI timing violation seen on the pins."""
        result = await self.run_words_unchecked(words)
        self.pins.check()
        return result

    async def run(self, program: Program) -> Results:
        """Run `program` through the DUT and decode its result stream."""
        return decode_results(await self.run_words(program.encode()))

    async def idle(self, cycles: int = 4) -> None:
        for _ in range(cycles):
            await RisingEdge(self.dut.clk)
