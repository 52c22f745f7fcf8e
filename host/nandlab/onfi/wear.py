"""The wear a target sees: every erase any op program runs on it, counted per block.

Wear is counted where it passes, not where it is asked for: `Target.run` hands
every program it runs to `WearTally.count`, which finds the erases in it
(60h, row address, D0h or D1h), whichever layer built the program (a one-off
erase, cycling, a scheme's scratch blocks, an energy measurement). Cycles a
bench's wear role fast-forwards run no program, so their caller adds them with
`fast_forwarded`; so are cycles the board's firmware runs (`ran_on_board`).
Whoever keeps the chip's history (the chip ledger) takes the counts with
`take()` after each operation it accounts for.
"""

from __future__ import annotations

from dataclasses import dataclass

from nandlab.onfi.address import ChipGeometry
from nandlab.onfi_spec.opcodes import Cmd as Op
from nandlab.ops import Addr, Cmd, Program

ERASE_CONFIRMS = (Op.ERASE_CONFIRM, Op.ERASE_MULTIPLANE)


@dataclass
class BlockCycles:
    """P/E cycles one block went through: `erases` in all, `fast_forwarded` of them without
    running (a virtual die's wear model)."""

    erases: int = 0
    fast_forwarded: int = 0


def erased_blocks(program: Program, geometry: ChipGeometry) -> list[int]:
    """The blocks `program` erases, once per confirmed erase (60h row D0h / D1h)."""
    blocks: list[int] = []
    in_erase = False
    block: int | None = None
    for ins in program:
        if isinstance(ins, Cmd):
            if ins.byte == Op.ERASE:
                in_erase, block = True, None
            elif ins.byte in ERASE_CONFIRMS and in_erase and block is not None:
                blocks.append(block)
                in_erase, block = False, None
            else:
                in_erase = False
        elif isinstance(ins, Addr) and in_erase:
            block = int.from_bytes(ins.data, "little") >> geometry.page_address_bits
    return blocks


class WearTally:
    """Erases per block since the last `take()`."""

    def __init__(self) -> None:
        self._blocks: dict[int, BlockCycles] = {}

    def count(self, program: Program, geometry: ChipGeometry | None) -> None:
        """Add the erases of a program that ran (before identification there are none)."""
        if geometry is None:
            return
        for block in erased_blocks(program, geometry):
            self._blocks.setdefault(block, BlockCycles()).erases += 1

    def fast_forwarded(self, block: int, cycles: int) -> None:
        """Add `cycles` P/E cycles a bench's wear role stood for (no program ran them)."""
        if cycles > 0:
            wear = self._blocks.setdefault(block, BlockCycles())
            wear.erases += cycles
            wear.fast_forwarded += cycles

    def ran_on_board(self, block: int, cycles: int) -> None:
        """Add `cycles` P/E cycles the board's firmware ran on its own (no host program)."""
        if cycles > 0:
            self._blocks.setdefault(block, BlockCycles()).erases += cycles

    def take(self) -> dict[int, BlockCycles]:
        """The counts so far, block -> wear (in block order); the tally starts again at 0."""
        taken = dict(sorted(self._blocks.items()))
        self._blocks = {}
        return taken
