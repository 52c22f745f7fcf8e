"""A controller DUT between its host link and virtual dies: op programs in, results out.

`ProgramBench` owns what every bench of a whole controller (nandlab_core and
the board tops) needs, whatever link carries the programs: the clock and
reset, a virtual die per chip enable on the ONFI pins (the pin adapter with
its SDR timing checker), and `check()`, which runs a program on the DUT and
on a reference (`sim://` on dies of the same profile and seed) and compares
them. A subclass says how words cross its link (`send_words` / `recv_results`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Protocol

from cocotb.clock import Clock
from cocotb.triggers import ClockCycles

from nandlab.ops import Program, Results, decode_results
from nandlab.profiles import Profile
from nandlab.rtlsim.ctrl_bench import BenchConfig
from nandlab.rtlsim.onfi_pins import OnfiPins
from nandlab.rtlsim.programs import Programs, compare
from nandlab.vchip.die import VirtualDie


class Reference(Protocol):
    """What the DUT is compared with: `sim://` (nandlab.transport.sim.SimTransport)."""

    def run(self, program: Program) -> Results: ...


class ReferenceType(Protocol):
    """How to make the reference: `SimTransport` (profile, seed, dies, not saved)."""

    def __call__(self, profile: Profile, *, seed: int, dies: int, persist: bool) -> Reference: ...


class ProgramBench(ABC):
    """Clock, reset, dies, reference; `run` / `check` programs through the DUT's link.

    Args:
        dut: the toplevel, with the nand_* pins of nandlab_core.
        reference: makes what runs the same programs on dies of the same profile and
            seed (the testbench passes SimTransport: this package stays below the transports).
        config: parameter set (profile, seed, dies, SDR mode, back-pressure, clock);
            default: from the environment the pytest side set (BenchConfig.to_env).
        clk, rst: names of the clock and reset inputs; rst_active_low for an _n reset.
    """

    def __init__(
        self,
        dut: Any,
        reference: ReferenceType,
        *,
        config: BenchConfig | None = None,
        clk: str = "clk",
        rst: str = "rst",
        rst_active_low: bool = False,
    ) -> None:
        self.dut = dut
        self.config = config = config or BenchConfig.from_env()
        self.clk = getattr(dut, clk)
        self.rst = getattr(dut, rst)
        self.rst_on = 0 if rst_active_low else 1
        self.clk_ns = config.clk_ps / 1000
        Clock(self.clk, config.clk_ps, unit="ps").start()
        self.profile = config.load_profile()
        self.dies = [VirtualDie(self.profile, config.seed, k) for k in range(config.dies)]
        self.pins = OnfiPins(dut, self.dies, clk_ps=config.clk_ps, dq_skew_ps=config.skew_ps)
        self.ref = reference(self.profile, seed=config.seed, dies=config.dies, persist=False)
        self.progs = Programs(self.profile)

    @abstractmethod
    async def send_words(self, words: bytes) -> None:
        """Put one encoded program on the link."""

    @abstractmethod
    async def recv_results(self) -> bytes:
        """The next whole result stream from the link (up to and with its END record)."""

    async def reset(self) -> None:
        self.rst.value = self.rst_on
        self.pins.start()
        await ClockCycles(self.clk, 8)
        self.rst.value = 1 - self.rst_on
        await ClockCycles(self.clk, 8)

    async def idle(self, cycles: int = 4) -> None:
        await ClockCycles(self.clk, cycles)

    async def run(self, program: Program) -> Results:
        """Run `program` through the DUT; fail on any ONFI timing violation on the pins."""
        await self.send_words(program.encode())
        words = await self.recv_results()
        self.pins.check()
        return decode_results(words)

    async def check(self, program: Program) -> Results:
        """Run on DUT and reference; fail on any difference (BUSY within one clock)."""
        got = await self.run(program)
        problems = compare(got, self.ref.run(program), self.clk_ns)
        assert not problems, "\n".join(problems)
        return got

    async def start(self) -> None:
        """Reset, RESET the die on CE 0, switch it and the controller to the configured mode."""
        await self.reset()
        await self.check(self.progs.reset())
        if self.config.mode:
            await self.check(self.progs.set_timing_mode(self.config.mode))

    async def read_id_and_page(self) -> None:
        """READ ID 20h and 00h, the parameter page, erase / program / read back a page."""
        progs = self.progs
        assert (await self.check(progs.read_id(0x20, 4))).data[0] == b"ONFI"
        await self.check(progs.read_id(0x00, 5))
        page = (await self.check(progs.parameter_page(256))).data[0]
        assert page[:4] == b"ONFI"
        n = progs.page_bytes
        data = bytes((7 * i + 3) & 0xFF for i in range(n))
        await self.check(progs.erase(1))
        status = (await self.check(progs.program_page(1, 2, data))).data[0][0]
        assert status & 0x41 == 0x40, f"program status {status:02X}h"
        assert (await self.check(progs.read_page(1, 2))).data[0] == data
