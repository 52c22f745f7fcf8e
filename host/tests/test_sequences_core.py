"""ONFI datasheet sequences against the ONFI 4.x spec: opcodes, address cycles and the delay
each step needs, with the spec's numbers written out (not taken from our own tables).

SDR mode 0: tWB 200 ns, tWHR 120 ns; mode 5: tWB 100 ns, tWHR 80 ns; tADL 400 ns and
tCCS 500 ns in every mode (ONFI 4.x; Linux nand_timings.c).
"""

from __future__ import annotations

import doctest

import pytest

from nandlab.onfi_spec.sdr_timing import SdrTiming, sdr
from nandlab.ops import (
    Addr,
    Cmd,
    Delay,
    Din,
    DinPattern,
    Dout,
    DoutCompare,
    Gpio,
    Instruction,
    Pattern,
    Program,
    Timing,
    WaitRdy,
)
from nandlab.sequences import core

# (mode, tWB, tWHR) as ONFI lists them
MODES = [(0, 200, 120), (5, 100, 80)]
T_ADL = 400
T_CCS = 500
TO = 123_456  # any WAIT_RDY timeout: the caller's

ADDR5 = bytes([0x10, 0x00, 0x40, 0x02, 0x00])  # 2 column + 3 row cycles
ROW = ADDR5[2:]


def busy(t_wb: int, timeout: int = TO) -> list[Instruction]:
    """What must follow a command that starts an array operation: tWB, then wait ready."""
    return [Delay(t_wb), WaitRdy(timeout)]


@pytest.fixture(params=MODES, ids=["mode0", "mode5"])
def spec(request: pytest.FixtureRequest) -> tuple[SdrTiming, int, int]:
    mode, t_wb, t_whr = request.param
    return sdr(mode), t_wb, t_whr


def test_reset_waits_trst_then_the_bench_returns_to_mode_0(spec) -> None:
    t, t_wb, _ = spec
    assert list(core.reset(t, TO)) == [Cmd(0xFF), *busy(t_wb), Timing(0)]


def test_read_id_reads_after_twhr(spec) -> None:
    t, _, t_whr = spec
    assert list(core.read_id(t, 0x20, 4)) == [Cmd(0x90), Addr(b"\x20"), Delay(t_whr), Dout(4)]


@pytest.mark.parametrize(("seq", "opcode"), [(core.read_parameter_page, 0xEC),
                                              (core.read_unique_id, 0xED)])
def test_parameter_page_and_unique_id_wait_tr_then_trr(spec, seq, opcode: int) -> None:
    t, t_wb, t_whr = spec
    assert list(seq(t, 768, TO)) == [
        Cmd(opcode), Addr(b"\x00"), *busy(t_wb), Delay(t_whr), Dout(768)
    ]


def test_status_reads_one_byte_after_twhr(spec) -> None:
    t, _, t_whr = spec
    assert list(core.read_status(t)) == [Cmd(0x70), Delay(t_whr), Dout(1)]
    assert list(core.read_status_enhanced(t, ROW)) == [
        Cmd(0x78), Addr(ROW), Delay(t_whr), Dout(1)
    ]


def test_features_wait_tfeat_with_tadl_before_the_parameters(spec) -> None:
    t, t_wb, t_whr = spec
    assert list(core.get_features(t, 0x89, TO)) == [
        Cmd(0xEE), Addr(b"\x89"), *busy(t_wb), Delay(t_whr), Dout(4)
    ]
    assert list(core.set_features(t, 0x89, b"\x01\x02\x03\x04", TO)) == [
        Cmd(0xEF), Addr(b"\x89"), Delay(T_ADL), Din(b"\x01\x02\x03\x04"), *busy(t_wb)
    ]


def test_timing_mode_is_feature_01h_in_the_old_mode_then_the_bench_switches(spec) -> None:
    t, t_wb, _ = spec
    assert list(core.set_timing_mode(t, 4, TO)) == [
        Cmd(0xEF), Addr(b"\x01"), Delay(T_ADL), Din(bytes([4, 0, 0, 0])), *busy(t_wb), Timing(4)
    ]


def test_write_protect_drives_wp_n_low() -> None:
    assert list(core.write_protect(True)) == [Gpio(0, 1)]
    assert list(core.write_protect(False)) == [Gpio(1, 1)]


def test_page_read_is_00h_address_30h_then_tr_and_trr(spec) -> None:
    t, t_wb, t_whr = spec
    head = [Cmd(0x00), Addr(ADDR5), Cmd(0x30), *busy(t_wb), Delay(t_whr)]
    assert list(core.page_read(t, ADDR5, 4352, TO)) == [*head, Dout(4352)]
    compare = DoutCompare(4352, Pattern.prbs(), 7, 512)
    assert list(core.page_read(t, ADDR5, compare, TO)) == [*head, compare]


