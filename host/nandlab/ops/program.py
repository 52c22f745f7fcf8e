"""Op program instructions, the Program list and its binary encoding (contract 1).

A program is a list of instructions run in order on one channel; on the wire
it is a stream of 32-bit little-endian words closed by an END header (see
spec.yaml). Every instruction checks its values on construction and raises
OpProgramError naming the field and its allowed range.

Example (READ STATUS)::

    >>> p = Program().ce(0).cmd(0x70).delay(80).dout(1)
    >>> Program.decode(p.encode()) == p
    True
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self, overload

from nandlab.errors import OpProgramError
from nandlab.ops._generated import MAX_INSTRUCTIONS, OP_LAYOUTS, Opcode
from nandlab.ops.layout import ARG_MASK, CODE_SHIFT, WORD, Item, Layout, unpack
from nandlab.ops.pattern import Pattern


class Instruction(Item):
    """Base of the op program instructions."""


@dataclass(frozen=True)
class Ce(Instruction):
    """Select chip-enable target `target` (0..255)."""

    LAYOUT: ClassVar[Layout] = OP_LAYOUTS[Opcode.CE]
    target: int


@dataclass(frozen=True)
class Cmd(Instruction):
    """Latch command byte `byte` (0..255)."""

    LAYOUT: ClassVar[Layout] = OP_LAYOUTS[Opcode.CMD]
    byte: int


@dataclass(frozen=True)
class Addr(Instruction):
    """Latch the address bytes `data` (1..8 bytes, first cycle first)."""

    LAYOUT: ClassVar[Layout] = OP_LAYOUTS[Opcode.ADDR]
    data: bytes


@dataclass(frozen=True)
class Din(Instruction):
    """Send `data` (1..0xFFFFFF bytes) from the host to the chip."""

    LAYOUT: ClassVar[Layout] = OP_LAYOUTS[Opcode.DIN]
    data: bytes


class _Patterned(Instruction):
    """An instruction with a `pattern` field: a Pattern in Python, a pattern word on the wire."""

    def __post_init__(self) -> None:
        if not isinstance(getattr(self, "pattern", None), Pattern):
            raise OpProgramError(f"{self.LAYOUT.name}.pattern must be a Pattern")
        super().__post_init__()

    def values(self) -> dict[str, Any]:
        """Values by layout name, the pattern as its pattern word."""
        values = super().values()
        values["pattern"] = values["pattern"].word
        return values

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> Self:
        """Build from decoded values, decoding the pattern word."""
        return super().from_values({**values, "pattern": Pattern.from_word(values["pattern"])})


@dataclass(frozen=True)
class DinPattern(_Patterned):
    """Send `n` (1..0xFFFFFF) bytes of the on-board generator's `pattern` from `seed` (u32)."""

    LAYOUT: ClassVar[Layout] = OP_LAYOUTS[Opcode.DIN_PAT]
    n: int
    pattern: Pattern
    seed: int = 0


@dataclass(frozen=True)
class Dout(Instruction):
    """Read `n` (1..0xFFFFFF) bytes from the chip to the host (one DATA record)."""

    LAYOUT: ClassVar[Layout] = OP_LAYOUTS[Opcode.DOUT]
    n: int


@dataclass(frozen=True)
class DoutCompare(_Patterned):
    """Read `n` (1..0xFFFFFF) bytes into the on-board comparator.

    The bytes are compared with `pattern` from `seed` (u32); one ERRCNT record
    comes back with a (0->1, 1->0) bit error count pair per `chunk`
    (1..0xFFFFFF) bytes, the last chunk possibly short.
    """

    LAYOUT: ClassVar[Layout] = OP_LAYOUTS[Opcode.DOUT_CMP]
    n: int
    pattern: Pattern
    seed: int
    chunk: int


WAIT_TIMEOUT_MARGIN = 4
"""A WAIT_RDY's timeout is this x the busy time the chip declares (the parameter page's
tR / tPROG / tBERS maximum), so a transport that must plan for the busy period (the FT2232H's
R/B# samples) can take the declared maximum back from the timeout, not from a model."""


