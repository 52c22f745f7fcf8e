"""Test-mode sequences: entry / exit, inverse read, latch micro-operations, MWS, latch XOR,
ESP and sensing-time feature writes.

The byte-level protocol of each mechanism is in `nandlab.onfi_spec.testmode`;
the command bytes and feature addresses come from the profile's `vendor`
section (contract 3). `Step` and its constructors (`sense`, `m1`, ...) name
one latch micro-operation, as ParaBit's tables do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from nandlab.errors import RangeError
from nandlab.onfi_spec.sdr_timing import SdrTiming
from nandlab.onfi_spec.testmode import SENSE_TIME_UNIT_US, LatchOp, MwsFlag, Node
from nandlab.ops import Program
from nandlab.profiles.model import Esp, InverseRead, LatchOps, LatchXor, Mws, SenseTime, TestMode
from nandlab.sequences.core import address, busy, data_in, data_out, set_features


@dataclass(frozen=True)
class Step:
    """One latch micro-operation: op code and its argument byte."""

    op: LatchOp
    arg: int = 0


def sense(k: int) -> Step:
    """Sense the addressed WL at VREADk into SO (0 = VREAD0 below the erased state,
    k = 1.. = read reference k-1 with its offset, VREAD_SLC = the SLC reference).
    SO = 1 where the cell does not conduct."""
    return Step(LatchOp.SENSE, k)


def m1(inverted_so: bool = False) -> Step:
    """M1: A |= SO (C &= ~SO); inverted_so uses the extra SO inverter: A |= ~SO."""
    return Step(LatchOp.M1, int(inverted_so))


def m2(inverted_so: bool = False) -> Step:
    """M2: A &= ~SO; inverted_so: A &= SO."""
    return Step(LatchOp.M2, int(inverted_so))


def m3() -> Step:
    """M3: OUT |= A (B &= ~A): L1 to L2."""
    return Step(LatchOp.M3)


def init_l1(inverted: bool = False) -> Step:
    """L1 init: A = 1 (Fig. 2), or A = 0 with inverted=True (Fig. 7)."""
    return Step(LatchOp.INIT_L1, int(inverted))


def init_l2() -> Step:
    """L2 init: OUT = 0, B = 1."""
    return Step(LatchOp.INIT_L2)


def xor() -> Step:
    """OUT ^= A."""
    return Step(LatchOp.XOR)


def output(node: Node) -> Step:
    """Select the node the following data out reads."""
    return Step(LatchOp.OUTPUT, int(node))


def data_in_node(node: Node) -> Step:
    """The following data in loads node A or OUT."""
    return Step(LatchOp.DATA_IN, int(node))


def in_test_mode(tm: TestMode, body: Program) -> Program:
    """`body` inside the test mode: CMD enter, ADDR key, ..., CMD exit."""
    return Program().cmd(tm.enter_cmd).addr(bytes([tm.key])) + body + Program().cmd(tm.exit_cmd)


def inverse(inv: InverseRead, sensing: Program) -> Program:
    """The prefix that makes the one sensing operation of `sensing` latch its inverse."""
    return Program().cmd(inv.prefix_cmd) + sensing


def latch_op(lo: LatchOps, step: Step, row: bytes) -> Program:
    """CMD, ADDR op, arg and the `row` cycles (whose plane picks the latches), confirm CMD."""
    return Program().cmd(lo.cmd) + address(bytes([step.op, step.arg]) + row) + Program().cmd(
        lo.confirm_cmd
    )


def latch_steps(
    t: SdrTiming, lo: LatchOps, row: bytes, steps: Sequence[Step], timeout_ns: int
) -> Program:
    """Latch micro-operations in order, each followed by its busy (tWB, WAIT_RDY).

    Raises RangeError for anything but a sensing / transfer / init / XOR step with a byte
    argument (data out and in have their own sequences: `latch_output`, `latch_load`).
    """
    prog = Program()
    for st in steps:
        if not isinstance(st, Step):
            raise RangeError(f"latch step {st!r} is not a Step (use sense(), m1(), ...)")
        if st.op in (LatchOp.OUTPUT, LatchOp.DATA_IN):
            raise RangeError("output / data_in steps: use read= / load_latch()")
        if not 0 <= st.arg <= 0xFF:
            raise RangeError(f"latch step argument {st.arg} is not a byte")
        prog += latch_op(lo, st, row) + busy(t, timeout_ns)
    return prog


def latch_output(t: SdrTiming, lo: LatchOps, row: bytes, node: Node, n: int) -> Program:
    """Data out of latch `node` of the plane of `row`: `n` bytes from column 0."""
    return latch_op(lo, output(node), row) + data_out(t, n)


def latch_load(t: SdrTiming, lo: LatchOps, row: bytes, node: Node, data: bytes) -> Program:
    """Data in to latch node A or OUT of the plane of `row`, after tADL."""
    return latch_op(lo, data_in_node(node), row) + data_in(t, data)


def latch_xor(t: SdrTiming, lx: LatchXor, timeout_ns: int) -> Program:
    """C-latch (OUT) = S-latch (A) XOR C-latch, then its busy."""
    return Program().cmd(lx.cmd) + busy(t, timeout_ns)


def mws_sense(
    t: SdrTiming, mws: Mws, flags: MwsFlag, groups: Sequence[bytes], timeout_ns: int
) -> Program:
    """Multi-wordline sensing: CMD, ADDR flags, per block its row cycles + page bitmap
    (CMD cont before each further block), CMD confirm, busy tMWS."""
    prog = Program().cmd(mws.cmd).addr(bytes([int(flags)]))
    for i, group in enumerate(groups):
        if i:
            prog.cmd(mws.cont_cmd)
        prog += address(group)
    prog.cmd(mws.confirm_cmd)
    return prog + busy(t, timeout_ns)


def over_power(t: SdrTiming, mws: Mws, body: Program, feature_timeout_ns: int) -> Program:
    """`body` with the die's MWS block-limit override on (SET FEATURES P1 = 1, then 0)."""
    on = set_features(t, mws.override_feature, bytes([1, 0, 0, 0]), feature_timeout_ns)
    return on + body + set_features(t, mws.override_feature, bytes(4), feature_timeout_ns)


def set_esp(t: SdrTiming, esp: Esp, params: bytes, timeout_ns: int) -> Program:
    """SET FEATURES of the ESP register (SLC ISPP tuning) with P1..P4 from `esp_params`."""
    return set_features(t, esp.feature, params, timeout_ns)


def set_sense_time(t: SdrTiming, st: SenseTime, us: float | None, timeout_ns: int) -> Program:
    """SET FEATURES of the sensing (strobe) time, in 10 ns units; None = the default (0).

    Raises RangeError outside 0.01..655.35 us.
    """
    code = 0 if us is None else round(us / SENSE_TIME_UNIT_US)
    if not 0 <= code <= 0xFFFF or (us is not None and code == 0):
        raise RangeError(
            f"sensing time {us} us out of range: {SENSE_TIME_UNIT_US}.."
            f"{0xFFFF * SENSE_TIME_UNIT_US:g} us in steps of {SENSE_TIME_UNIT_US} us"
        )
    return set_features(t, st.feature, bytes([code & 0xFF, code >> 8, 0, 0]), timeout_ns)
