"""Result streams: encode / decode round trips, helpers, errors, malformed input."""

from __future__ import annotations

import struct
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nandlab.errors import NandTimeout, OpProgramError, TransportError
from nandlab.ops import (
    MAX_LEN,
    BusyRecord,
    DataRecord,
    EndRecord,
    ErrCountRecord,
    ErrorCode,
    ErrorRecord,
    MarkRecord,
    PowerRecord,
    Record,
    Results,
    decode_results,
    encode_results,
)

U32 = 2**32 - 1
u32 = st.integers(0, U32)
u64 = st.integers(0, 2**64 - 1)
records: st.SearchStrategy[Record] = st.one_of(
    st.builds(DataRecord, st.binary(min_size=1, max_size=40)),
    st.builds(BusyRecord, st.integers(0, 0xFFFFFF), u32),
    st.builds(ErrCountRecord, st.integers(1, MAX_LEN), st.lists(st.tuples(u32, u32), max_size=6)),
    st.builds(PowerRecord, st.integers(1, U32), st.lists(u32, max_size=6)),
    st.builds(MarkRecord, st.integers(0, 0xFFFFFF), u64),
    st.builds(ErrorRecord, st.sampled_from(ErrorCode), u32),
)
streams = st.builds(
    lambda body, end: Results([*body, end]),
    st.lists(records, max_size=10),
    st.builds(EndRecord, u64),
)


def words(*values: int) -> bytes:
    return struct.pack(f"<{len(values)}I", *values)


END = (0x86000000, 0, 0)


@given(streams)
def test_results_round_trip(results: Results) -> None:
    data = encode_results(results)
    assert data == results.encode()
    assert decode_results(data) == results


