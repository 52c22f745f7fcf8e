"""Vendor, test-mode and power-measured sequences against the protocol that
`nandlab.onfi_spec.testmode` writes down, with command bytes of a made-up part."""

from __future__ import annotations

import pytest

from nandlab.errors import OpProgramError, RangeError, UnsupportedCapability
from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.onfi_spec.testmode import LatchOp, MwsFlag, Node, esp_params
from nandlab.ops import Addr, Cmd, Delay, Din, Dout, Power, Program, WaitRdy
from nandlab.profiles import model
from nandlab.sequences import core, power, testmode, vendor

T = sdr(0)  # ONFI mode 0: tWB 200 ns, tWHR 120 ns, tADL 400 ns
TO = 9_000
ROW = b"\x05\x01\x00"
BODY = Program().cmd(0x70)

SLC = model.SlcMode(enter_cmd=0xA1, exit_cmd=0xA2)
TM = model.TestMode(enter_cmd=0xC0, key=0x3C, exit_cmd=0xCF)
LO = model.LatchOps(cmd=0xC2, confirm_cmd=0xC3, vread0_mV=-4000.0)
MWS = model.Mws(cmd=0xC4, cont_cmd=0xC5, confirm_cmd=0xC6, override_feature=0xCA, t_sense_us=20.0)


def test_slc_operations_enter_and_leave_the_mode_native_ones_leave_it_first() -> None:
    assert list(vendor.array_mode(SLC, True, BODY)) == [Cmd(0xA1), Cmd(0x70), Cmd(0xA2)]
    assert list(vendor.array_mode(SLC, False, BODY)) == [Cmd(0xA2), Cmd(0x70)]
    assert list(vendor.array_mode(None, False, BODY)) == [Cmd(0x70)]
    with pytest.raises(UnsupportedCapability, match="vendor.slc_mode"):
        vendor.array_mode(None, True, BODY)


def test_soft_bit_read_is_a_page_read_with_the_vendor_confirm() -> None:
    sbr = model.SoftBitRead(confirm_cmd=0x3C, delta_feature=0xA8)
    assert list(vendor.soft_bit_read(T, sbr, ROW, 8, TO)) == [
        Cmd(0x00), Addr(ROW), Cmd(0x3C), Delay(200), WaitRdy(TO), Delay(120), Dout(8)
    ]


def test_test_mode_wraps_its_body_in_entry_with_key_and_exit() -> None:
    assert list(testmode.in_test_mode(TM, BODY)) == [Cmd(0xC0), Addr(b"\x3c"), Cmd(0x70), Cmd(0xCF)]
    inv = model.InverseRead(prefix_cmd=0xC1)
    assert list(testmode.inverse(inv, BODY)) == [Cmd(0xC1), Cmd(0x70)]


def test_latch_steps_send_op_arg_row_each_followed_by_its_busy() -> None:
    steps = [testmode.init_l1(inverted=True), testmode.sense(3), testmode.m2(inverted_so=True)]
    expected = []
    for op, arg in [(LatchOp.INIT_L1, 1), (LatchOp.SENSE, 3), (LatchOp.M2, 1)]:
        expected += [Cmd(0xC2), Addr(bytes([op, arg]) + ROW), Cmd(0xC3), Delay(200), WaitRdy(TO)]
    assert list(testmode.latch_steps(T, LO, ROW, steps, TO)) == expected


@pytest.mark.parametrize(
    ("step", "match"),
    [
        (testmode.output(Node.A), "output / data_in"),
        (testmode.data_in_node(Node.A), "output / data_in"),
        (testmode.Step(LatchOp.SENSE, 256), "not a byte"),
        ((0, 1), "not a Step"),
    ],
)
def test_latch_steps_refuse_what_is_not_a_micro_operation(step, match: str) -> None:
    with pytest.raises(RangeError, match=match):
        testmode.latch_steps(T, LO, ROW, [step], TO)


def test_latch_output_reads_after_twhr_and_load_writes_after_tadl() -> None:
    assert list(testmode.latch_output(T, LO, ROW, Node.OUT, 16)) == [
        Cmd(0xC2), Addr(bytes([LatchOp.OUTPUT, Node.OUT]) + ROW), Cmd(0xC3), Delay(120), Dout(16)
    ]
    assert list(testmode.latch_load(T, LO, ROW, Node.A, b"\x0f")) == [
        Cmd(0xC2), Addr(bytes([LatchOp.DATA_IN, Node.A]) + ROW), Cmd(0xC3), Delay(400), Din(b"\x0f")
    ]
    assert list(testmode.latch_xor(T, model.LatchXor(cmd=0xC7), TO)) == [
        Cmd(0xC7), Delay(200), WaitRdy(TO)
    ]


def test_mws_sends_flags_then_each_block_row_and_bitmap() -> None:
    bitmap = bytes(range(1, 25))  # 192 WLs: the group spans four ADDR instructions
    g0, g1 = ROW + bitmap, b"\x09\x01\x00" + bitmap
    flags = MwsFlag.S_INIT | MwsFlag.S_TO_C
    assert list(testmode.mws_sense(T, MWS, flags, [g0, g1], TO)) == [
        Cmd(0xC4), Addr(b"\x0a"),
        Addr(g0[:8]), Addr(g0[8:16]), Addr(g0[16:24]), Addr(g0[24:]),
        Cmd(0xC5),
        Addr(g1[:8]), Addr(g1[8:16]), Addr(g1[16:24]), Addr(g1[24:]),
        Cmd(0xC6), Delay(200), WaitRdy(TO),
    ]


def test_over_power_sets_the_override_around_the_body_only() -> None:
    set_on = core.set_features(T, 0xCA, bytes([1, 0, 0, 0]), TO)
    set_off = core.set_features(T, 0xCA, bytes(4), TO)
    assert testmode.over_power(T, MWS, BODY, TO) == set_on + BODY + set_off


def test_esp_and_sense_time_registers_in_their_spec_units() -> None:
    esp = model.Esp(feature=0xB8)
    params = esp_params(start_offset_mV=-40, step_mV=30, verify_raise_mV=20, extra_steps=2)
    assert params == bytes([0xFE, 3, 1, 2])  # -2 x 20 mV, 3 x 10 mV, 1 x 20 mV, 2
    assert list(testmode.set_esp(T, esp, params, TO)) == [
        Cmd(0xEF), Addr(b"\xb8"), Delay(400), Din(params), Delay(200), WaitRdy(TO)
    ]
    st = model.SenseTime(feature=0xB9)
    assert testmode.set_sense_time(T, st, 5.0, TO)[3] == Din(bytes([0xF4, 0x01, 0, 0]))  # 500
    assert testmode.set_sense_time(T, st, None, TO)[3] == Din(bytes(4))
    for us in (0.001, 700.0):
        with pytest.raises(RangeError, match="sensing time"):
            testmode.set_sense_time(T, st, us, TO)


def test_power_window_covers_the_first_busy_period_only() -> None:
    prog = core.page_read(T, ROW, 4, TO) + core.erase(T, ROW, TO)
    assert list(power.measured(prog, 250)) == [
        Cmd(0x00), Addr(ROW), Cmd(0x30),
        Power(True, 250), Delay(200), WaitRdy(TO), Power(False),
        Delay(120), Dout(4), Cmd(0x60), Addr(ROW), Cmd(0xD0), Delay(200), WaitRdy(TO),
    ]
    with pytest.raises(OpProgramError, match="busy period"):
        power.measured(core.read_status(T), 250)
