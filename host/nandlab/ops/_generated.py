# generated from host/nandlab/ops/spec.yaml by nandlab.ops.codegen, do not edit
"""Op program constants and layouts (contract 1), spec version 1.

Regenerate with `python -m nandlab.ops.codegen`.
"""

from enum import IntEnum

from nandlab.ops.layout import U64, Bytes, Field, Layout, Repeat, Word

#: version of spec.yaml
SPEC_VERSION = 1
#: bytes per stream word
WORD_BYTES = 4
#: most address cycles one ADDR latches
MAX_ADDR_BYTES = 8
#: largest byte count of DIN / DIN_PAT / DOUT / DOUT_CMP
MAX_LEN = 0xFFFFFF
#: highest chip-enable index
MAX_TARGET = 0xFF
#: longest DELAY in ns
MAX_DELAY_NS = 0xFFFFFF
#: highest MARK id
MAX_ID = 0xFFFFFF
#: highest ONFI SDR timing mode
MAX_SDR_MODE = 5
#: highest timing mode number of any interface (which exist is per interface)
MAX_TIMING_MODE = 0x0F
#: most instructions in a program (indices are 24 bits)
MAX_INSTRUCTIONS = 0x1000000
#: largest value of a 32-bit word
MAX_U32 = 0xFFFFFFFF
#: opcode (program) or tag (result stream)
HEADER_CODE_LSB = 24
HEADER_CODE_WIDTH = 8
#: argument; layout per opcode / tag
HEADER_ARG_LSB = 0
HEADER_ARG_WIDTH = 24
#: pattern kind
PATTERN_KIND_LSB = 0
PATTERN_KIND_WIDTH = 8
#: 1 = every byte XOR 0xFF
PATTERN_INVERT_LSB = 8
PATTERN_INVERT_WIDTH = 1
#: CONST: the byte; CHECKER: phase (0 or 1)
PATTERN_PARAM_LSB = 16
PATTERN_PARAM_WIDTH = 8
#: WP# level: 1 = writes allowed
GPIO_WP_N_LSB = 0
GPIO_WP_N_WIDTH = 1
#: supply enables (board specific)
GPIO_SUPPLY_EN_LSB = 1
GPIO_SUPPLY_EN_WIDTH = 7
#: CHECKER byte for phase 0
CHECKER_BYTE_0 = 0x55
#: CHECKER byte for phase 1
CHECKER_BYTE_1 = 0xAA
#: PRBS state used for seed 0
PRBS_DEFAULT_SEED = 0x6A09E667
#: xorshift32 shift <<
PRBS_SHIFT_0 = 13
#: xorshift32 shift >>
PRBS_SHIFT_1 = 17
#: xorshift32 shift <<
PRBS_SHIFT_2 = 5


class Opcode(IntEnum):
    """Instruction opcodes (header bits[31:24] of a program)."""

    #: marks the end of a program
    END = 0x00
    #: select chip-enable target
    CE = 0x01
    #: latch one command byte
    CMD = 0x02
    #: latch 1..8 address bytes, first byte first
    ADDR = 0x03
    #: send n bytes from the host to the chip
    DIN = 0x04
    #: send n bytes from the on-board pattern generator to the chip
    DIN_PAT = 0x05
    #: read n bytes from the chip to the host (DATA record)
    DOUT = 0x06
    #: read n bytes into the on-board comparator against the generated pattern; yields an
    #: ERRCNT record with one count pair per chunk (last chunk may be short)
    DOUT_CMP = 0x07
    #: wait for R/B# high; yields a BUSY record, or an ERROR TIMEOUT record
    WAIT_RDY = 0x08
    #: wait a fixed time (tWB, tWHR, tADL, tCCS, tFEAT...)
    DELAY = 0x09
    #: record a timestamp (MARK record)
    MARK = 0x0A
    #: open (start) or close (stop) a supply-current sampling window; stop yields a POWER
    #: record
    POWER = 0x0B
    #: change the data interface, its timing mode and (DDR interfaces) the warm-up cycles
    #: the controller adds before a data burst, as SET FEATURES 02h told the die
    TIMING = 0x0C
    #: drive WP# and the supply enables; only bits set in mask change
    GPIO = 0x0D