@dataclass(frozen=True)
class WaitRdy(Instruction):
    """Wait up to `timeout_ns` (u32, ns) for R/B# high; one BUSY record or ERROR TIMEOUT."""

    LAYOUT: ClassVar[Layout] = OP_LAYOUTS[Opcode.WAIT_RDY]
    timeout_ns: int


@dataclass(frozen=True)
class Delay(Instruction):
    """Wait `ns` (0..0xFFFFFF) nanoseconds."""

    LAYOUT: ClassVar[Layout] = OP_LAYOUTS[Opcode.DELAY]
    ns: int


@dataclass(frozen=True)
class Mark(Instruction):
    """Record a timestamp under `id` (0..0xFFFFFF); one MARK record."""

    LAYOUT: ClassVar[Layout] = OP_LAYOUTS[Opcode.MARK]
    id: int


@dataclass(frozen=True)
class Power(Instruction):
    """Start (`start`=True) or stop a supply-current sampling window.

    `period_ns` (1..2**32-1, ns) is the sample period of a start and is not
    encoded for a stop (a decoded stop has the default). A stop yields one
    POWER record.
    """

    LAYOUT: ClassVar[Layout] = OP_LAYOUTS[Opcode.POWER]
    start: bool
    period_ns: int = 1000

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "start", bool(self.start))


@dataclass(frozen=True)
class Timing(Instruction):
    """Switch to timing `mode` (0..15) of `interface` (nandlab.ops.Interface).

    DDR interfaces also take the warm-up cycles SET FEATURES 02h gave the die,
    as ONFI codes them (0, 1, 2, 3 = 0, 1, 2, 4 cycles): `warmup_out` RE#
    cycles before data out, `warmup_in` DQS cycles before data in. Which modes
    an interface has is the bench's to check.
    """

    LAYOUT: ClassVar[Layout] = OP_LAYOUTS[Opcode.TIMING]
    mode: int
    interface: int = 0
    warmup_out: int = 0
    warmup_in: int = 0


@dataclass(frozen=True)
class Gpio(Instruction):
    """Drive the GPIO bits set in `mask` (0..255) to `value` (0..255).

    Bit 0 is the WP# level (1 = writes allowed); bits 1..7 are supply enables.
    """

    LAYOUT: ClassVar[Layout] = OP_LAYOUTS[Opcode.GPIO]
    value: int
    mask: int


_BY_OPCODE: dict[int, type[Instruction]] = {
    cls.LAYOUT.code: cls
    for cls in (Ce, Cmd, Addr, Din, DinPattern, Dout, DoutCompare, WaitRdy, Delay, Mark, Power,
                Timing, Gpio)
}
_END_WORD = WORD.pack(Opcode.END << CODE_SHIFT)


