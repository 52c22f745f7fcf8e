"""Mailbox protocol numbers (firmware/src/fw.h; a test checks both agree)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, IntFlag
from typing import Any

from nandlab.errors import NandlabError, RefusedOperation
from nandlab.ops import Pattern


class Command(IntEnum):
    """MBX_CMD.CODE."""

    PING = 0x01
    SESSION = 0x02
    RUN_PROGRAM = 0x03
    RUN_LOOP = 0x04
    ABORT = 0x05
    END_SESSION = 0x06
    LIMITS = 0x07
    MONITOR = 0x08
    THERMAL = 0x09
    THERMAL_GAINS = 0x0A
    CURRENT = 0x0B
    LOAD = 0x0C


class Monitor(IntEnum):
    """MONITOR parts: the supply-current monitor the firmware's limits read."""

    NONE = 0
    INA226 = 1
    INA228 = 2


class State(IntEnum):
    """MBX_STATUS.STATE."""

    IDLE = 0
    BUSY = 1
    DONE = 2
    ERROR = 3


class FwError(IntEnum):
    """MBX_STATUS.ERROR; what MBX_RESULT then holds is in docs/firmware.md."""

    OK = 0
    BAD_CMD = 1
    BAD_ARG = 2
    NOT_PERMITTED = 3
    CHIP_TIMEOUT = 4
    SEQ_STUCK = 5
    SEQ_ERROR = 6
    RESULT_FULL = 7
    ABORTED = 8
    BAD_PROGRAM = 9
    OVER_CURRENT = 10
    OVER_TEMP = 11
    NO_SENSOR = 12


class Permit(IntFlag):
    """SESSION permit bits."""

    ERASE = 0x1
    PROGRAM = 0x2
    TEST_MODE = 0x4


class LoopKind(IntEnum):
    """Descriptor word KIND."""

    PE_CYCLE = 1
    READ_SWEEP = 2
    READ_DISTURB = 3
    VTH_HIST = 4


REC_PE = 0xC0
"""Ring record of one P/E cycle: cycle, erase_ns, program_ns, status_fails, err_0to1, err_1to0."""
REC_SWEEP = 0xC1
"""Ring record of one sweep step: offset, read_ns, err_0to1, err_1to0."""
REC_DISTURB = 0xC2
"""Ring record of one read-disturb checkpoint: checkpoint, reads (of the aggressor so far),
read_ns (their busy time in this checkpoint), err_0to1, err_1to0 (over the other pages)."""
REC_HIST = 0xC3
"""Ring record of one histogram step: offset, read_ns, ones_below, zeros_below: the cells
written 1 / written 0 that read 1 (Vth below the reference) at that offset, over the pages."""
REC_FIELDS = {
    REC_PE: ("cycle", "erase_ns", "program_ns", "status_fails", "err_0to1", "err_1to0"),
    REC_SWEEP: ("offset", "read_ns", "err_0to1", "err_1to0"),
    REC_DISTURB: ("checkpoint", "reads", "read_ns", "err_0to1", "err_1to0"),
    REC_HIST: ("offset", "read_ns", "ones_below", "zeros_below"),
}
DESCRIPTOR_WORDS = 13


class FirmwareError(NandlabError):
    """The firmware answered a command with an error code."""

    def __init__(self, error: FwError, detail: int, command: Command | int) -> None:
        self.error = error
        self.detail = detail
        self.command = command
        name = command.name if isinstance(command, Command) else f"0x{command:02X}"
        super().__init__(f"firmware refused or failed {name}: {error.name} (detail {detail})")


class FirmwareRefused(FirmwareError, RefusedOperation):
    """NOT_PERMITTED: the session lacks the erase / program / test-mode permit."""


class FirmwareLimit(FirmwareError, RefusedOperation):
    """OVER_CURRENT / OVER_TEMP: the board is past a limit of the session (detail: the
    reading, mA or m°C); NO_SENSOR: a limit is set but the board cannot read it (detail:
    0 current, 1 temperature). Nothing more ran on the chip."""


LIMIT_ERRORS = frozenset({FwError.OVER_CURRENT, FwError.OVER_TEMP, FwError.NO_SENSOR})


@dataclass(frozen=True)
class LoopDescriptor:
    """What RUN_LOOP runs: `count` P/E cycles of one block, `count` read-offset
    steps (`first`, `first + step`, ...; signed 8-bit offsets) over its first `pages`,
    or `count` read-disturb checkpoints: `reads` senses of page `aggressor` (from `row`),
    then a verify of the other first `pages`."""

    kind: LoopKind
    row: int
    pages: int
    page_bytes: int
    pattern: Pattern
    count: int
    timeout_ns: int
    target: int = 0
    seed: int = 0
    chunk: int = 512
    feature: int = 0
    first: int = 0
    step: int = 1
    aggressor: int = 0
    reads: int = 0

    def words(self) -> list[int]:
        """The descriptor as RUN_LOOP reads it from shared RAM (words 10 and 11 are the
        sweep's feature and first offset, or the disturb loop's aggressor and reads)."""
        if self.kind == LoopKind.READ_DISTURB:
            tail = [self.aggressor, self.reads, 0]
        else:
            tail = [self.feature, self.first & 0xFF, self.step & 0xFF]
        return [
            int(self.kind), self.target, self.row, self.pages, self.page_bytes,
            self.pattern.word, self.seed, self.chunk, self.count, self.timeout_ns, *tail,
        ]


def decode_rows(words: list[int]) -> list[dict[str, Any]]:
    """The loop records of a result ring's words, as rows."""
    rows: list[dict[str, Any]] = []
    i = 0
    while i < len(words):
        tag, n = words[i] >> 24, words[i] & 0xFFFFFF
        fields = REC_FIELDS.get(tag)
        if fields is None or n != len(fields) or i + 1 + n > len(words):
            raise NandlabError(f"result ring word {i}: not a loop record (0x{words[i]:08X})")
        row = dict(zip(fields, words[i + 1:i + 1 + n], strict=True))
        if tag in (REC_SWEEP, REC_HIST):
            row["offset"] = row["offset"] - (1 << 32) if row["offset"] >> 31 else row["offset"]
        rows.append(row)
        i += 1 + n
    return rows