class ResultTag(IntEnum):
    """Result record tags (header bits[31:24] of a result stream)."""

    #: bytes read by DOUT
    DATA = 0x80
    #: R/B# low time seen by a WAIT_RDY
    BUSY = 0x81
    #: per-chunk bit error counts of a DOUT_CMP
    ERRCNT = 0x82
    #: supply-current samples of a POWER window
    POWER = 0x83
    #: timestamp of a MARK
    MARK = 0x84
    #: an instruction failed; the program stops
    ERROR = 0x85
    #: closes the result stream
    END = 0x86


class ErrorCode(IntEnum):
    """Codes of ERROR result records."""

    #: R/B# did not return high within the WAIT_RDY timeout
    TIMEOUT = 0x01
    #: the result stream overflowed the bench's buffer
    OVERFLOW = 0x02
    #: unknown opcode
    BAD_OPCODE = 0x03
    #: the program ended inside an instruction or without END
    TRUNCATED = 0x04
    #: an argument is out of range
    BAD_ARG = 0x05
    #: the selected chip-enable target is not present
    NO_TARGET = 0x06
    #: the link to the bench failed
    TRANSPORT = 0x07


class PatternKind(IntEnum):
    """Pattern generator kinds (pattern word bits[7:0])."""

    #: every byte = param
    CONST = 0x00
    #: every byte = CHECKER_BYTES[phase]
    CHECKER = 0x01
    #: xorshift32 stream from the seed
    PRBS = 0x02


class Interface(IntEnum):
    """Data interfaces (TIMING arg bits[6:4])."""

    #: ONFI SDR
    SDR = 0x00
    #: ONFI NV-DDR
    NV_DDR = 0x01
    #: ONFI NV-DDR2
    NV_DDR2 = 0x02
    #: ONFI NV-DDR3 (NV-DDR2 signalling at 1.2 V VccQ)
    NV_DDR3 = 0x03
    #: JEDEC Toggle DDR (2.0 and later)
    TOGGLE = 0x04


#: What each error code means, for error messages.
ERROR_TEXT: dict[ErrorCode, str] = {
    ErrorCode.TIMEOUT: "R/B# did not return high within the WAIT_RDY timeout",
    ErrorCode.OVERFLOW: "the result stream overflowed the bench's buffer",
    ErrorCode.BAD_OPCODE: "unknown opcode",
    ErrorCode.TRUNCATED: "the program ended inside an instruction or without END",
    ErrorCode.BAD_ARG: "an argument is out of range",
    ErrorCode.NO_TARGET: "the selected chip-enable target is not present",
    ErrorCode.TRANSPORT: "the link to the bench failed",
}

