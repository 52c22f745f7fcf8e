"""VirtualDie array operations: read, program, erase, cache, multi-plane, copyback, SLC."""

from __future__ import annotations

import numpy as np
import pytest
from test_vchip_die import MS, OK, Host, bit_errors

from nandlab.onfi_spec.opcodes import Cmd, Status
from nandlab.profiles import load_profile
from nandlab.vchip.die import VirtualDie


@pytest.fixture(scope="module")
def mlc():
    return load_profile("mlc-64l")


@pytest.fixture(scope="module")
def tlc():
    return load_profile("tlc-48l")


@pytest.fixture
def host(mlc) -> Host:
    return Host(VirtualDie(mlc, seed=3))


def good_block(host: Host, plane: int, start: int = 2) -> int:
    g = host.g
    b = start + (plane - start) % g.planes
    while host.die.array.is_factory_bad(b):
        b += g.planes
    return b


@pytest.mark.parametrize("profile_name", ["mlc-64l", "tlc-48l"])
def test_program_read_round_trip_every_page_type(profile_name):
    h = Host(VirtualDie(load_profile(profile_name), seed=5))
    bits = h.g.bits_per_cell
    blk = good_block(h, 0)
    pages = {p: h.random_page(100 + p) for p in range(bits)}  # one WL, every page type
    for p, data in pages.items():
        assert h.program_page(blk, p, data) == OK
    for p, data in pages.items():
        assert bit_errors(h.read_page(blk, p), data) <= h.nbytes * 8 * 1e-4


def test_slc_mode_round_trip_and_exit(host, mlc):
    die = host.die
    blk = good_block(host, 0)
    data = host.random_page(7)
    die.cmd(mlc.vendor.slc_mode.enter_cmd)
    assert host.program_page(blk, 1, data) == OK  # SLC page = WL 1
    busy = None
    die.cmd(Cmd.READ)
    host.address(blk, 1)
    die.cmd(Cmd.READ_CONFIRM)
    busy = die.wait_ready(MS)
    assert busy == (mlc.timing.t_read_base_us + mlc.timing.t_sense_us) * 1000
    assert bit_errors(die.read(host.nbytes), data) == 0
    assert die.array.block_is_slc(blk) is True
    die.cmd(mlc.vendor.slc_mode.exit_cmd)
    assert not die.slc_mode
    # native program into the SLC block is refused by the array
    assert host.program_page(blk, 8, data) & Status.FAIL


def test_erase_then_read_all_ff(host):
    blk = good_block(host, 1)
    host.program_page(blk, 0, host.random_page(1))
    assert host.read_page(blk, 0) != b"\xff" * host.nbytes
    assert host.erase(blk) == OK
    busy = host.die.last_busy_ns
    assert 2_000_000 <= busy <= 5_000_000  # tBERS: 300 us + 3 fresh pulses of 700 us
    assert host.read_page(blk, 0) == b"\xff" * host.nbytes
    assert host.read_page(blk, 1) == b"\xff" * host.nbytes


def test_busy_times_lsb_msb(host):
    blk = good_block(host, 0)
    host.read_page(blk, 0)
    assert host.die.last_busy_ns == 40_000
    host.read_page(blk, 1)
    assert host.die.last_busy_ns == 70_000
    host.program_page(blk, 0, host.random_page(3))
    assert 200_000 <= host.die.last_busy_ns <= 700_000


def test_read_offset_moves_l2_to_one(host, mlc):
    """Cells in L2 (LSB 0, MSB 0) read 1 on the LSB page once VREF1 sits above L2."""
    blk = good_block(host, 0)
    zeros = b"\x00" * host.nbytes
    host.program_page(blk, 0, zeros)
    host.program_page(blk, 1, zeros)
    assert host.read_page(blk, 0).count(0) > host.nbytes * 0.99
    vref1 = mlc.read_offsets.references[1]
    assert vref1.feature == 0xA1
    host.set_feature(vref1.feature, bytes([127, 0, 0, 0]))  # the DAC's top: VREF1 above L2
    assert host.read_page(blk, 0).count(0xFF) > host.nbytes * 0.99
    host.set_feature(vref1.feature, bytes([0, 0, 0, 0]))
    assert host.read_page(blk, 0).count(0) > host.nbytes * 0.99


