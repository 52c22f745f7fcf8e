"""Test-mode definitions of the virtual die (shared with the chip layer).

The byte-level protocol of every test-mode operation (the command bytes and
feature addresses come from the profile's `vendor` section):

- entry: CMD test_mode.enter_cmd, ADDR key. Exit: CMD test_mode.exit_cmd or RESET.
  Outside the test mode the other test-mode bytes are unknown commands (ignored)
  and the test-mode feature addresses ignore SET FEATURES.
- inverse read: CMD inverse_read.prefix_cmd before a read (00h-30h, the soft-bit
  confirm, a cache read, a latch sensing or an MWS): that one sensing operation
  latches the inverse of its result.
- latch micro-operations: CMD latch_ops.cmd, ADDR op, ADDR arg, ADDR row (row_cycles
  bytes: the block and page the operation addresses; its plane picks the latches),
  CMD latch_ops.confirm_cmd. `LatchOp` lists op / arg.
- MWS: CMD mws.cmd, ADDR flags (`MwsFlag`), ADDR row, ADDR page bitmap
  (ceil(WLs per block / 8) bytes, bit w = WL w), then per further block CMD
  mws.cont_cmd, ADDR row, ADDR page bitmap; CMD mws.confirm_cmd. The SLC read
  reference (default + offset) is applied to every selected WL.
- latch XOR: CMD latch_xor.cmd: C-latch = S-latch XOR C-latch.
- ESP: SET FEATURES esp.feature P1..P4 (see `esp_tune`).
- sensing time: SET FEATURES sense_time.feature P1..P2 (10 ns units, little endian).
- MWS block-limit override: SET FEATURES mws.override_feature P1 = 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum, IntFlag

from nandlab.profiles.model import Profile

SENSE_TIME_UNIT_US = 0.01
DEFAULT_STEP_US = 0.5
VREAD_SLC = 0xFE
"""Latch sensing argument selecting the SLC read reference."""
ESP_START_UNIT_MV = 20.0
ESP_STEP_UNIT_MV = 10.0
ESP_VERIFY_UNIT_MV = 20.0


class LatchOp(IntEnum):
    """Latch micro-operation codes (first address byte) and their argument (second byte)."""

    SENSE = 0x00  # arg k: sense the addressed WL at VREADk into SO (0 = VREAD0,
    #               1.. = read reference k-1, VREAD_SLC = the SLC reference)
    M1 = 0x01  # arg bit0: through the extra SO inverter. A |= SO
    M2 = 0x02  # arg bit0: through the extra SO inverter. A &= ~SO
    M3 = 0x03  # OUT |= A (L1 -> L2)
    INIT_L1 = 0x04  # arg bit0 = 0: A = 1 (normal, Fig. 2); 1: A = 0 (inverted, Fig. 7)
    INIT_L2 = 0x05  # OUT = 0, B = 1
    OUTPUT = 0x06  # arg = Node: data out (DOUT) reads that node from column 0
    DATA_IN = 0x07  # arg = Node.A or Node.OUT: following data in loads that node
    XOR = 0x08  # OUT ^= A


class MwsFlag(IntFlag):
    """Flags byte of the MWS command (Flash-Cosmos Fig. 15's ISCM slot)."""

    INVERSE = 0x01  # inverse read: A = 0 at S-latch init, evaluation through M1
    S_INIT = 0x02  # initialise the S-latch before sensing (else: accumulate, AND)
    C_INIT = 0x04  # initialise the C-latch (OUT = 0) before the transfer
    S_TO_C = 0x08  # transfer S-latch to C-latch after sensing (OUT |= A)


@dataclass(frozen=True)
class IsppTune:
    """Tuned SLC ISPP (ESP). A regular SLC ISPP phase from start_mV to the SLC verify, then,
    if esp_step_mV > 0, an ESP phase from there to verify_mV in steps of esp_step_mV, then
    extra_steps verify-pulse loops that tighten the static program spread."""

    start_mV: float
    esp_step_mV: float
    verify_mV: float
    extra_steps: int


def pbm_bytes(wls_per_block: int) -> int:
    return (wls_per_block + 7) // 8


def feature_addresses(profile: Profile) -> frozenset[int]:
    """The test-mode SET FEATURES addresses the profile declares."""
    v = profile.vendor
    out = set()
    if v.esp is not None:
        out.add(v.esp.feature)
    if v.sense_time is not None:
        out.add(v.sense_time.feature)
    if v.mws is not None:
        out.add(v.mws.override_feature)
    return frozenset(out)


def esp_tune(profile: Profile, feature: Callable[[int], bytes]) -> IsppTune | None:
    """The ISPP tuning the ESP feature holds (None when it is all zero or undeclared)."""
    esp = profile.vendor.esp
    if esp is None:
        return None
    p = feature(esp.feature)
    if not any(p):
        return None
    phys = profile.physics
    ispp = phys.slc_ispp or phys.ispp
    start = ispp.start_mV + (p[0] - 256 if p[0] & 0x80 else p[0]) * ESP_START_UNIT_MV
    return IsppTune(
        start_mV=start,
        esp_step_mV=p[1] * ESP_STEP_UNIT_MV,
        verify_mV=phys.slc_verify_mV + p[2] * ESP_VERIFY_UNIT_MV,
        extra_steps=p[3],
    )


def esp_params(
    profile: Profile,
    *,
    start_offset_mV: float = 0.0,
    step_mV: float = 0.0,
    verify_raise_mV: float = 0.0,
    extra_steps: int = 0,
) -> bytes:
    """P1..P4 of the ESP feature for the given tuning (rounded to the register units)."""
    codes = (
        round(start_offset_mV / ESP_START_UNIT_MV),
        round(step_mV / ESP_STEP_UNIT_MV),
        round(verify_raise_mV / ESP_VERIFY_UNIT_MV),
        int(extra_steps),
    )
    if not -128 <= codes[0] <= 127 or not all(0 <= c <= 255 for c in codes[1:]):
        raise ValueError(f"ESP tuning out of the register range: codes {codes}")
    return bytes([codes[0] & 0xFF, *codes[1:]])


def mws_current_mA(profile: Profile, blocks: int) -> float:
    """Read current of an MWS activating `blocks` blocks: each further block charges its WLs
    from the same pump, whose output saturates at mws_pump_limit_mA above a page read."""
    pw = profile.power
    extra_demand = pw.mws_block_mA * max(blocks - 1, 0)
    if pw.mws_pump_limit_mA > 0:
        extra = pw.mws_pump_limit_mA * (1.0 - math.exp(-extra_demand / pw.mws_pump_limit_mA))
    else:
        extra = extra_demand
    return pw.read_mA + extra
