"""The common interface of the in-flash computing schemes (layer 3).

A scheme turns a bitwise expression over operands stored on one chip into
chip operations, runs them, and returns the result bits together with the
*plan*: every chip operation it ran, with its sensings, busy time and
energy. Each scheme knows its operand layout rules (`Scheme.layout`) and
moves operands that break them (copyback, or a program from the host), and
counts that cost in the plan.

Terms:
- `PageLoc`: where a page lives (block, native page address or SLC WL).
- `ChipOp`: one chip operation in a plan.
- `Plan`: the operations of one run, warnings, and totals.
- `SchemeResult`: the result bits (one uint8 0/1 per cell of the page's data
  area) and the plan.
- `Scratch`: erased WLs a scheme may program (intermediate results,
  aligned copies); it erases a scratch block on first use.

A scheme registers itself with `register`; `nandlab.schemes.compute` finds
schemes through `SCHEMES`. A scheme refuses a chip it cannot run on with
`UnsupportedCapability` naming the missing capability (`Scheme.unsupported`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from nandlab.analysis import operation_energy_uJ
from nandlab.errors import AddressError, UsageError
from nandlab.schemes.expr import Expr

if TYPE_CHECKING:
    from nandlab.onfi import Chip
    from nandlab.profiles import Profile

@dataclass(frozen=True)
class PageLoc:
    """One page: block and page address (native: wl * bits + page type; slc: the WL)."""

    block: int
    page: int
    slc: bool = False

    def wl(self, bits_per_cell: int) -> int:
        return self.page if self.slc else self.page // bits_per_cell

    def page_type(self, bits_per_cell: int) -> int:
        return 0 if self.slc else self.page % bits_per_cell

    def __str__(self) -> str:
        return f"b{self.block}/p{self.page}" + ("/slc" if self.slc else "")

    @classmethod
    def parse(cls, text: str) -> PageLoc:
        """`BLOCK:PAGE` or `BLOCK:PAGE:slc` (page = native page address, or WL in SLC)."""
        parts = text.split(":")
        try:
            if len(parts) == 3 and parts[2].lower() == "slc":
                return cls(int(parts[0], 0), int(parts[1], 0), True)
            if len(parts) == 2:
                return cls(int(parts[0], 0), int(parts[1], 0))
        except ValueError:
            pass
        raise UsageError(f"page location {text!r}: expected BLOCK:PAGE or BLOCK:PAGE:slc")


@dataclass(frozen=True)
class ChipOp:
    """One chip operation of a plan.

    kind: read, soft_bit_read, latch, mws, set_feature, copyback, program, erase.
    busy_us: R/B# low time reported by the chip; energy_uJ: supply energy estimated from
    the datasheet currents (the plan's estimate, not a measurement).
    """

    kind: str
    what: str
    sensings: int = 0
    busy_us: float = 0.0
    energy_uJ: float = 0.0
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "what": self.what,
            "sensings": self.sensings,
            "busy_us": round(self.busy_us, 3),
            "energy_uJ": round(self.energy_uJ, 4),
            **({"detail": self.detail} if self.detail else {}),
        }


@dataclass
class Plan:
    """What a scheme ran: its chip operations in order, and warnings."""

    scheme: str
    expression: str
    ops: list[ChipOp] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, op: ChipOp) -> ChipOp:
        self.ops.append(op)
        return op

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    @property
    def sensings(self) -> int:
        return sum(op.sensings for op in self.ops)

    @property
    def latency_us(self) -> float:
        """Sum of busy times (the chip runs the operations one after the other)."""
        return sum(op.busy_us for op in self.ops)

    @property
    def energy_uJ(self) -> float:
        return sum(op.energy_uJ for op in self.ops)

    def count(self, kind: str) -> int:
        return sum(1 for op in self.ops if op.kind == kind)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scheme": self.scheme,
            "expression": self.expression,
            "sensings": self.sensings,
            "latency_us": round(self.latency_us, 3),
            "energy_uJ": round(self.energy_uJ, 4),
            "programs": self.count("program") + self.count("copyback"),
            "warnings": list(self.warnings),
            "notes": list(self.notes),
            "ops": [op.to_dict() for op in self.ops],
        }


@dataclass
class SchemeResult:
    """Result bits (uint8 0/1, one per cell of the data area) and the plan that made them."""

    scheme: str
    expression: str
    bits: np.ndarray
    plan: Plan


def chip_op(
    profile: Profile, kind: str, what: str, busy_ns: int, sensings: int = 0, **detail: Any
) -> ChipOp:
    """A ChipOp from a busy time in ns, with its energy estimated from the profile's
    datasheet currents (`nandlab.analysis.operation_energy_uJ`; `detail["blocks"]`: blocks
    an MWS activates; `detail["read_us"]`: the read part of a copyback)."""
    busy_us = busy_ns / 1000.0
    read_us = detail.get("read_us")
    energy = operation_energy_uJ(
        profile, kind, busy_us, sensings, int(detail.get("blocks", 1)),
        None if read_us is None else float(read_us),
    )
    return ChipOp(kind, what, sensings, busy_us, energy, detail)


class Scratch:
    """Erased WLs a scheme may program, taken in order from `blocks`.

    A block is erased the first time one of its WLs is taken (the erase goes
    into the plan that took it). WLs are handed out in native (MLC) mode by
    `take_wl` and in SLC mode by `take_slc_wl`; a block holds one mode only.
    """

    def __init__(self, chip: Chip, blocks: list[int]) -> None:
        self.chip = chip
        self.blocks = list(blocks)
        self._next: dict[int, int] = {}
        self._mode: dict[int, bool] = {}

    def _take(self, plan: Plan, slc: bool, plane: int | None) -> tuple[int, int]:
        geo = self.chip.geometry
        for block in self.blocks:
            if plane is not None and geo.plane_of(block) != plane:
                continue
            if self._mode.get(block, slc) != slc:
                continue
            wl = self._next.get(block)
            if wl is None:
                res = self.chip.erase_block(block)
                what = f"erase scratch block {block}"
                plan.add(chip_op(self.chip.profile, "erase", what, res.busy_ns))
                wl = 0
            if wl < self.chip.profile.geometry.wls_per_block:
                self._next[block] = wl + 1
                self._mode[block] = slc
                return block, wl
        where = f" on plane {plane}" if plane is not None else ""
        raise AddressError(
            f"no scratch WL left{where}: give more scratch blocks (have "
            f"{', '.join(map(str, self.blocks)) or 'none'})"
        )

    def take_wl(self, plan: Plan, plane: int | None = None) -> tuple[int, int]:
        """(block, wl) of an erased native-mode WL, on `plane` if given."""
        return self._take(plan, False, plane)

    def take_slc_wl(self, plan: Plan, plane: int | None = None) -> tuple[int, int]:
        """(block, wl) of an erased WL in an SLC-mode scratch block."""
        return self._take(plan, True, plane)


class Scheme(ABC):
    """An in-flash computing scheme bound to one chip.

    Subclasses set `name` (CLI name), `title`, and implement `unsupported`
    (why the chip cannot run it, or None) and `evaluate`.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    needs_test_mode: ClassVar[bool] = False
    """Every run goes through the chip's test mode (known before any chip is opened)."""

    def __init__(self, chip: Chip) -> None:
        self.chip = chip

    @classmethod
    @abstractmethod
    def unsupported(cls, chip: Chip) -> str | None:
        """None when the scheme can run on `chip`; else the missing capability, for a person."""

    @classmethod
    def datasheet_lacks(cls, profile: Profile) -> str | None:
        """What the part's profile (its datasheet) lacks for this scheme, or None: known before
        any chip is opened; `unsupported` adds what only the bench can tell."""
        return None

    @classmethod
    def layout(cls, names: list[str], block: int, profile: Profile) -> dict[str, PageLoc]:
        """Where to store operands for this scheme: default, MLC pairs (LSB, MSB) per WL."""
        bits = profile.geometry.bits_per_cell
        if len(names) > profile.geometry.wls_per_block * bits:
            raise AddressError(
                f"{len(names)} operands do not fit block {block}: at most "
                f"{profile.geometry.wls_per_block * bits}"
            )
        return {n: PageLoc(block, i) for i, n in enumerate(names)}

    def run(
        self, expr: Expr, operands: Mapping[str, PageLoc], scratch: Scratch, *, text: str = ""
    ) -> SchemeResult:
        """Evaluate `expr` over the stored operands; returns the bits and the plan."""
        plan = Plan(self.name, text or str(expr))
        bits = self.evaluate(expr, operands, scratch, plan)
        return SchemeResult(self.name, plan.expression, bits, plan)

    @abstractmethod
    def evaluate(
        self, expr: Expr, operands: Mapping[str, PageLoc], scratch: Scratch, plan: Plan
    ) -> np.ndarray:
        """The result bits of `expr`; every chip operation it runs goes into `plan`."""


SCHEMES: dict[str, type[Scheme]] = {}


def register(cls: type[Scheme]) -> type[Scheme]:
    """Class decorator: make a scheme known to `nandlab.schemes.compute` under cls.name."""
    SCHEMES[cls.name] = cls
    return cls


ProgressFn = Callable[[str, int, int], None]