@given(streams, st.data())
def test_every_truncation_is_rejected(results: Results, data: st.DataObject) -> None:
    encoded = results.encode()
    cut = data.draw(st.integers(0, len(encoded) // 4 - 1)) * 4
    with pytest.raises(OpProgramError, match="word"):
        decode_results(encoded[:cut])


@given(streams, st.data())
def test_corrupted_word_is_rejected_or_canonical(results: Results, data: st.DataObject) -> None:
    encoded = bytearray(results.encode())
    pos = data.draw(st.integers(0, len(encoded) // 4 - 1))
    encoded[4 * pos : 4 * pos + 4] = words(data.draw(u32))
    try:
        decoded = decode_results(bytes(encoded))
    except OpProgramError:
        return
    assert decoded.encode() == bytes(encoded)


def test_known_encoding() -> None:
    results = Results(
        [
            BusyRecord(4, 25_000),
            DataRecord(b"\xe0\x01\x02"),
            ErrCountRecord(1024, [(3, 1), (0, 2)]),
            PowerRecord(500, [12000, 15000]),
            MarkRecord(9, 0x1_0000_0002),
            EndRecord(0x2_0000_0001),
        ]
    )
    assert results.encode() == words(
        0x81000004, 25_000,
        0x80000003, 0x000201E0,
        0x82000002, 1024, 3, 1, 0, 2,
        0x83000002, 500, 12000, 15000,
        0x84000009, 2, 1,
        0x86000000, 1, 2,
    )  # fmt: skip


def test_helpers() -> None:
    results = decode_results(
        Results(
            [
                BusyRecord(3, 100),
                DataRecord(b"ab"),
                BusyRecord(7, 250),
                DataRecord(b"c"),
                ErrCountRecord(8, np.array([[1, 2], [3, 4]])),  # type: ignore[arg-type]
                PowerRecord(1000, np.arange(3)),  # type: ignore[arg-type]
                MarkRecord(1, 55),
                EndRecord(1234),
            ]
        ).encode()
    )
    assert results.data == [b"ab", b"c"]
    assert results.busy_ns == [100, 250]
    assert results.elapsed_ns == 1234
    assert results.errors == []
    assert results.err_counts == [ErrCountRecord(8, ((1, 2), (3, 4)))]
    assert (results.err_counts[0].err_0to1, results.err_counts[0].err_1to0) == (4, 6)
    assert results.power[0].samples_uA == (0, 1, 2)
    assert results.marks == [MarkRecord(1, 55)]
    results.raise_for_errors()


@pytest.mark.parametrize(
    ("code", "exc"),
    [
        (ErrorCode.TIMEOUT, NandTimeout),
        (ErrorCode.TRANSPORT, TransportError),
        (ErrorCode.OVERFLOW, OpProgramError),
        (ErrorCode.BAD_OPCODE, OpProgramError),
        (ErrorCode.TRUNCATED, OpProgramError),
        (ErrorCode.BAD_ARG, OpProgramError),
        (ErrorCode.NO_TARGET, OpProgramError),
    ],
)
def test_raise_for_errors_names_the_instruction(code: ErrorCode, exc: type[Exception]) -> None:
    results = Results([BusyRecord(1, 5), ErrorRecord(code, 12), EndRecord(0)])
    assert results.errors == [ErrorRecord(code, 12)]
    with pytest.raises(exc, match=f"instruction 12: {code.name}"):
        results.raise_for_errors()


def test_elapsed_needs_an_end_record() -> None:
    with pytest.raises(OpProgramError, match="no END record"):
        _ = Results([DataRecord(b"x")]).elapsed_ns


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (lambda: DataRecord(b""), r"DATA.n = 0 is outside 1..16777215"),
        (lambda: BusyRecord(1 << 24, 0), r"BUSY.index = 16777216 is outside 0..16777215"),
        (lambda: ErrCountRecord(0, []), r"ERRCNT.chunk_bytes = 0 is outside 1..16777215"),
        (lambda: ErrCountRecord(8, [(1, 2, 3)]), r"ERRCNT.counts: each entry needs 2"),  # type: ignore[list-item]
        (lambda: ErrCountRecord(8, [(1, -2)]), r"ERRCNT.counts = -2"),
        (lambda: ErrCountRecord(8, [1]), r"ERRCNT.counts must be .* pairs"),  # type: ignore[list-item]
        (lambda: PowerRecord(0, []), r"POWER.period_ns = 0 is outside 1.."),
        (lambda: PowerRecord(1, [1 << 32]), r"POWER.samples_uA = 4294967296"),
        (lambda: MarkRecord(0, 1 << 64), r"MARK.t_ns = 18446744073709551616"),
        (lambda: ErrorRecord(9, 0), r"ERROR.code 9 is not one of 1 TIMEOUT"),  # type: ignore[arg-type]
        (lambda: EndRecord(-1), r"END.elapsed_ns = -1"),
    ],
)
def test_construction_checks_ranges(build: Callable[[], object], match: str) -> None:
    with pytest.raises(OpProgramError, match=match):
        build()


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"\x86\x00", r"2 bytes, not a whole number of words"),
        (b"", r"word 0: result stream ends without END"),
        (words(0x81000000, 5), r"word 2: result stream ends without END"),
        (words(0x87000000, *END), r"word 0: unknown result tag 0x87"),
        (words(0x00000000, *END), r"word 0: unknown result tag 0x00"),
        (words(0x80000005, 0), r"word 0: DATA is truncated: data needs 2 word"),
        (words(0x82000002, 8, 1, 2, 3), r"word 0: ERRCNT is truncated: counts needs 4 word"),
        (words(0x86000000, 1), r"word 0: END is truncated: elapsed_ns needs 2 word"),
        (words(0x86000001, 0, 0), r"word 0: END arg 0x000001 sets reserved bits"),
        (words(0x85000009, 0, *END), r"word 0 \(ERROR record\): ERROR.code 9 is not one of"),
        (words(0x85000000, 0, *END), r"ERROR.code 0 is not one of"),
        (words(0x82000000, 0, *END), r"ERRCNT.chunk_bytes = 0"),
        (words(0x80000000, *END), r"DATA.n = 0 is outside"),
        (words(0x80000001, 0x100, *END), r"padding bytes of the last word are not zero"),
        (words(*END, 0x86000000), r"word 0: END is followed by 1 more word"),
    ],
)
def test_malformed_streams(data: bytes, match: str) -> None:
    with pytest.raises(OpProgramError, match=match):
        decode_results(data)
