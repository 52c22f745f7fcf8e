"""Types of the generated register map (`nandlab.regs._generated`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Field:
    """A bit field: `lsb`, `width` bits, software access ('r', 'rw'...), reset value."""

    name: str
    lsb: int
    width: int
    sw: str
    reset: int
    desc: str

    @property
    def mask(self) -> int:
        """The field's bits within its 32-bit register."""
        return ((1 << self.width) - 1) << self.lsb

    def get(self, word: int) -> int:
        """The field's value in a register word."""
        return (word & self.mask) >> self.lsb

    def put(self, word: int, value: int) -> int:
        """`word` with the field replaced by `value` (ValueError if it does not fit)."""
        if not 0 <= value < 1 << self.width:
            raise ValueError(f"{self.name}: {value} does not fit {self.width} bits")
        return (word & ~self.mask) | (value << self.lsb)


@dataclass(frozen=True)
class Register:
    """A 32-bit register at byte `offset` in the CSR block."""

    name: str
    offset: int
    title: str
    fields: tuple[Field, ...]

    def field(self, name: str) -> Field:
        """The field called `name` (KeyError naming the register's fields)."""
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(f"{self.name} has no field {name}: {[f.name for f in self.fields]}")
