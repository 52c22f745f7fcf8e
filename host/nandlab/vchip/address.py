"""Address cycles of a virtual die: column and row bytes to a plane, block and page.

What a page number means depends on the die's sticky cell mode: in native mode
page = WL * bits per cell + page type, in SLC mode page = WL, in the MLC mode of a
TLC die page = WL * 2 + page type. Out-of-range addresses are masked to the
address width (LUN bits ignored); pages or blocks past the die decode as invalid
targets, which read all FFh and fail program / erase without touching the array.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from nandlab.profiles.model import Geometry, Vendor


class CellMode(Enum):
    NATIVE = "native"
    SLC = "slc"  # profile vendor.slc_mode
    MLC = "mlc"  # profile vendor.mlc_mode with physics.mlc (a TLC die's MLC mode)


@dataclass(frozen=True)
class Target:
    """A decoded row: plane, block, page (valid False when past the die)."""

    plane: int
    block: int
    page: int
    valid: bool


class AddressMap:
    """Decodes address cycles in the die's current cell mode (`mode`).

    The SLC and MLC modes are sticky: the vendor's enter command switches every
    following READ / PROGRAM / ERASE to the mode until its exit command or RESET;
    entering one leaves the other. Where two commands share a byte, SLC comes before
    MLC and entry before exit.
    """

    def __init__(self, geometry: Geometry, vendor: Vendor) -> None:
        self._g = geometry
        self.mode = CellMode.NATIVE
        # command byte -> (mode, True to enter it / False to leave it)
        self._mode_cmds: dict[int, tuple[CellMode, bool]] = {}
        for mode, prefix in ((CellMode.MLC, vendor.mlc_mode), (CellMode.SLC, vendor.slc_mode)):
            if prefix is not None:
                self._mode_cmds[prefix.exit_cmd] = (mode, False)
                self._mode_cmds[prefix.enter_cmd] = (mode, True)
        self.col_cycles = geometry.column_cycles
        self.addr_cycles = geometry.column_cycles + geometry.row_cycles
        nbytes = geometry.page_bytes + geometry.spare_bytes
        self._col_mask = (1 << max(1, (nbytes - 1).bit_length())) - 1
        # the geometry is frozen: its derived numbers, once, for the decode of every op
        self._page_bits = geometry.page_address_bits
        self._page_mask = (1 << geometry.page_address_bits) - 1
        self._block_mask = (1 << geometry.block_address_bits) - 1
        self._blocks = geometry.blocks
        self._planes = geometry.planes
        self._pages = {
            CellMode.NATIVE: geometry.pages_per_block,
            CellMode.SLC: geometry.wls_per_block,
            CellMode.MLC: geometry.wls_per_block * 2,
        }

    def mode_command(self, byte: int) -> None:
        """A command byte outside any sequence: enter or leave a cell mode if it is one."""
        switch = self._mode_cmds.get(byte)
        if switch is None:
            return
        mode, entering = switch
        if entering:
            self.mode = mode
        elif self.mode is mode:
            self.mode = CellMode.NATIVE

    def pages_in_mode(self) -> int:
        return self._pages[self.mode]

    def decode(self, addr: list[int]) -> tuple[int, Target]:
        """Column and target of column + row address cycles (missing cycles read 0)."""
        n, c = self.addr_cycles, self.col_cycles
        cycles = addr[:n] if len(addr) >= n else addr + [0] * (n - len(addr))
        col = int.from_bytes(bytes(cycles[:c]), "little") & self._col_mask
        row = int.from_bytes(bytes(cycles[c:]), "little")
        page = row & self._page_mask
        block = (row >> self._page_bits) & self._block_mask
        valid = block < self._blocks and page < self._pages[self.mode]
        return col, Target(block % self._planes, block, page, valid)

    def decode_row(self, row: list[int]) -> Target:
        """Target of row address cycles alone (ERASE, 78h, test-mode operations)."""
        return self.decode([0] * self.col_cycles + row)[1]

    def locate(self, t: Target) -> tuple[int, int | None]:
        """(wl, page type) of a valid target; page type None in SLC mode."""
        if self.mode is CellMode.SLC:
            return t.page, None
        if self.mode is CellMode.MLC:
            return t.page // 2, t.page % 2
        bits = self._g.bits_per_cell
        return t.page // bits, t.page % bits

    def successor(self, t: Target) -> Target:
        """The next page of the block (what a sequential cache read senses next)."""
        page = t.page + 1
        return Target(t.plane, t.block, page, t.valid and page < self.pages_in_mode())
