"""Fragments built from shared parts (READ STATUS, a page read after its address) equal
the composition ONFI describes instruction by instruction, in every SDR mode, and a
caller that extends the program it got changes no later one."""

from __future__ import annotations

from nandlab.onfi_spec.opcodes import Cmd
from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.ops import Program
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


def test_extending_a_returned_program_changes_no_later_one() -> None:
    t = sdr(0)
    first = core.page_read(t, CYCLES, 16, 1000)
    first.cmd(Cmd.RESET)
    status = core.read_status(t)
    status.dout(3)
    assert len(core.page_read(t, CYCLES, 16, 1000)) == len(first) - 1
    assert len(core.read_status(t)) == len(status) - 1
