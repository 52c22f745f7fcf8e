"""Vocabulary of the vendor / test-mode mechanisms and the page-buffer latch nodes.

These are the names and register encodings that a controller and a part
which implements the mechanisms agree on; the command bytes and feature
addresses themselves come from the chip profile's `vendor` section
(contract 3). The byte-level protocol of each operation:

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
  (`pbm_bytes` bytes, bit w = WL w), then per further block CMD
  mws.cont_cmd, ADDR row, ADDR page bitmap; CMD mws.confirm_cmd. The SLC read
  reference (default + offset) is applied to every selected WL.
- latch XOR: CMD latch_xor.cmd: C-latch = S-latch XOR C-latch.
- ESP: SET FEATURES esp.feature P1..P4 (`esp_params`).
- sensing time: SET FEATURES sense_time.feature P1..P2 (`SENSE_TIME_UNIT_US` units,
  little endian).
- MWS block-limit override: SET FEATURES mws.override_feature P1 = 1.
"""

from __future__ import annotations

from enum import IntEnum, IntFlag

SENSE_TIME_UNIT_US = 0.01
"""Unit of the sensing-time feature register (10 ns)."""
VREAD_SLC = 0xFE
"""Latch sensing argument selecting the SLC read reference."""
ESP_START_UNIT_MV = 20.0
"""ESP feature P1: signed ISPP start offset, in 20 mV units."""
ESP_STEP_UNIT_MV = 10.0
"""ESP feature P2: ESP-phase step, in 10 mV units (0 = no ESP phase)."""
ESP_VERIFY_UNIT_MV = 20.0
"""ESP feature P3: verify raise above the SLC verify level, in 20 mV units."""


class Node(IntEnum):
    """Latch nodes of the page buffer (ParaBit's names), as test-mode operations select them."""

    SO = 0  # sense node: 1 where the sensed cell did not conduct (Vth >= reference)
    A = 1  # L1 (sensing latch, S-latch) = the data register
    C = 2  # not A
    B = 3  # not OUT
    OUT = 4  # L2 (cache latch, C-latch) = the cache register: data out comes from here


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


def pbm_bytes(wls_per_block: int) -> int:
    """Bytes of an MWS page bitmap for a block of `wls_per_block` WLs (bit w = WL w)."""
    return (wls_per_block + 7) // 8


def esp_params(
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