def test_program_only_adds_charge(host, mlc):
    blk = good_block(host, 0)
    a, b = host.random_page(11), host.random_page(12)
    host.die.cmd(mlc.vendor.slc_mode.enter_cmd)
    host.program_page(blk, 0, a)
    host.program_page(blk, 0, b)
    expected = bytes(x & y for x, y in zip(a, b, strict=True))
    assert bit_errors(host.read_page(blk, 0), expected) == 0


def test_partial_page_load_and_change_write_column(host, mlc):
    die = host.die
    blk = good_block(host, 0)
    die.cmd(mlc.vendor.slc_mode.enter_cmd)
    die.cmd(Cmd.PROGRAM)
    host.address(blk, 0, col=100)
    die.write(b"\x00\x0f")
    die.cmd(Cmd.CHANGE_WRITE_COLUMN)
    for b in (4000).to_bytes(2, "little"):
        die.addr(b)
    die.write(b"\xa5")
    die.cmd(Cmd.PROGRAM_CONFIRM)
    die.wait_ready(MS)
    data = host.read_page(blk, 0)
    expected = bytearray(b"\xff" * host.nbytes)
    expected[100:102] = b"\x00\x0f"
    expected[4000] = 0xA5
    assert data == bytes(expected)
    # CHANGE READ COLUMN
    die.cmd(Cmd.CHANGE_READ_COLUMN)
    for b in (4000).to_bytes(2, "little"):
        die.addr(b)
    die.cmd(Cmd.CHANGE_READ_COLUMN_CONFIRM)
    assert die.read(2) == b"\xa5\xff"


def test_write_protect_blocks_program_and_erase(host):
    die = host.die
    blk = good_block(host, 0)
    die.set_wp(True)
    st = host.program_page(blk, 0, b"\x00" * host.nbytes)
    assert st & Status.FAIL and not st & Status.WP_N
    assert host.erase(blk) & Status.FAIL
    die.set_wp(False)
    assert host.read_page(blk, 0) == b"\xff" * host.nbytes
    assert host.status() == OK


def test_bad_block_program_fails_and_marker(host, mlc):
    bad = next(b for b in range(mlc.geometry.blocks) if host.die.array.is_factory_bad(b))
    assert host.program_page(bad, 2, host.random_page(2)) & Status.FAIL
    assert host.erase(bad) & Status.FAIL
    for page in (0, 1):
        assert host.read_page(bad, page)[mlc.geometry.page_bytes] == 0x00
    good = good_block(host, 0)
    assert host.read_page(good, 0)[mlc.geometry.page_bytes] == 0xFF


def test_cache_read_sequence_returns_consecutive_pages(host, mlc):
    die = host.die
    blk = good_block(host, 0)
    pages = [host.random_page(20 + p) for p in range(4)]
    for p, data in enumerate(pages):
        host.program_page(blk, p, data)
    die.cmd(Cmd.READ)
    host.address(blk, 0)
    die.cmd(Cmd.READ_CONFIRM)
    die.wait_ready(MS)
    got = []
    for _ in range(3):
        die.cmd(Cmd.READ_CACHE_SEQUENTIAL)
        busy = die.wait_ready(MS)
        assert busy == round(mlc.timing.t_cache_xfer_us * 1000)
        st = host.status()
        assert st & Status.RDY and not st & Status.ARDY  # array senses the next page
        die.cmd(Cmd.READ)
        got.append(die.read(host.nbytes))
    die.cmd(Cmd.READ_CACHE_END)
    die.wait_ready(MS)  # waits for the array, then the copy
    got.append(die.read(host.nbytes))
    assert host.status() == OK
    for data, out in zip(pages, got, strict=True):
        assert bit_errors(out, data) == 0