#: Layout of each opcode, by opcode value.
OP_LAYOUTS: dict[int, Layout] = {
    0x00: Layout(
        0x00,
        "END",
    ),
    0x01: Layout(
        0x01,
        "CE",
        fields=(
            Field("target", 0, 8, 0, 0xFF),
        ),
    ),
    0x02: Layout(
        0x02,
        "CMD",
        fields=(
            Field("byte", 0, 8, 0, 0xFF),
        ),
    ),
    0x03: Layout(
        0x03,
        "ADDR",
        fields=(
            Field("n", 0, 4, 1, 8),
        ),
        trailing=(
            Bytes("data", "n"),
        ),
    ),
    0x04: Layout(
        0x04,
        "DIN",
        fields=(
            Field("n", 0, 24, 1, 0xFFFFFF),
        ),
        trailing=(
            Bytes("data", "n"),
        ),
    ),
    0x05: Layout(
        0x05,
        "DIN_PAT",
        fields=(
            Field("n", 0, 24, 1, 0xFFFFFF),
        ),
        trailing=(
            Word("pattern", 0, 0xFFFFFFFF),
            Word("seed", 0, 0xFFFFFFFF),
        ),
    ),
    0x06: Layout(
        0x06,
        "DOUT",
        fields=(
            Field("n", 0, 24, 1, 0xFFFFFF),
        ),
    ),
    0x07: Layout(
        0x07,
        "DOUT_CMP",
        fields=(
            Field("n", 0, 24, 1, 0xFFFFFF),
        ),
        trailing=(
            Word("pattern", 0, 0xFFFFFFFF),
            Word("seed", 0, 0xFFFFFFFF),
            Word("chunk", 1, 0xFFFFFF),
        ),
    ),
    0x08: Layout(
        0x08,
        "WAIT_RDY",
        trailing=(
            Word("timeout_ns", 0, 0xFFFFFFFF),
        ),
    ),
    0x09: Layout(
        0x09,
        "DELAY",
        fields=(
            Field("ns", 0, 24, 0, 0xFFFFFF),
        ),
    ),
    0x0A: Layout(
        0x0A,
        "MARK",
        fields=(
            Field("id", 0, 24, 0, 0xFFFFFF),
        ),
    ),
    0x0B: Layout(
        0x0B,
        "POWER",
        fields=(
            Field("start", 0, 1, 0, 1),
        ),
        trailing=(
            Word("period_ns", 1, 0xFFFFFFFF, when="start"),
        ),
    ),
    0x0C: Layout(
        0x0C,
        "TIMING",
        fields=(
            Field("mode", 0, 4, 0, 0x0F),
            Field("interface", 4, 3, 0, 4),
            Field("warmup_out", 8, 2, 0, 3),
            Field("warmup_in", 10, 2, 0, 3),
        ),
    ),
    0x0D: Layout(
        0x0D,
        "GPIO",
        fields=(
            Field("value", 0, 8, 0, 0xFF),
            Field("mask", 8, 8, 0, 0xFF),
        ),
    ),
}

#: Layout of each tag, by tag value.
RESULT_LAYOUTS: dict[int, Layout] = {
    0x80: Layout(
        0x80,
        "DATA",
        fields=(
            Field("n", 0, 24, 1, 0xFFFFFF),
        ),
        trailing=(
            Bytes("data", "n"),
        ),
    ),
    0x81: Layout(
        0x81,
        "BUSY",
        fields=(
            Field("index", 0, 24, 0, 0xFFFFFF),
        ),
        trailing=(
            Word("busy_ns", 0, 0xFFFFFFFF),
        ),
    ),
    0x82: Layout(
        0x82,
        "ERRCNT",
        fields=(
            Field("n", 0, 24, 0, 0xFFFFFF),
        ),
        trailing=(
            Word("chunk_bytes", 1, 0xFFFFFF),
            Repeat("counts", "n", ("err_0to1", "err_1to0",)),
        ),
    ),
    0x83: Layout(
        0x83,
        "POWER",
        fields=(
            Field("n", 0, 24, 0, 0xFFFFFF),
        ),
        trailing=(
            Word("period_ns", 1, 0xFFFFFFFF),
            Repeat("samples_uA", "n", ("current_uA",)),
        ),
    ),
    0x84: Layout(
        0x84,
        "MARK",
        fields=(
            Field("id", 0, 24, 0, 0xFFFFFF),
        ),
        trailing=(
            U64("t_ns"),
        ),
    ),
    0x85: Layout(
        0x85,
        "ERROR",
        fields=(
            Field("code", 0, 24, 1, 0xFFFFFF),
        ),
        trailing=(
            Word("index", 0, 0xFFFFFFFF),
        ),
    ),
    0x86: Layout(
        0x86,
        "END",
        trailing=(
            U64("elapsed_ns"),
        ),
    ),
}
