"""Result records of a run op program and the tagged result stream (contract 1).

A bench answers a program with a stream of 32-bit little-endian words: per
record a header word (bits[31:24] tag, bits[23:0] arg) and trailing words,
closed by an END record (spec.yaml, `result_tags`). Times are in ns, currents
in µA, instruction indices count the program's instructions from 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar, TypeVar

from nandlab.errors import NandTimeout, OpProgramError, TransportError
from nandlab.ops._generated import ERROR_TEXT, RESULT_LAYOUTS, ErrorCode, ResultTag
from nandlab.ops.layout import CODE_SHIFT, WORD, Item, Layout, converted, enum_member, unpack


class Record(Item):
    """Base of the result records."""


@dataclass(frozen=True)
class DataRecord(Record):
    """Bytes read by a DOUT (1..0xFFFFFF bytes)."""

    LAYOUT: ClassVar[Layout] = RESULT_LAYOUTS[ResultTag.DATA]
    data: bytes


@dataclass(frozen=True)
class BusyRecord(Record):
    """R/B# low time `busy_ns` (u32, ns) seen by the WAIT_RDY at instruction `index`."""

    LAYOUT: ClassVar[Layout] = RESULT_LAYOUTS[ResultTag.BUSY]
    index: int
    busy_ns: int


@dataclass(frozen=True)
class ErrCountRecord(Record):
    """Bit error counts of a DOUT_CMP, one (err_0to1, err_1to0) pair per chunk.

    err_0to1 counts bits expected 0 and read 1, err_1to0 bits expected 1 and
    read 0 (each u32). Chunks are `chunk_bytes` (1..0xFFFFFF) long, the last
    one possibly shorter. `counts` accepts any sequence of pairs (or an
    (n, 2) array) and is stored as a tuple of int pairs.
    """

    LAYOUT: ClassVar[Layout] = RESULT_LAYOUTS[ResultTag.ERRCNT]
    chunk_bytes: int
    counts: Sequence[tuple[int, int]]

    def __post_init__(self) -> None:
        counts = converted(
            lambda c: tuple(tuple(int(v) for v in pair) for pair in c),
            self.counts,
            "ERRCNT.counts must be (err_0to1, err_1to0) integer pairs",
        )
        object.__setattr__(self, "counts", counts)
        super().__post_init__()

    @property
    def err_0to1(self) -> int:
        """Bits expected 0 and read 1, over all chunks."""
        return sum(pair[0] for pair in self.counts)

    @property
    def err_1to0(self) -> int:
        """Bits expected 1 and read 0, over all chunks."""
        return sum(pair[1] for pair in self.counts)


@dataclass(frozen=True)
class PowerRecord(Record):
    """Supply-current samples (u32, µA) of a POWER window, one per `period_ns` (ns).

    `samples_uA` accepts any sequence of ints (or a 1-D array) and is stored
    as a tuple.
    """

    LAYOUT: ClassVar[Layout] = RESULT_LAYOUTS[ResultTag.POWER]
    period_ns: int
    samples_uA: Sequence[int]

    def __post_init__(self) -> None:
        samples = converted(
            lambda s: tuple(int(v) for v in s), self.samples_uA, "POWER.samples_uA must be integers"
        )
        object.__setattr__(self, "samples_uA", samples)
        super().__post_init__()


@dataclass(frozen=True)
class MarkRecord(Record):
    """MARK `id` (0..0xFFFFFF) reached at `t_ns` (u64, ns since the program started)."""

    LAYOUT: ClassVar[Layout] = RESULT_LAYOUTS[ResultTag.MARK]
    id: int
    t_ns: int


@dataclass(frozen=True)
class ErrorRecord(Record):
    """The instruction at `index` (u32) failed with `code`; the program stopped there."""

    LAYOUT: ClassVar[Layout] = RESULT_LAYOUTS[ResultTag.ERROR]
    code: ErrorCode
    index: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "code", enum_member(ErrorCode, self.code, "ERROR.code"))
        super().__post_init__()

    @property
    def message(self) -> str:
        """What went wrong, for a person."""
        return f"instruction {self.index}: {self.code.name}: {ERROR_TEXT[self.code]}"