class Program:
    """An ordered list of instructions, with a fluent builder.

    Instruction indices (those BUSY and ERROR records name) count from 0.

    >>> Program().ce(0).cmd(0xFF).wait_rdy(1_000_000)[2]
    WaitRdy(timeout_ns=1000000)
    """

    def __init__(self, instructions: Iterable[Instruction] = ()) -> None:
        self._items: list[Instruction] = []
        self.extend(instructions)

    def append(self, instruction: Instruction) -> Self:
        """Add one instruction at the end; returns the program."""
        if not isinstance(instruction, Instruction):
            raise OpProgramError(f"not an instruction: {instruction!r}")
        self._items.append(instruction)
        return self

    def extend(self, instructions: Iterable[Instruction]) -> Self:
        """Add instructions at the end; returns the program."""
        for instruction in instructions:
            self.append(instruction)
        return self

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Instruction]:
        return iter(self._items)

    @overload
    def __getitem__(self, index: int) -> Instruction: ...
    @overload
    def __getitem__(self, index: slice) -> Program: ...
    def __getitem__(self, index: int | slice) -> Instruction | Program:
        if isinstance(index, slice):
            return Program(self._items[index])
        return self._items[index]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Program) and self._items == other._items

    def __add__(self, other: Program) -> Program:
        """A new program: these instructions, then `other`'s (sequences compose this way)."""
        if not isinstance(other, Program):
            return NotImplemented
        joined = Program()
        joined._items = self._items + other._items  # both checked when they were appended
        return joined

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Program({self._items!r})"

    def ce(self, target: int) -> Self:
        """Append CE `target` (0..255)."""
        return self.append(Ce(target))

    def cmd(self, byte: int) -> Self:
        """Append CMD `byte` (0..255)."""
        return self.append(Cmd(byte))

    def addr(self, data: bytes) -> Self:
        """Append ADDR with 1..8 address bytes."""
        return self.append(Addr(data))

    def din(self, data: bytes) -> Self:
        """Append DIN with 1..0xFFFFFF data bytes."""
        return self.append(Din(data))

    def din_pattern(self, n: int, pattern: Pattern, seed: int = 0) -> Self:
        """Append DIN_PAT of `n` generated bytes."""
        return self.append(DinPattern(n, pattern, seed))

    def dout(self, n: int) -> Self:
        """Append DOUT of `n` bytes."""
        return self.append(Dout(n))

    def dout_compare(self, n: int, pattern: Pattern, seed: int, chunk: int) -> Self:
        """Append DOUT_CMP of `n` bytes against `pattern`, counted per `chunk` bytes."""
        return self.append(DoutCompare(n, pattern, seed, chunk))

    def wait_rdy(self, timeout_ns: int) -> Self:
        """Append WAIT_RDY with a timeout in ns."""
        return self.append(WaitRdy(timeout_ns))

    def delay(self, ns: int) -> Self:
        """Append DELAY of `ns` nanoseconds."""
        return self.append(Delay(ns))

    def mark(self, id: int) -> Self:
        """Append MARK `id`."""
        return self.append(Mark(id))

    def power_start(self, period_ns: int = 1000) -> Self:
        """Append POWER start, sampling every `period_ns` ns."""
        return self.append(Power(True, period_ns))

    def power_stop(self) -> Self:
        """Append POWER stop."""
        return self.append(Power(False))

    def timing(self, mode: int, interface: int = 0, warmup_out: int = 0,
               warmup_in: int = 0) -> Self:
        """Append TIMING `mode` of `interface` (warm-up codes for DDR interfaces)."""
        return self.append(Timing(mode, interface, warmup_out, warmup_in))

    def gpio(self, value: int, mask: int) -> Self:
        """Append GPIO `value` under `mask`."""
        return self.append(Gpio(value, mask))

    def encode(self) -> bytes:
        """The program as little-endian words, END included."""
        if len(self._items) > MAX_INSTRUCTIONS:
            raise OpProgramError(
                f"program has {len(self._items)} instructions, at most {MAX_INSTRUCTIONS} fit"
            )
        return b"".join(i.encode() for i in self._items) + _END_WORD

    @classmethod
    def decode(cls, data: bytes) -> Program:
        """Parse an encoded program (END required, nothing after it).

        Raises OpProgramError naming the word offset and what is wrong:
        unknown opcode, truncated instruction, value out of range, reserved
        bits set, missing END.
        """
        if len(data) % 4:
            raise OpProgramError(f"program is {len(data)} bytes, not a whole number of words")
        nwords = len(data) // 4
        program = cls()
        pos = 0
        while pos < nwords:
            (header,) = WORD.unpack_from(data, 4 * pos)
            code = header >> CODE_SHIFT
            if code == Opcode.END:
                if header & ARG_MASK:
                    raise OpProgramError(f"word {pos}: END arg 0x{header & ARG_MASK:06X} is not 0")
                if pos + 1 != nwords:
                    raise OpProgramError(
                        f"word {pos}: END is followed by {nwords - pos - 1} more word(s)"
                    )
                return program
            kind = _BY_OPCODE.get(code)
            if kind is None:
                raise OpProgramError(f"word {pos}: unknown opcode 0x{code:02X}")
            values, end = unpack(kind.LAYOUT, data, pos)
            try:
                program.append(kind.from_values(values))
            except OpProgramError as exc:
                raise OpProgramError(
                    f"word {pos} (instruction {len(program)}, {kind.LAYOUT.name}): {exc}"
                ) from None
            pos = end
        raise OpProgramError(f"word {nwords}: program ends without END")