def test_column_changes_wait_tccs(spec) -> None:
    assert list(core.change_read_column(b"\x11\x00", T_CCS, 8)) == [
        Cmd(0x05), Addr(b"\x11\x00"), Cmd(0xE0), Delay(T_CCS), Dout(8)
    ]
    assert list(core.change_read_column_enhanced(ADDR5, T_CCS, 8)) == [
        Cmd(0x06), Addr(ADDR5), Cmd(0xE0), Delay(T_CCS), Dout(8)
    ]


def test_cache_read_is_31h_per_page_and_3fh_for_the_last(spec) -> None:
    t, t_wb, t_whr = spec
    page = [*busy(t_wb), Delay(t_whr), Dout(16)]
    assert list(core.cache_read(t, ADDR5, 3, 16, TO)) == [
        Cmd(0x00), Addr(ADDR5), Cmd(0x30), *busy(t_wb),
        Cmd(0x31), *page, Cmd(0x31), *page, Cmd(0x3F), *page,
    ]


def test_multiplane_read_is_32h_per_plane_then_06h_e0h_per_plane(spec) -> None:
    t, t_wb, _ = spec
    a0, a1 = ADDR5, ADDR5[:2] + b"\x41\x02\x00"
    assert list(core.multiplane_read(t, [a0, a1], 16, T_CCS, TO)) == [
        Cmd(0x00), Addr(a0), Cmd(0x32), *busy(t_wb),
        Cmd(0x00), Addr(a1), Cmd(0x30), *busy(t_wb),
        Cmd(0x06), Addr(a0), Cmd(0xE0), Delay(T_CCS), Dout(16),
        Cmd(0x06), Addr(a1), Cmd(0xE0), Delay(T_CCS), Dout(16),
    ]


def test_program_sends_data_after_tadl_and_waits_tprog(spec) -> None:
    t, t_wb, _ = spec
    assert list(core.page_program(t, ADDR5, b"\xa5" * 8, TO)) == [
        Cmd(0x80), Addr(ADDR5), Delay(T_ADL), Din(b"\xa5" * 8), Cmd(0x10), *busy(t_wb)
    ]
    pattern = DinPattern(4352, Pattern.checker(1), 3)
    assert list(core.page_program(t, ADDR5, pattern, TO))[3] == pattern


@pytest.mark.parametrize(("seq", "between"), [(core.cache_program, 0x15),
                                               (core.multiplane_program, 0x11)])
def test_cache_and_multiplane_program_confirm_10h_only_the_last(spec, seq, between: int) -> None:
    t, t_wb, _ = spec
    a1 = ADDR5[:2] + b"\x41\x02\x00"
    assert list(seq(t, [(ADDR5, b"\x01"), (a1, b"\x02")], TO)) == [
        Cmd(0x80), Addr(ADDR5), Delay(T_ADL), Din(b"\x01"), Cmd(between), *busy(t_wb),
        Cmd(0x80), Addr(a1), Delay(T_ADL), Din(b"\x02"), Cmd(0x10), *busy(t_wb),
    ]


def test_copyback_reads_with_35h_and_programs_with_85h_10h(spec) -> None:
    t, t_wb, _ = spec
    dst = ADDR5[:2] + b"\x80\x02\x00"
    assert list(core.copyback(t, ADDR5, dst, 11, 22)) == [
        Cmd(0x00), Addr(ADDR5), Cmd(0x35), *busy(t_wb, 11),
        Cmd(0x85), Addr(dst), Delay(T_ADL), Cmd(0x10), *busy(t_wb, 22),
    ]


def test_erase_is_60h_row_d0h_and_multiplane_d1h_between(spec) -> None:
    t, t_wb, _ = spec
    r1 = b"\x40\x02\x00"
    assert list(core.erase(t, ROW, TO)) == [Cmd(0x60), Addr(ROW), Cmd(0xD0), *busy(t_wb)]
    assert list(core.multiplane_erase(t, [ROW, r1], TO)) == [
        Cmd(0x60), Addr(ROW), Cmd(0xD1), *busy(t_wb), Cmd(0x60), Addr(r1), Cmd(0xD0), *busy(t_wb)
    ]


def test_long_addresses_split_into_8_cycle_instructions() -> None:
    cycles = bytes(range(19))
    assert list(core.address(cycles)) == [Addr(cycles[:8]), Addr(cycles[8:16]), Addr(cycles[16:])]


def test_sequences_carry_no_ce_and_compose() -> None:
    t = sdr(0)
    program = Program().ce(2) + core.erase(t, ROW, TO) + core.read_status(t)
    assert [type(i).__name__ for i in program] == [
        "Ce", "Cmd", "Addr", "Cmd", "Delay", "WaitRdy", "Cmd", "Delay", "Dout"
    ]
    assert Program.decode(program.encode()) == program


def test_docstring_example() -> None:
    assert doctest.testmod(core).failed == 0
