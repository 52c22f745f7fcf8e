"""AXI-Stream in a cocotb testbench: handshake rule checker, random stalls, a stream bench.

`AxisRules` watches one interface and records every breach of the AXI4-Stream
handshake (ARM IHI 0051A, 2.2.1): once a transmitter raises TVALID it keeps
it high, with TDATA, TKEEP and TLAST unchanged, until the cycle TREADY is
high. `StreamBench` owns what every stream-to-stream testbench needs: the
clock, a synchronous active-high reset, a cocotbext-axi source and sink, and
a rule checker on the DUT's output.
"""

from __future__ import annotations

import itertools
import os
import random
from collections.abc import Iterator
from typing import Any

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamSink, AxiStreamSource

BACKPRESSURE_ENV = "NANDLAB_TB_BACKPRESSURE"
"""1 = the testbench stalls its sinks and sources at random (the grid's back-pressure axis)."""


def backpressure_from_env() -> bool:
    return os.environ.get(BACKPRESSURE_ENV, "0") == "1"


def random_pauses(seed: int, stall: float = 0.5) -> Iterator[int]:
    """A cocotbext-axi pause generator: 1 (stall) with probability `stall` each cycle."""
    rng = random.Random(seed)
    return (int(rng.random() < stall) for _ in itertools.count())


def _level(handle: Any) -> int | None:
    try:
        return int(handle.value)
    except ValueError:  # X / Z
        return None


class AxisRules:
    """Records AXI-Stream handshake breaches on the interface `prefix`_t* of `dut`.

    Sampled at every rising clock edge outside reset (`rst` active high unless
    rst_active_low). `violations` lists them
    as text (cycle, what changed); `check()` fails with the first few.
    """

    def __init__(
        self, dut: Any, prefix: str, clk: Any, rst: Any, *, rst_active_low: bool = False
    ) -> None:
        self.name = prefix
        self.clk, self.rst = clk, rst
        self.rst_off = 1 if rst_active_low else 0
        self.valid = getattr(dut, f"{prefix}_tvalid")
        self.ready = getattr(dut, f"{prefix}_tready")
        self.payload = {
            name: getattr(dut, f"{prefix}_{name}")
            for name in ("tdata", "tkeep", "tlast")
            if hasattr(dut, f"{prefix}_{name}")
        }
        self.violations: list[str] = []
        self.transfers = 0
        self.stalls = 0
        """Cycles with TVALID high and TREADY low: proof that back-pressure was exercised."""
        cocotb.start_soon(self._watch())

    async def _watch(self) -> None:
        held: dict[str, int | None] | None = None  # payload offered but not taken
        for cycle in itertools.count():
            await RisingEdge(self.clk)
            if _level(self.rst) != self.rst_off:
                held = None
                continue
            valid, ready = _level(self.valid), _level(self.ready)
            now = {name: _level(h) for name, h in self.payload.items()}
            if held is not None:
                if valid != 1:
                    self.violations.append(f"cycle {cycle}: tvalid dropped before tready")
                changed = [n for n in now if now[n] != held[n]]
                if changed:
                    self.violations.append(
                        f"cycle {cycle}: {', '.join(changed)} changed while stalled"
                    )
            if valid == 1 and ready == 1:
                self.transfers += 1
            if valid == 1 and ready == 0:
                self.stalls += 1
                held = now
            else:
                held = None

    def check(self) -> None:
        assert not self.violations, f"{self.name}: " + "; ".join(self.violations[:5])


class StreamBench:
    """A stream-in, stream-out DUT: clock `clk`, reset `rst`, source, sink and rule checker.

    Args:
        dut: the toplevel.
        source: prefix of the DUT's input stream (the testbench drives it).
        sink: prefix of the DUT's output stream (the testbench takes it).
        clk_ns: clock period.
        backpressure: stall source and sink at random (else full speed).
        seed: seed of the random stalls.
    """

    def __init__(
        self,
        dut: Any,
        source: str,
        sink: str,
        *,
        clk_ns: float = 10,
        backpressure: bool = False,
        seed: int = 1,
    ) -> None:
        self.dut = dut
        self.clk, self.rst = dut.clk, dut.rst
        Clock(self.clk, clk_ns, unit="ns").start()
        self.source = AxiStreamSource(AxiStreamBus.from_prefix(dut, source), self.clk, self.rst)
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, sink), self.clk, self.rst)
        for model in (self.source, self.sink):
            model.log.setLevel("WARNING")
        self.rules = AxisRules(dut, sink, self.clk, self.rst)
        if backpressure:
            self.source.set_pause_generator(random_pauses(seed, 0.3))
            self.sink.set_pause_generator(random_pauses(seed + 1, 0.5))

    async def reset(self, cycles: int = 4) -> None:
        self.rst.value = 1
        await ClockCycles(self.clk, cycles)
        self.rst.value = 0
        await ClockCycles(self.clk, 2)
