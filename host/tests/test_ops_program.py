"""Op programs: encode / decode round trips, construction checks, malformed input."""

from __future__ import annotations

import doctest
import struct
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

import nandlab.ops.pattern
import nandlab.ops.program
from nandlab.errors import OpProgramError
from nandlab.ops import (
    MAX_LEN,
    Addr,
    Ce,
    Cmd,
    Delay,
    Din,
    DinPattern,
    Dout,
    DoutCompare,
    Gpio,
    Instruction,
    Mark,
    Pattern,
    Power,
    Program,
    Timing,
    WaitRdy,
)

U32 = 2**32 - 1
u32 = st.integers(0, U32)
lengths = st.integers(1, MAX_LEN)
patterns = st.one_of(
    st.builds(Pattern.constant, st.integers(0, 255), st.booleans()),
    st.builds(Pattern.checker, st.integers(0, 1), st.booleans()),
    st.builds(Pattern.prbs, st.booleans()),
)
instructions: st.SearchStrategy[Instruction] = st.one_of(
    st.builds(Ce, st.integers(0, 255)),
    st.builds(Cmd, st.integers(0, 255)),
    st.builds(Addr, st.binary(min_size=1, max_size=8)),
    st.builds(Din, st.binary(min_size=1, max_size=40)),
    st.builds(DinPattern, lengths, patterns, u32),
    st.builds(Dout, lengths),
    st.builds(DoutCompare, lengths, patterns, u32, lengths),
    st.builds(WaitRdy, u32),
    st.builds(Delay, st.integers(0, 0xFFFFFF)),
    st.builds(Mark, st.integers(0, 0xFFFFFF)),
    st.builds(Power, st.just(True), st.integers(1, U32)),
    st.just(Power(False)),
    st.builds(Timing, st.integers(0, 5), st.integers(0, 2)),
    st.builds(Gpio, st.integers(0, 255), st.integers(0, 255)),
)
programs = st.lists(instructions, max_size=12).map(Program)


def words(*values: int) -> bytes:
    return struct.pack(f"<{len(values)}I", *values)


END = 0x00000000


@given(programs)
def test_program_round_trip(program: Program) -> None:
    data = program.encode()
    assert len(data) % 4 == 0
    assert data[-4:] == words(END)
    assert Program.decode(data) == program


