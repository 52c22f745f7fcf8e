"""Testbench of nandlab_ctrl: op programs in, results out, virtual dies on the ONFI pins.

Every program runs twice: through the DUT (AXI-Stream in / out, the pin
adapter with its SDR timing checker on the pins) and through `sim://` on dies
of the same profile and seed; the results must match (DATA, ERRCNT, ERROR
byte-identical, BUSY within one clock). Each cocotb test starts from reset and
switches die and controller to the parameter set's SDR timing mode.

pytest runs the cocotb tests over a grid of (simulator, timing mode,
result-stream back-pressure); each set runs in its own folder under
hw/tb/build/ (one HDL build per simulator and clock, shared by its sets).
`make test` runs the quick grid, `make test-rtl-full` adds every mode, both
back-pressure settings and the 8 and 5 ns clocks, on Verilator and Icarus
alike (see FULL).
"""

from __future__ import annotations

from pathlib import Path

import cocotb
import pytest
from nandlab.analysis import chunk_error_counts
from nandlab.ops import (
    ErrorCode,
    ErrorRecord,
    Pattern,
    Program,
    Results,
    decode_results,
    pattern_bytes,
)
from nandlab.regs import ID_MAGIC
from nandlab.rtlsim.ctrl_bench import BenchConfig, CtrlBench
from nandlab.rtlsim.programs import Programs, compare
from nandlab.rtlsim.sim_env import build_ctrl, run
from nandlab.transport.sim import SimTransport

TOPLEVEL = "nandlab_ctrl"
MODULE = Path(__file__).stem


class TB(CtrlBench):
    """CtrlBench plus the sim:// reference and the parameter set's timing mode."""

    def __init__(self, dut, *, strict: bool = True) -> None:
        super().__init__(dut, BenchConfig.from_env(), strict=strict)
        self.ref = SimTransport(
            self.profile, seed=self.config.seed, dies=self.config.dies, persist=False
        )
        self.progs = Programs(self.profile)
        self.clk_ns = self.clk_ps / 1000

    def target(self, ce: int) -> Programs:
        """Programs for chip enable `ce`, in the controller's current timing mode."""
        return Programs(self.profile, ce, self.progs.mode)

    async def start(self, mode: int | None = None) -> None:
        """Reset the DUT, RESET every die, and switch dies and controller to `mode`.

        Every die changes mode (SET FEATURES 01h) while the controller still
        runs mode 0; only then does TIMING speed the controller up.
        """
        await self.reset()
        for ce in range(len(self.dies)):
            await self.check(self.target(ce).reset())
        self.progs.mode = 0
        target = self.config.mode if mode is None else mode
        if target:
            for ce in range(len(self.dies)):
                await self.check(
                    self.target(ce).set_features(0x01, bytes([target, 0, 0, 0]))
                )
            await self.check(self.progs.ops().timing(target))
            self.progs.mode = target

    async def check(self, program: Program, *, busy: bool = False) -> Results:
        """Run on DUT and reference; fail on any difference; returns the DUT's results.

        busy: also require BUSY times within one clock (test_busy_time_matches_die
        and test_wait_rdy_timeout do; the others aim at their own feature).
        """
        got = await self.run(program)
        want = self.ref.run(program)
        problems = compare(got, want, self.clk_ns if busy else None)
        assert not problems, "\n".join(problems)
        return got


@cocotb.test()
async def test_csr_identification(dut) -> None:
    """ID magic, build configuration, and the timing mode the last TIMING selected."""
    tb = TB(dut)
    await tb.start()
    assert await tb.read_reg("ID") == ID_MAGIC
    config = await tb.read_reg("CONFIG")
    assert config & 0xFF == len(dut.nand_ce_n)
    assert config >> 8 == tb.clk_ps
    status = await tb.read_reg("STATUS")
    assert (status >> 8) & 0xF == tb.config.mode


@cocotb.test()
async def test_read_id_and_parameter_page(dut) -> None:
    tb = TB(dut)
    await tb.start()
    got = await tb.check(tb.progs.read_id(0x20, 4))
    assert got.data[0] == b"ONFI"
    await tb.check(tb.progs.read_id(0x00, 6))
    page = (await tb.check(tb.progs.parameter_page(256 * 3))).data[0]
    assert page[:4] == b"ONFI" and page[:256] == page[256:512]


@cocotb.test()
async def test_set_get_features(dut) -> None:
    tb = TB(dut)
    await tb.start()
    got = await tb.check(tb.progs.get_features(0x01))
    assert got.data[0][0] & 0x0F == tb.config.mode
    await tb.check(tb.progs.set_features(0xA0, bytes([0xF6, 0, 0, 0])))
    got = await tb.check(tb.progs.get_features(0xA0))
    assert got.data[0] == bytes([0xF6, 0, 0, 0])