def test_random_cache_read(host):
    die = host.die
    blk = good_block(host, 0)
    a, b = host.random_page(30), host.random_page(31)
    host.program_page(blk, 0, a)
    host.program_page(blk, 5, b)
    host.read_page(blk, 5)
    die.cmd(Cmd.READ)
    host.address(blk, 0)
    die.cmd(Cmd.READ_CACHE_SEQUENTIAL)  # 00h-addr-31h: out = page 5, sense page 0
    die.wait_ready(MS)
    assert bit_errors(die.read(host.nbytes), b) == 0
    die.cmd(Cmd.READ_CACHE_END)
    die.wait_ready(MS)
    assert bit_errors(die.read(host.nbytes), a) == 0


def test_multiplane_program_read_erase(host):
    die = host.die
    b0, b1 = good_block(host, 0), good_block(host, 1)
    d0, d1 = host.random_page(40), host.random_page(41)
    die.cmd(Cmd.PROGRAM)
    host.address(b0, 1)
    die.write(d0)
    die.cmd(Cmd.PROGRAM_MULTIPLANE)
    assert 0 < die.wait_ready(MS) <= 1_000
    die.cmd(Cmd.PROGRAM)
    host.address(b1, 1)
    die.write(d1)
    die.cmd(Cmd.PROGRAM_CONFIRM)
    busy = die.wait_ready(MS)
    assert host.status() == OK
    assert busy > 100_000  # one tPROG for both planes
    assert die.array.wl_programmed(b0, 0) == {1} and die.array.wl_programmed(b1, 0) == {1}

    die.cmd(Cmd.READ)
    host.address(b0, 1)
    die.cmd(Cmd.READ_MULTIPLANE)
    die.wait_ready(MS)
    die.cmd(Cmd.READ)
    host.address(b1, 1)
    die.cmd(Cmd.READ_CONFIRM)
    assert die.wait_ready(MS) == 70_000  # both planes sensed in parallel
    for blk, data in ((b0, d0), (b1, d1)):
        die.cmd(0x06)  # CHANGE READ COLUMN ENHANCED selects the plane
        host.address(blk, 1)
        die.cmd(Cmd.CHANGE_READ_COLUMN_CONFIRM)
        assert bit_errors(die.read(host.nbytes), data) == 0

    die.cmd(Cmd.ERASE)
    host.row_address(b0, 0)
    die.cmd(Cmd.ERASE_MULTIPLANE)
    die.wait_ready(MS)
    die.cmd(Cmd.ERASE)
    host.row_address(b1, 0)
    die.cmd(Cmd.ERASE_CONFIRM)
    die.wait_ready(MS)
    assert host.status() == OK
    assert die.array.pec(b0) == 1 and die.array.pec(b1) == 1


def test_copyback_moves_data_within_a_plane(host):
    die = host.die
    src, dst = good_block(host, 0), good_block(host, 0, start=good_block(host, 0) + 2)
    data = host.random_page(50)
    host.program_page(src, 0, data)
    die.cmd(Cmd.READ)
    host.address(src, 0)
    die.cmd(Cmd.COPYBACK_READ)
    die.wait_ready(MS)
    die.cmd(Cmd.CHANGE_WRITE_COLUMN)
    host.address(dst, 0)
    die.cmd(Cmd.PROGRAM_CONFIRM)
    die.wait_ready(MS)
    assert host.status() == OK
    assert bit_errors(host.read_page(dst, 0), data) == 0
    # across planes: FAIL, nothing programmed
    other = good_block(host, 1)
    die.cmd(Cmd.READ)
    host.address(src, 0)
    die.cmd(Cmd.COPYBACK_READ)
    die.wait_ready(MS)
    die.cmd(Cmd.CHANGE_WRITE_COLUMN)
    host.address(other, 0)
    die.cmd(Cmd.PROGRAM_CONFIRM)
    die.wait_ready(MS)
    assert host.status() & Status.FAIL
    assert die.array.wl_programmed(other, 0) == set()


