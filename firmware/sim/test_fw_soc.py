"""Firmware in the loop: build/nandlab.elf on PicoRV32 beside nandlab_core, a
virtual die on the ONFI pins (nandlab_fw_soc.sv).

The testbench is the host: nandlab.firmware.Mailbox, unchanged, posts commands
through the harness's host port (from a cocotb bridge thread). The CPU runs the
cross-built firmware, which drives the real sequencer, PHY, pattern generator
and comparator; the die answers on the pins under the ONFI timing checker.
Proofs: the firmware boots and answers, refuses a bad command and an
unpermitted erase, and on-board P/E cycling gives the rows host-driven
cycling gives on `sim://` with a die of the same profile and seed.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

import cocotb
import pytest
from cocotb.handle import Force, Release
from cocotb.simtime import get_sim_time
from cocotb.task import bridge, resume
from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge
from nandlab.firmware import (
    FirmwareError,
    FirmwareRefused,
    LoopDescriptor,
    LoopKind,
    Mailbox,
    Permit,
)
from nandlab.ops import ErrorCode, Pattern, decode_results
from nandlab.rtlsim import fw_harness
from nandlab.rtlsim.ctrl_bench import BenchConfig
from nandlab.rtlsim.fw_harness import CLK_PS, HostPort
from nandlab.rtlsim.programs import TIMEOUT_NS, Programs
from nandlab.transport.sim import SimTransport
from nandlab.vchip.die import VirtualDie

MODULE = Path(__file__).stem
SEED, BLOCK, PAGES = 3, 1, 2


async def boot(dut: Any) -> tuple[HostPort, Programs, VirtualDie]:
    """The harness booted with a test-profile die of SEED; its host port and programs."""
    profile = BenchConfig().load_profile()
    die = await fw_harness.boot(dut, profile, SEED)
    return HostPort(dut), Programs(profile), die


def _words_to_bytes(words: list[int]) -> bytes:
    return b"".join(w.to_bytes(4, "little") for w in words)


@cocotb.test(timeout_time=20, timeout_unit="ms")
async def test_boots_answers_and_refuses(dut: Any) -> None:
    port, progs, _ = await boot(dut)

    @bridge
    def host() -> None:
        mb = Mailbox(port, port, port.wait)
        protocol, _, _ = mb.version() or (0, 0, 0)
        assert protocol == 1
        with pytest.raises(FirmwareError, match="BAD_CMD"):
            mb.command(0x42)
        got = decode_results(_words_to_bytes(mb.run_program(progs.reset().encode())))
        assert not got.errors
        got = decode_results(_words_to_bytes(mb.run_program(progs.read_id(0x20, 4).encode())))
        assert got.data == [b"ONFI"]
        programs_before = int(dut.cnt_programs.value)
        with pytest.raises(FirmwareRefused):
            mb.run_program(progs.erase(BLOCK).encode())
        assert int(dut.cnt_programs.value) == programs_before  # never reached the core
        # R/B# held low on the pin: the sequencer's WAIT_RDY times out, the firmware
        # reports CHIP_TIMEOUT (after its RESET of the chip) and keeps serving
        mb.session(Permit.ERASE)
        stuck(True)
        with pytest.raises(FirmwareError, match="CHIP_TIMEOUT") as info:
            mb.run_program(progs.erase(BLOCK, timeout_ns=20_000).encode())
        assert info.value.detail == ErrorCode.TIMEOUT
        assert int(dut.cnt_programs.value) == programs_before + 2  # the erase, then RESET
        stuck(False)
        got = decode_results(_words_to_bytes(mb.run_program(progs.read_id(0x20, 4).encode())))
        assert got.data == [b"ONFI"]

    @resume
    async def stuck(low: bool) -> None:
        dut.nand_rb_n.value = Force(0) if low else Release()
        await ClockCycles(dut.clk, 2)

    await host()
    assert int(dut.trap.value) == 0


def _host_cycles(ref: SimTransport, progs: Programs, pattern: Pattern, seed: int, chunk: int,
                 cycles: int) -> list[dict[str, int]]:
    """The P/E rows of host-driven cycling: nandlab.rtlsim.programs (nandlab.sequences.core)."""
    rows = []
    for c in range(cycles):
        erase = ref.run(progs.erase(BLOCK))
        fails, prog_ns = erase.data[0][0] & 1, 0
        for p in range(PAGES):
            res = ref.run(progs.program_pattern(BLOCK, p, pattern, seed))
            prog_ns += sum(res.busy_ns)
            fails += res.data[0][0] & 1
        e01, e10 = _read_errors(ref, progs, pattern, seed, chunk)
        rows.append({"cycle": c, "erase_ns": sum(erase.busy_ns), "program_ns": prog_ns,
                     "status_fails": fails, "err_0to1": e01, "err_1to0": e10})
    return rows


def _read_errors(ref: SimTransport, progs: Programs, pattern: Pattern, seed: int,
                 chunk: int) -> tuple[int, int]:
    e01 = e10 = 0
    for p in range(PAGES):
        res = ref.run(progs.read_compare(BLOCK, p, pattern, seed, chunk))
        e01 += sum(a for e in res.err_counts for a, _ in e.counts)
        e10 += sum(b for e in res.err_counts for _, b in e.counts)
    return e01, e10


def _same_rows(got: list[dict[str, int]], want: list[dict[str, int]], exact: tuple[str, ...],
               busy: dict[str, int]) -> None:
    assert len(got) == len(want), (got, want)
    for g, w in zip(got, want, strict=True):
        for key in exact:
            assert g[key] == w[key], (key, g, w)
        # the RTL counts busy time in whole clocks and sees R/B# through two flops
        for key, waits in busy.items():
            assert abs(g[key] - w[key]) <= 3 * waits * CLK_PS // 1000, (key, g, w)


@cocotb.test(timeout_time=80, timeout_unit="ms")
async def test_on_board_loops_match_host_driven(dut: Any) -> None:
    """P/E cycling and a read-offset sweep on board give the rows host-driven loops
    give on sim:// (same profile and seed), and leave the die in the same state."""
    port, progs, die = await boot(dut)
    pattern, seed, chunk, cycles = Pattern.prbs(), 9, 32, 2
    ref_offset = progs.profile.read_offsets.slc_reference
    offsets = [0, 40, 80, 120]  # DAC codes: the default read level up into the programmed state
    row = int.from_bytes(progs.geo.row_bytes(BLOCK), "little")
    loop = functools.partial(LoopDescriptor, row=row, pages=PAGES, page_bytes=progs.page_bytes,
                             pattern=pattern, seed=seed, chunk=chunk, timeout_ns=TIMEOUT_NS)
    pe = loop(kind=LoopKind.PE_CYCLE, count=cycles)
    sweep = loop(kind=LoopKind.READ_SWEEP, count=len(offsets), feature=ref_offset.feature,
                 first=offsets[0], step=offsets[1] - offsets[0])
    assert ref_offset.param == 0  # the offset is P1 of its feature, as the sweep sets it

    spans: dict[str, int] = {}

    @resume
    async def now_ns() -> int:
        return int(get_sim_time("ns"))

    @resume
    async def profile(on: bool) -> None:
        await FallingEdge(dut.clk)
        dut.prof_en.value = int(on)
        await RisingEdge(dut.clk)

    @bridge
    def host() -> tuple[list[dict[str, int]], list[dict[str, int]], bytes]:
        mb = Mailbox(port, port, port.wait)
        mb.run_program(progs.reset().encode())
        mb.session(Permit.ERASE | Permit.PROGRAM)
        t0, commands = now_ns(), port.commands
        profile(True)
        pe_rows = mb.run_loop(pe)
        profile(False)
        spans["pe_ns"], spans["commands"] = now_ns() - t0, port.commands - commands
        sweep_rows = mb.run_loop(sweep)
        page = decode_results(_words_to_bytes(mb.run_program(progs.read_page(BLOCK, 0).encode())))
        return pe_rows, sweep_rows, page.data[0]

    pe_rows, sweep_rows, page = await host()
    ref = SimTransport(progs.profile, seed=SEED, dies=1, persist=False)
    ref.run(progs.reset())
    _same_rows(pe_rows, _host_cycles(ref, progs, pattern, seed, chunk, cycles),
               ("cycle", "status_fails", "err_0to1", "err_1to0"),
               {"erase_ns": 1, "program_ns": PAGES})
    want = []
    for offset in offsets:
        ref.run(progs.set_features(ref_offset.feature, bytes([offset & 0xFF, 0, 0, 0])))
        e01, e10 = _read_errors(ref, progs, pattern, seed, chunk)
        want.append({"offset": offset, "err_0to1": e01, "err_1to0": e10})
    ref.run(progs.set_features(ref_offset.feature, bytes(4)))
    _same_rows(sweep_rows, want, ("offset", "err_0to1", "err_1to0"), {})
    errors = [r["err_0to1"] + r["err_1to0"] for r in sweep_rows]
    assert errors[0] < errors[-1], f"the sweep should cross the programmed state: {errors}"
    # the die's state: wear and the page as read back
    assert die.array.pec(BLOCK) == ref.dies[0].array.pec(BLOCK) == cycles
    assert page == ref.run(progs.read_page(BLOCK, 0)).data[0]
    cocotb.log.info("on-board P/E rows: %s", pe_rows)
    # Not asserted: the P/E loop's time against the die's busy time and the bus
    # transfers of its programs (bench/firmware_overhead.py prints these lines).
    busy = sum(r["erase_ns"] + r["program_ns"] for r in pe_rows)
    busy += cycles * PAGES * sum(ref.run(progs.read_compare(BLOCK, 0, pattern, seed, chunk)).busy_ns)
    cocotb.log.info("fw_pe_loop_ns: %d", spans["pe_ns"])
    cocotb.log.info("fw_pe_starved_ns: %d", int(dut.starved_clocks.value) * CLK_PS // 1000)
    cocotb.log.info("fw_pe_lead_ns: %d", int(dut.lead_clocks.value) * CLK_PS // 1000)
    cocotb.log.info("fw_pe_busy_ns: %d", busy)
    cocotb.log.info("fw_pe_cycles: %d", cycles)
    cocotb.log.info("fw_pe_host_commands: %d", spans["commands"])
    cocotb.log.info("on-board sweep rows: %s", sweep_rows)


@pytest.mark.parametrize("sim", ["icarus", "verilator"])
def test_nandlab_fw_soc(tmp_path: Path, sim: str) -> None:
    """Cross-build the firmware, build the harness, run the cocotb tests above.
    Verilator runs them about 3x faster than Icarus (the pin model in Python bounds
    it). With NANDLAB_FW_PROFILE=<file> set, the P/E loop's clocks per instruction
    address go to that file (bench/firmware_overhead.py)."""
    prof = os.environ.get("NANDLAB_FW_PROFILE")
    total, failed, log = fw_harness.run_tests(MODULE, tmp_path, sim,
                                              (f"+profile={prof}",) if prof else ())
    assert total == 2 and failed == 0, log.read_text()[-4000:]