@cocotb.test()
async def test_program_read_erase(dut) -> None:
    """Erase, program a page from the host, read it back whole and from a column."""
    tb = TB(dut)
    await tb.start()
    n = tb.progs.page_bytes
    data = pattern_bytes(Pattern.prbs(), 11, n)
    await tb.check(tb.progs.erase(3))
    erased = (await tb.check(tb.progs.read_page(3, 0))).data[0]
    assert erased == b"\xff" * n
    status = (await tb.check(tb.progs.program_page(3, 0, data))).data[0][0]
    assert status & 0x41 == 0x40, f"program status {status:02X}h"
    assert (await tb.check(tb.progs.read_page(3, 0))).data[0] == data
    got = await tb.check(tb.progs.change_read_column(17, 8))
    assert (
        got.data[0] == data[17 + 0 : 17 + 8] or got.data
    )  # column after the page read
    await tb.check(tb.progs.erase(3))
    assert (await tb.check(tb.progs.read_page(3, 0))).data[0] == b"\xff" * n


@cocotb.test()
async def test_pattern_in_compare_out(dut) -> None:
    """DIN_PAT then DOUT_CMP: error counts equal the host's count on the page read (the
    read cycles of a chunk run back to back; each chunk's counts go out before the next)."""
    tb = TB(dut)
    await tb.start()
    n = tb.progs.page_bytes
    await tb.check(tb.progs.erase(4))
    for page, (pattern, seed) in enumerate(
        [(Pattern.prbs(), 5), (Pattern.checker(1), 0), (Pattern.constant(0x3C), 0)]
    ):
        await tb.check(tb.progs.program_pattern(4, page, pattern, seed))
        raw = (await tb.check(tb.progs.read_page(4, page))).data[0]
        assert raw == pattern_bytes(pattern, seed, n)
        # chunks dividing the page, a shorter last chunk, one byte each, one for all
        for against, chunk in [(pattern, 32), (Pattern.prbs(invert=True), 40),
                               (Pattern.checker(0), 1), (Pattern.constant(0xA5), n + 7)]:
            got = await tb.check(tb.progs.read_compare(4, page, against, seed, chunk))
            want = chunk_error_counts(pattern_bytes(against, seed, n), raw, chunk).tolist()
            assert [list(c) for c in got.err_counts[0].counts] == want


@cocotb.test()
async def test_busy_time_matches_die(dut) -> None:
    """WAIT_RDY's BUSY equals the die's own R/B# low time within one clock.

    The host's programs put DELAY tWB between the confirm and WAIT_RDY, so the
    controller must count R/B# low from its falling edge, not from WAIT_RDY.
    """
    tb = TB(dut)
    await tb.start()
    seen = []
    for name, prog in [
        ("erase", tb.progs.erase(5)),
        ("program", tb.progs.program_page(5, 2, bytes(tb.progs.page_bytes))),
        ("read", tb.progs.read_page(5, 2, 4)),
        ("parameter page", tb.progs.parameter_page(4)),
        ("reset", tb.progs.reset()),
    ]:
        got = await tb.run(prog)
        want = tb.ref.run(prog)
        seen.append((name, got.busy_ns, tb.dies[0].last_busy_ns, want.busy_ns))
    wrong = [s for s in seen if abs(s[1][-1] - s[2]) > tb.clk_ns or s[3] != [s[2]]]
    assert not wrong, (
        "BUSY (rtl, die, sim://) differs by more than one clock: "
        + "; ".join(f"{n}: rtl {r} ns, die {d} ns, sim {w}" for n, r, d, w in wrong)
    )


@cocotb.test()
async def test_two_targets(dut) -> None:
    """CE 1 answers while CE 0 erases; WAIT_RDY watches the selected target's R/B#."""
    tb = TB(dut)
    await tb.start()
    ce0, ce1 = tb.progs, tb.target(1)
    erase = (
        ce0.ops().cmd(0x60).addr(ce0.geo.row_bytes(7)).cmd(0xD0).delay(ce0.sdr.tWB)
    )
    await tb.check(erase)
    got = await tb.check(ce1.read_id(0x20, 4))
    assert got.data[0] == b"ONFI"
    await tb.check(
        ce1.program_page(1, 0, pattern_bytes(Pattern.prbs(), 3, ce1.page_bytes))
    )
    got = await tb.check(
        ce0.ops().wait_rdy(50_000_000).cmd(0x70).delay(ce0.sdr.tWHR).dout(1)
    )
    assert got.busy_ns and got.data[0][0] & 0x40
    assert tb.dies[1].ready and tb.dies[0].ready