def test_cache_program(host):
    die = host.die
    blk = good_block(host, 0)
    pages = [host.random_page(60 + p) for p in range(2)]
    die.cmd(Cmd.PROGRAM)
    host.address(blk, 0)
    die.write(pages[0])
    die.cmd(Cmd.PROGRAM_CACHE)
    assert die.wait_ready(MS) == round(die.profile.timing.t_cache_xfer_us * 1000)
    assert not host.status() & Status.ARDY
    die.cmd(Cmd.PROGRAM)
    host.address(blk, 1)
    die.write(pages[1])
    die.cmd(Cmd.PROGRAM_CONFIRM)
    die.wait_ready(MS)
    assert host.status() == OK
    for p, data in enumerate(pages):
        assert bit_errors(host.read_page(blk, p), data) == 0


def test_cache_program_failc_reports_the_previous_op(host, mlc):
    die = host.die
    bad = next(b for b in range(mlc.geometry.blocks) if die.array.is_factory_bad(b))
    die.cmd(Cmd.PROGRAM)
    host.address(bad, 0)
    die.cmd(Cmd.PROGRAM_CACHE)
    die.wait_ready(MS)
    die.cmd(Cmd.PROGRAM)
    host.address(good_block(host, bad % 2), 0)
    die.cmd(Cmd.PROGRAM_CONFIRM)
    die.wait_ready(MS)
    st = host.status()
    assert st & Status.FAILC and not st & Status.FAIL


def test_soft_bit_read_marks_cells_near_the_reference(host, mlc):
    """LSB soft read with a 1 V band around VREF1 covers L1 and L2: it returns the MSB bit."""
    die = host.die
    blk = good_block(host, 0)
    lsb, msb = host.random_page(70), host.random_page(71)
    host.program_page(blk, 0, lsb)
    host.program_page(blk, 1, msb)
    sbr = mlc.vendor.soft_bit_read
    host.set_feature(sbr.delta_feature, bytes([round(1000 / mlc.read_offsets.step_mV), 0, 0, 0]))
    die.cmd(Cmd.READ)
    host.address(blk, 0)
    die.cmd(sbr.confirm_cmd)
    tm = mlc.timing  # the second sensing of the pair keeps the precharged bitlines
    second = tm.t_sense_us if tm.t_sense_soft_us is None else tm.t_sense_soft_us
    assert die.wait_ready(MS) == round((tm.t_read_base_us + tm.t_sense_us + second) * 1000)
    assert bit_errors(die.read(host.nbytes), msb) <= host.nbytes * 8 * 1e-4
    host.set_feature(sbr.delta_feature, bytes(4))  # empty band: all ones
    die.cmd(Cmd.READ)
    host.address(blk, 0)
    die.cmd(sbr.confirm_cmd)
    die.wait_ready(MS)
    assert die.read(host.nbytes) == b"\xff" * host.nbytes


def test_commands_while_busy_are_ignored(host):
    die = host.die
    blk = good_block(host, 0)
    die.cmd(Cmd.READ)
    host.address(blk, 0)
    die.cmd(Cmd.READ_CONFIRM)
    die.cmd(Cmd.ERASE)  # ignored: R/B# low
    host.row_address(blk, 0)
    die.cmd(Cmd.ERASE_CONFIRM)
    die.wait_ready(MS)
    assert die.array.pec(blk) == 0
    assert die.read(4) == b"\xff" * 4


def test_tlc_busy_by_page_type(tlc):
    h = Host(VirtualDie(tlc, seed=1))
    refs = [len(r) for r in tlc.page_refs]
    for p, n in enumerate(refs):
        h.read_page(0, p)
        assert h.die.last_busy_ns == round((tlc.timing.t_read_base_us + n * 20.0) * 1000)
    assert np.isclose(sum(refs), 7)
