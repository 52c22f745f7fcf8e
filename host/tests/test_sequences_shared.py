"""Fragments built from shared parts (READ STATUS, a page read after its address, a page
program's and an erase's confirm and busy) equal
the composition ONFI describes instruction by instruction, in every SDR mode, and a
caller that extends the program it got changes no later one."""

from __future__ import annotations

from nandlab.onfi_spec.opcodes import Cmd
from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.ops import DinPattern, Pattern, Program
from nandlab.sequences import core

CYCLES = b"\x00\x00\x05\x03\x00"


def test_shared_fragments_equal_their_composition() -> None:
    for mode in range(6):
        t = sdr(mode)
        for n in (1, 4352, 18432):
            for confirm in (Cmd.READ_CONFIRM, 0x3C):
                expected = (
                    Program().cmd(Cmd.READ).addr(CYCLES).cmd(confirm).delay(t.tWB)
                    .wait_rdy(12_345).delay(t.tWHR).dout(n)
                )
                assert core.page_read(t, CYCLES, n, 12_345, confirm=confirm) == expected
        assert core.read_status(t) == Program().cmd(Cmd.READ_STATUS).delay(t.tWHR).dout(1)
        for data in (b"\xa5" * 9, DinPattern(4352, Pattern.checker(1), 3)):
            din = Program().din(data) if isinstance(data, bytes) else Program([data])
            expected = (
                Program().cmd(Cmd.PROGRAM).addr(CYCLES).delay(t.tADL) + din
                + Program().cmd(Cmd.PROGRAM_CONFIRM).delay(t.tWB).wait_rdy(54_321)
            )
            assert core.page_program(t, CYCLES, data, 54_321) == expected
        erase = Program().cmd(Cmd.ERASE).addr(CYCLES[2:]).cmd(Cmd.ERASE_CONFIRM)
        assert core.erase(t, CYCLES[2:], 999) == erase.delay(t.tWB).wait_rdy(999)


def test_extending_a_returned_program_changes_no_later_one() -> None:
    t = sdr(0)
    first = core.page_read(t, CYCLES, 16, 1000)
    first.cmd(Cmd.RESET)
    status = core.read_status(t)
    status.dout(3)
    assert len(core.page_read(t, CYCLES, 16, 1000)) == len(first) - 1
    assert len(core.read_status(t)) == len(status) - 1
    program = core.page_program(t, CYCLES, b"\x01", 1000)
    program.cmd(Cmd.RESET)
    erase = core.erase(t, CYCLES[2:], 1000)
    erase.cmd(Cmd.RESET)
    assert len(core.page_program(t, CYCLES, b"\x01", 1000)) == len(program) - 1
    assert len(core.erase(t, CYCLES[2:], 1000)) == len(erase) - 1
