"""Word layouts of instructions and result records, and the codec they drive.

A `Layout` (generated from spec.yaml into `_generated.py`) says how one
instruction or result record is laid out: the bit fields of its 24-bit header
arg and the words that trail the header. `pack` and `unpack` turn a dict of
named values into words and back; `check` validates values against the ranges
of the spec. Values are ints, except `Bytes` items (bytes) and `Repeat` items
(a sequence of ints for one column, of int tuples for several).
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, ClassVar, Self, TypeVar

import numpy as np

from nandlab.errors import OpProgramError

WORD = struct.Struct("<I")
CODE_SHIFT = 24
ARG_MASK = 0xFFFFFF
U32_MAX = 0xFFFFFFFF

E = TypeVar("E", bound=IntEnum)
T = TypeVar("T")


def enum_member(enum: type[E], value: int, what: str) -> E:
    """`value` as a member of `enum`; OpProgramError listing the members otherwise."""
    try:
        return enum(value)
    except ValueError:
        members = ", ".join(f"{m.value} {m.name}" for m in enum)
        raise OpProgramError(f"{what} {value!r} is not one of {members}") from None


def converted(convert: Callable[[Any], T], value: object, must: str) -> T:
    """`convert(value)`; OpProgramError "<must>, got <value>" when it does not convert."""
    try:
        return convert(value)
    except (TypeError, ValueError):
        raise OpProgramError(f"{must}, got {value!r}") from None


@dataclass(frozen=True)
class Field:
    """A bit field of the header arg: bits [lsb + width - 1 : lsb], value in lo..hi."""

    name: str
    lsb: int
    width: int
    lo: int
    hi: int


@dataclass(frozen=True)
class Word:
    """One trailing 32-bit word, value in lo..hi; present only if arg field `when` != 0."""

    name: str
    lo: int
    hi: int
    when: str | None = None


@dataclass(frozen=True)
class U64:
    """One trailing 64-bit value as two words, low word first."""

    name: str


@dataclass(frozen=True)
class Bytes:
    """`count` bytes (an arg field) in ceil(count / 4) words, LSB-first, zero-padded."""

    name: str
    count: str


@dataclass(frozen=True)
class Repeat:
    """`count` (an arg field) groups of one 32-bit word per column."""

    name: str
    count: str
    columns: tuple[str, ...]


Trailing = Word | U64 | Bytes | Repeat


@dataclass(frozen=True)
class Layout:
    """Header code, name, arg fields and trailing items of one instruction or record."""

    code: int
    name: str
    fields: tuple[Field, ...] = ()
    trailing: tuple[Trailing, ...] = ()

    @property
    def reserved_mask(self) -> int:
        """Arg bits that no field covers (must be zero)."""
        used = 0
        for f in self.fields:
            used |= ((1 << f.width) - 1) << f.lsb
        return ARG_MASK & ~used


def _count_values(layout: Layout, values: Mapping[str, object]) -> dict[str, int]:
    """Arg field values, with the counts of Bytes / Repeat items taken from their lengths."""
    out = {f.name: values[f.name] for f in layout.fields if f.name in values}
    for item in layout.trailing:
        if isinstance(item, Bytes | Repeat):
            out[item.count] = len(values[item.name])  # type: ignore[arg-type]
    return out  # type: ignore[return-value]


def _in_range(layout: Layout, name: str, value: object, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or not lo <= value <= hi:
        raise OpProgramError(f"{layout.name}.{name} = {value!r} is outside {lo}..{hi}")


def check(layout: Layout, values: Mapping[str, object]) -> None:
    """Raise OpProgramError naming the first field or word outside its allowed range."""
    args = _count_values(layout, values)
    for f in layout.fields:
        _in_range(layout, f.name, args[f.name], f.lo, f.hi)
    for item in layout.trailing:
        if isinstance(item, Word):
            if item.when is None or args[item.when]:
                _in_range(layout, item.name, values[item.name], item.lo, item.hi)
        elif isinstance(item, U64):
            _in_range(layout, item.name, values[item.name], 0, 2**64 - 1)
        elif isinstance(item, Repeat):
            rows = values[item.name]
            assert isinstance(rows, Sequence)
            flat = rows if len(item.columns) == 1 else [v for row in rows for v in row]
            for row in rows:
                if len(item.columns) > 1 and len(row) != len(item.columns):
                    raise OpProgramError(
                        f"{layout.name}.{item.name}: each entry needs {len(item.columns)} "
                        f"values ({', '.join(item.columns)}), got {row!r}"
                    )
            for v in flat:
                _in_range(layout, item.name, v, 0, U32_MAX)


def pack(layout: Layout, values: Mapping[str, object]) -> bytes:
    """Header word plus trailing words of already checked `values`, as little-endian bytes."""
    args = _count_values(layout, values)
    arg = 0
    for f in layout.fields:
        arg |= int(args[f.name]) << f.lsb
    out = bytearray(WORD.pack((layout.code << CODE_SHIFT) | arg))
    for item in layout.trailing:
        if isinstance(item, Word):
            if item.when is None or args[item.when]:
                out += WORD.pack(int(values[item.name]))  # type: ignore[call-overload]
        elif isinstance(item, U64):
            out += struct.pack("<Q", values[item.name])
        elif isinstance(item, Bytes):
            data = bytes(values[item.name])  # type: ignore[call-overload]
            out += data + bytes(-len(data) % 4)
        else:
            out += np.asarray(values[item.name], dtype="<u4").tobytes()
    return bytes(out)


def unpack(layout: Layout, buf: bytes, pos: int) -> tuple[dict[str, object], int]:
    """Decode the item whose header word is at word `pos` of `buf`.

    Returns its values (arg fields that are counts of Bytes / Repeat items are
    left out) and the word offset just after it. Raises OpProgramError for
    reserved arg bits that are set or words missing at the end of `buf`.
    """
    nwords = len(buf) // 4
    (header,) = WORD.unpack_from(buf, 4 * pos)
    arg = header & ARG_MASK
    if arg & layout.reserved_mask:
        raise OpProgramError(
            f"word {pos}: {layout.name} arg 0x{arg:06X} sets reserved bits "
            f"0x{arg & layout.reserved_mask:06X}"
        )
    args = {f.name: (arg >> f.lsb) & ((1 << f.width) - 1) for f in layout.fields}
    counts = {i.count for i in layout.trailing if isinstance(i, Bytes | Repeat)}
    values: dict[str, object] = {k: v for k, v in args.items() if k not in counts}
    cur = pos + 1

    def take(n: int, what: str) -> int:
        nonlocal cur
        if cur + n > nwords:
            raise OpProgramError(
                f"word {pos}: {layout.name} is truncated: {what} needs {n} word(s) "
                f"from word {cur}, the stream has {nwords}"
            )
        start = cur
        cur += n
        return start

    for item in layout.trailing:
        if isinstance(item, Word):
            if item.when is None or args[item.when]:
                (values[item.name],) = WORD.unpack_from(buf, 4 * take(1, item.name))
        elif isinstance(item, U64):
            (values[item.name],) = struct.unpack_from("<Q", buf, 4 * take(2, item.name))
        elif isinstance(item, Bytes):
            n = args[item.count]
            start = 4 * take(-(-n // 4), item.name)
            values[item.name] = bytes(buf[start : start + n])
            if any(buf[start + n : start + -(-n // 4) * 4]):
                raise OpProgramError(
                    f"word {pos}: {layout.name} {item.name}: padding bytes of the last word "
                    "are not zero"
                )
        else:
            n, ncols = args[item.count], len(item.columns)
            start = 4 * take(n * ncols, item.name)
            rows = np.frombuffer(buf, dtype="<u4", count=n * ncols, offset=start).tolist()
            values[item.name] = (
                tuple(rows)
                if ncols == 1
                else tuple(tuple(rows[i : i + ncols]) for i in range(0, len(rows), ncols))
            )
    return values, cur


class _ItemSpec:
    """Per-class tables of an Item subclass, built once (dataclasses.fields is slow per call).

    `fast` lists (value name, lo, hi) of every plain int value and `lens` (bytes value
    name, lo, hi) of every byte string whose length is an arg field; together they are
    exactly the checks of `check` for layouts without `Repeat` items or conditional
    words. `fast` is None for the other layouts, which always take `check`.
    """

    __slots__ = ("bool_names", "bytes_names", "fast", "lens", "names")

    def __init__(self, cls: type) -> None:
        fields = dataclasses.fields(cls)
        layout: Layout = cls.LAYOUT  # type: ignore[attr-defined]
        self.names = tuple(f.name for f in fields)
        self.bytes_names = tuple(f.name for f in fields if f.type == "bytes")
        self.bool_names = frozenset(f.name for f in fields if f.type == "bool")
        fast: list[tuple[str, int, int]] | None = []
        lens: list[tuple[str, int, int]] = []
        by_field = {f.name: f for f in layout.fields}
        counted: set[str] = set()
        for item in layout.trailing:
            if isinstance(item, Bytes) and item.count in by_field and item.name in self.names:
                f = by_field[item.count]
                lens.append((item.name, f.lo, f.hi))
                counted.add(item.count)
            elif isinstance(item, Word) and item.when is None and item.name in self.names:
                fast.append((item.name, item.lo, item.hi))  # type: ignore[union-attr]
            elif isinstance(item, U64) and item.name in self.names:
                fast.append((item.name, 0, 2**64 - 1))  # type: ignore[union-attr]
            else:
                fast = None
                break
        if fast is not None:
            for f in layout.fields:
                if f.name in counted:
                    continue
                if f.name not in self.names:
                    fast = None
                    break
                fast.append((f.name, f.lo, f.hi))
        self.fast = tuple(fast) if fast is not None else None
        self.lens = tuple(lens)


_SPECS: dict[type, _ItemSpec] = {}


def _spec(cls: type) -> _ItemSpec:
    spec = _SPECS.get(cls)
    if spec is None:
        spec = _SPECS[cls] = _ItemSpec(cls)
    return spec


class Item:
    """Base of instructions and result records: a frozen dataclass laid out by `LAYOUT`.

    Dataclass field names are the layout's value names; construction checks
    every value against the spec and raises OpProgramError naming the field
    and its allowed range.
    """

    LAYOUT: ClassVar[Layout]

    def __post_init__(self) -> None:
        spec = _SPECS.get(type(self)) or _spec(type(self))
        d = self.__dict__
        for name in spec.bytes_names:
            value = d[name]
            if type(value) is not bytes:
                if not isinstance(value, bytes | bytearray | memoryview):
                    raise OpProgramError(
                        f"{self.LAYOUT.name}.{name} must be bytes, got {type(value).__name__}"
                    )
                object.__setattr__(self, name, bytes(value))
        fast = spec.fast
        if fast is not None:
            # The common case (plain ints in range) needs no dict of values; anything
            # else (numpy ints, bools, out of range) goes through `check`, which accepts
            # it or raises the error naming the field.
            for name, lo, hi in fast:
                value = d[name]
                if type(value) is not int or not lo <= value <= hi:
                    break
            else:
                for name, lo, hi in spec.lens:
                    if not lo <= len(d[name]) <= hi:
                        break
                else:
                    return
        check(self.LAYOUT, self.values())

    def values(self) -> dict[str, Any]:
        """Values by layout name, as they go on the wire (bool fields as 0 / 1)."""
        spec = _SPECS.get(type(self)) or _spec(type(self))
        d = self.__dict__
        values = {name: d[name] for name in spec.names}
        for name in spec.bool_names:
            if isinstance(values[name], bool):
                values[name] = int(values[name])
        return values

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> Self:
        """Build from decoded values (those `unpack` returns)."""
        names = _spec(cls).names
        return cls(**{name: values[name] for name in names if name in values})

    def encode(self) -> bytes:
        """Header word and trailing words, little-endian."""
        return pack(self.LAYOUT, self.values())