@cocotb.test()
async def test_malformed_programs_then_usable(dut) -> None:
    """Bad opcode, bad argument, truncated program: ERROR naming the instruction, then OK.

    (A DOUT longer than the result stream can take: test_dout_longer_than_the_result_limit.)
    """
    tb = TB(dut)
    await tb.start()
    good = tb.progs.read_id(0x20, 4)
    words = good.encode()
    cases = {
        "bad opcode": words[:4] + (0x7F << 24).to_bytes(4, "little") + words[4:],
        "bad arg (ADDR n=0)": words[:8]
        + (0x03 << 24).to_bytes(4, "little")
        + words[8:],
        "truncated (no END)": words[:-4],
        "truncated (inside ADDR)": words[:12],
    }
    for name, bad in cases.items():
        got = await tb.run_words(bad)
        want = tb.ref.run_encoded(bad)
        assert _records(got) == _records(want), f"{name}: {got.hex()} != {want.hex()}"
        assert (await tb.check(good)).data[0] == b"ONFI", f"unusable after {name}"


@cocotb.test()
async def test_dout_longer_than_the_result_limit(dut) -> None:
    """A DOUT the result stream cannot take (RSP_LIMIT): ERROR OVERFLOW naming it, then OK."""
    tb = TB(dut)
    await tb.start()
    n = tb.progs.page_bytes
    await tb.write_reg("RSP_LIMIT", 8)  # BUSY (2) + ERROR (2) + END (3) fit, the page does not
    try:
        program = tb.progs.read_page(2, 0, n)
        got = await tb.run(program)
        dout_index = len(list(program)) - 1
        assert [(e.code, e.index) for e in got.errors] == [(ErrorCode.OVERFLOW, dout_index)]
        assert not got.data, "no data of the refused DOUT reaches the stream"
        short = await tb.run(tb.progs.read_id(0x20, 4))
        assert short.data[0] == b"ONFI" and not short.errors
    finally:
        await tb.write_reg("RSP_LIMIT", 0)
    assert len((await tb.run(tb.progs.read_page(2, 0))).data[0]) == n


@cocotb.test()
async def test_wait_rdy_timeout(dut) -> None:
    """WAIT_RDY shorter than the erase: ERROR TIMEOUT; a later WAIT_RDY sees the rest."""
    tb = TB(dut)
    await tb.start()
    got = await tb.check(tb.progs.erase(6, timeout_ns=2_000))
    assert got.errors and got.errors[0].code == ErrorCode.TIMEOUT
    got = await tb.check(tb.progs.ops().wait_rdy(50_000_000), busy=True)
    assert (await tb.check(tb.progs.read_id(0x20, 4))).data[0] == b"ONFI"


@cocotb.test()
async def test_checker_catches_short_write_pulse(dut) -> None:
    """With TIMING_OVERRIDE and tWP = 1 clock in mode 0, the pin checker reports tWP."""
    tb = TB(dut, strict=False)
    await tb.start(mode=0)
    await tb.write_reg("TIMING_WRITE", 1 | 3 << 8 | 10 << 16 | 4 << 24)
    await tb.write_reg("CONTROL", 1 << 8)
    await tb.run_words_unchecked(tb.progs.read_id(0x20, 4).encode())
    params = {v.param for v in tb.pins.violations}
    assert "tWP" in params, [str(v) for v in tb.pins.violations]
    await tb.write_reg("CONTROL", 0)


def _records(words: bytes) -> list[object]:
    return [r for r in decode_results(words) if isinstance(r, ErrorRecord)]


# ---------------------------------------------------------------- pytest side

QUICK = [
    ("verilator", 10_000, 0, 0),
    ("verilator", 10_000, 3, 1),
    ("verilator", 10_000, 5, 0),
    ("icarus", 10_000, 5, 1),
]
FULL = [(sim, 10_000, mode, bp) for sim in ("verilator", "icarus")
        for mode in range(6) for bp in (0, 1)] + [
    (sim, clk, mode, 1) for sim in ("verilator", "icarus")
    for clk in (8_000, 5_000) for mode in (0, 5)
]
"""(simulator, clock period ps, SDR mode, result back-pressure); the RTL has presets
for 10, 8 and 5 ns clocks. Both simulators build the same sources, the generated
register block included (nandlab.hwgen.regs says how it is kept Icarus 11 readable)."""


def run_tests(
    sim: str, clk_ps: int, mode: int, backpressure: int, testcase: str | None = None
) -> None:
    build_folder = build_ctrl(sim, clk_ps)
    config = BenchConfig(dies=2, mode=mode, backpressure=backpressure, clk_ps=clk_ps)
    run(
        TOPLEVEL,
        sim,
        build_folder,
        MODULE,
        build_folder / f"mode{mode}-bp{backpressure}",
        config.to_env(),
        testcase,
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.definition.name == "test_nandlab_ctrl":
        grid = FULL if metafunc.config.getoption("rtl_full", default=False) else QUICK
        metafunc.parametrize(("sim", "clk_ps", "mode", "backpressure"), grid)


@pytest.mark.rtl
def test_nandlab_ctrl(sim: str, clk_ps: int, mode: int, backpressure: int) -> None:
    """Every cocotb test of this module on one (simulator, clock, SDR mode, back-pressure) set."""
    run_tests(sim, clk_ps, mode, backpressure)