@given(programs, st.data())
def test_every_truncation_is_rejected(program: Program, data: st.DataObject) -> None:
    encoded = program.encode()
    cut = data.draw(st.integers(0, len(encoded) // 4 - 1)) * 4
    with pytest.raises(OpProgramError, match="word"):
        Program.decode(encoded[:cut])


@given(programs, st.data())
def test_corrupted_word_is_rejected_or_canonical(program: Program, data: st.DataObject) -> None:
    encoded = bytearray(program.encode())
    pos = data.draw(st.integers(0, len(encoded) // 4 - 1))
    encoded[4 * pos : 4 * pos + 4] = words(data.draw(u32))
    try:
        decoded = Program.decode(bytes(encoded))
    except OpProgramError:
        return
    assert decoded.encode() == bytes(encoded)


def test_docstring_examples() -> None:
    for module in (nandlab.ops.program, nandlab.ops.pattern):
        assert doctest.testmod(module).failed == 0, module.__name__


def test_known_encoding() -> None:
    program = (
        Program()
        .ce(1)
        .cmd(0x00)
        .addr(b"\x00\x00\x05\x01\x00")
        .cmd(0x30)
        .wait_rdy(200_000)
        .dout_compare(18592, Pattern.prbs(invert=True), 7, 1024)
        .power_start(500)
        .power_stop()
        .timing(4, 1)
        .gpio(0x01, 0x01)
    )
    assert program.encode() == words(
        0x01000001,
        0x02000000,
        0x03000005, 0x01050000, 0x00000000,
        0x02000030,
        0x08000000, 200_000,
        0x07000000 | 18592, 0x00000102, 7, 1024,
        0x0B000001, 500,
        0x0B000000,
        0x0C000014,
        0x0D000101,
        END,
    )  # fmt: skip


def test_din_pads_the_last_word_with_zeros() -> None:
    assert Program([Din(b"\x01\x02\x03\x04\x05")]).encode() == words(
        0x04000005, 0x04030201, 0x00000005, END
    )


def test_program_is_a_list_of_instructions() -> None:
    program = Program().ce(0).cmd(0x70).dout(1)
    assert len(program) == 3
    assert program[1] == Cmd(0x70)
    assert program[1:] == Program([Cmd(0x70), Dout(1)])
    assert list(program) == [Ce(0), Cmd(0x70), Dout(1)]
    with pytest.raises(OpProgramError, match="not an instruction"):
        program.append(0x70)  # type: ignore[arg-type]


@given(programs, programs)
def test_adding_programs_concatenates_and_leaves_both_unchanged(a: Program, b: Program) -> None:
    before_a, before_b = list(a), list(b)
    joined = a + b
    assert list(joined) == before_a + before_b
    assert list(a) == before_a and list(b) == before_b
    assert joined is not a


def test_power_stop_decodes_with_the_default_period() -> None:
    assert Power(True, 250).start is True
    assert Program.decode(words(0x0B000000, END)) == Program([Power(False)])


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (lambda: Ce(256), r"CE.target = 256 is outside 0..255"),
        (lambda: Ce(-1), r"CE.target = -1 is outside 0..255"),
        (lambda: Cmd(0x100), r"CMD.byte = 256 is outside 0..255"),
        (lambda: Cmd(True), r"CMD.byte = True"),
        (lambda: Addr(b""), r"ADDR.n = 0 is outside 1..8"),
        (lambda: Addr(bytes(9)), r"ADDR.n = 9 is outside 1..8"),
        (lambda: Addr("ab"), r"ADDR.data must be bytes"),  # type: ignore[arg-type]
        (lambda: Din(b""), r"DIN.n = 0 is outside 1..16777215"),
        (lambda: Dout(0), r"DOUT.n = 0 is outside 1..16777215"),
        (lambda: Dout(1 << 24), r"DOUT.n = 16777216 is outside 1..16777215"),
        (lambda: DinPattern(4, 0x2, 0), r"DIN_PAT.pattern must be a Pattern"),  # type: ignore[arg-type]
        (lambda: DinPattern(4, Pattern.prbs(), 1 << 32), r"DIN_PAT.seed = 4294967296"),
        (lambda: DoutCompare(4, Pattern.prbs(), 0, 0), r"DOUT_CMP.chunk = 0 is outside 1.."),
        (lambda: WaitRdy(-5), r"WAIT_RDY.timeout_ns = -5"),
        (lambda: Delay(1 << 24), r"DELAY.ns = 16777216 is outside 0..16777215"),
        (lambda: Mark(1 << 24), r"MARK.id = 16777216"),
        (lambda: Power(True, 0), r"POWER.period_ns = 0 is outside 1..4294967295"),
        (lambda: Power(2), r"POWER.start = 2 is outside 0..1"),  # type: ignore[arg-type]
        (lambda: Timing(16), r"TIMING.mode = 16 is outside 0..15"),
        (lambda: Timing(0, 5), r"TIMING.interface = 5 is outside 0..4"),
        (lambda: Timing(0, 2, 4), r"TIMING.warmup_out = 4 is outside 0..3"),
        (lambda: Gpio(256, 1), r"GPIO.value = 256 is outside 0..255"),
        (lambda: Gpio(1, -1), r"GPIO.mask = -1 is outside 0..255"),
    ],
)
def test_construction_checks_ranges(build: Callable[[], object], match: str) -> None:
    with pytest.raises(OpProgramError, match=match):
        build()


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"\x00\x00\x00", r"3 bytes, not a whole number of words"),
        (b"", r"word 0: program ends without END"),
        (words(0x01000000), r"word 1: program ends without END"),
        (words(0x0E000000, END), r"word 0: unknown opcode 0x0E"),
        (words(0x01000000, 0xFF000000, END), r"word 1: unknown opcode 0xFF"),
        (words(0x03000005, 0x01020304), r"word 0: ADDR is truncated: data needs 2 word"),
        (words(0x08000000), r"word 0: WAIT_RDY is truncated: timeout_ns needs 1 word"),
        (words(0x03000009, 0, 0, 0, END), r"word 0 \(instruction 0, ADDR\): ADDR.n = 9 is outside"),
        (words(0x03000000, END), r"ADDR.n = 0 is outside 1..8"),
        (words(0x03000010, END), r"word 0: ADDR arg 0x000010 sets reserved bits 0x000010"),
        (words(0x01000100, END), r"word 0: CE arg 0x000100 sets reserved bits"),
        (words(0x0C000050, END), r"TIMING.interface = 5 is outside 0..4"),
        (words(0x0C001000, END), r"word 0: TIMING arg 0x001000 sets reserved bits"),
        (words(0x04000001, 0x0000FF01, END), r"padding bytes of the last word are not zero"),
        (words(0x05000004, 0x00000003, 0, END), r"DIN_PAT.*pattern kind 3"),
        (words(0x07000004, 0x2, 0, 0, END), r"DOUT_CMP.chunk = 0 is outside"),
        (words(0x0B000001, 0, END), r"POWER.period_ns = 0 is outside"),
        (words(END, END), r"word 0: END is followed by 1 more word"),
        (words(0x00000001), r"word 0: END arg 0x000001 is not 0"),
    ],
)
def test_malformed_programs(data: bytes, match: str) -> None:
    with pytest.raises(OpProgramError, match=match):
        Program.decode(data)


def test_error_names_the_instruction_index() -> None:
    data = Program().ce(0).cmd(0x70).encode()[:-4] + words(0x0C000070, END)
    with pytest.raises(OpProgramError, match=r"word 2 \(instruction 2, TIMING\)"):
        Program.decode(data)