@dataclass(frozen=True)
class EndRecord(Record):
    """Closes the stream; `elapsed_ns` (u64, ns) is the time the program took."""

    LAYOUT: ClassVar[Layout] = RESULT_LAYOUTS[ResultTag.END]
    elapsed_ns: int


_BY_TAG: dict[int, type[Record]] = {
    cls.LAYOUT.code: cls
    for cls in (
        DataRecord,
        BusyRecord,
        ErrCountRecord,
        PowerRecord,
        MarkRecord,
        ErrorRecord,
        EndRecord,
    )
}

R = TypeVar("R", bound=Record)


class Results(list[Record]):
    """The records of one program run, in stream order, with helpers."""

    def of_type(self, kind: type[R]) -> list[R]:
        """The records of one type, in order."""
        return [r for r in self if isinstance(r, kind)]

    @property
    def data(self) -> list[bytes]:
        """Bytes of every DATA record (one per DOUT), in order."""
        return [r.data for r in self.of_type(DataRecord)]

    @property
    def busy_ns(self) -> list[int]:
        """Busy time in ns of every BUSY record (one per WAIT_RDY), in order."""
        return [r.busy_ns for r in self.of_type(BusyRecord)]

    @property
    def err_counts(self) -> list[ErrCountRecord]:
        """Every ERRCNT record (one per DOUT_CMP), in order."""
        return self.of_type(ErrCountRecord)

    @property
    def power(self) -> list[PowerRecord]:
        """Every POWER record (one per POWER stop), in order."""
        return self.of_type(PowerRecord)

    @property
    def marks(self) -> list[MarkRecord]:
        """Every MARK record, in order."""
        return self.of_type(MarkRecord)

    @property
    def errors(self) -> list[ErrorRecord]:
        """Every ERROR record, in order."""
        return self.of_type(ErrorRecord)

    @property
    def elapsed_ns(self) -> int:
        """Time the program took in ns, from the END record (OpProgramError if none)."""
        ends = self.of_type(EndRecord)
        if not ends:
            raise OpProgramError("the results have no END record")
        return ends[-1].elapsed_ns

    def raise_for_errors(self) -> None:
        """Raise for the first ERROR record, naming the failing instruction index.

        TIMEOUT raises NandTimeout, TRANSPORT raises TransportError, every
        other code OpProgramError.
        """
        for err in self.errors:
            if err.code == ErrorCode.TIMEOUT:
                raise NandTimeout(err.message)
            if err.code == ErrorCode.TRANSPORT:
                raise TransportError(err.message)
            raise OpProgramError(err.message)

    def encode(self) -> bytes:
        """The records as a result stream (see encode_results)."""
        return encode_results(self)


def encode_results(records: Iterable[Record]) -> bytes:
    """The records as little-endian words, in order (an END record is not added)."""
    return b"".join(r.encode() for r in records)


def decode_results(data: bytes) -> Results:
    """Parse a result stream, which must end with its END record and nothing after.

    Raises OpProgramError naming the word offset and what is wrong: unknown
    tag, truncated record, value out of range, reserved bits set, missing END.
    """
    if len(data) % 4:
        raise OpProgramError(f"result stream is {len(data)} bytes, not a whole number of words")
    nwords = len(data) // 4
    results = Results()
    pos = 0
    while pos < nwords:
        (header,) = WORD.unpack_from(data, 4 * pos)
        kind = _BY_TAG.get(header >> CODE_SHIFT)
        if kind is None:
            raise OpProgramError(f"word {pos}: unknown result tag 0x{header >> CODE_SHIFT:02X}")
        values, end = unpack(kind.LAYOUT, data, pos)
        try:
            results.append(kind.from_values(values))
        except OpProgramError as exc:
            raise OpProgramError(f"word {pos} ({kind.LAYOUT.name} record): {exc}") from None
        if kind is EndRecord:
            if end != nwords:
                raise OpProgramError(f"word {pos}: END is followed by {nwords - end} more word(s)")
            return results
        pos = end
    raise OpProgramError(f"word {nwords}: result stream ends without END")
