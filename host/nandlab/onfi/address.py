"""Row / column addressing of one ONFI LUN, from its geometry.

Row address = block << page_address_bits | page, sent little-endian over
row_cycles bytes; column address sent little-endian over column_cycles bytes.
Block `b` lives in plane `b % planes`. In native mode a block holds
wls_per_block * bits_per_cell pages (page = wl * bits + page type); in SLC mode
it holds wls_per_block pages (page = wl).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nandlab.errors import AddressError
from nandlab.profiles import Profile


@dataclass(frozen=True)
class ChipGeometry:
    """The geometry the chip layer addresses with (from the parameter page or a profile)."""

    page_bytes: int
    spare_bytes: int
    pages_per_block: int
    blocks: int
    planes: int
    bits_per_cell: int
    column_cycles: int
    row_cycles: int

    @classmethod
    def from_profile(cls, profile: Profile) -> ChipGeometry:
        g = profile.geometry
        return cls(
            page_bytes=g.page_bytes,
            spare_bytes=g.spare_bytes,
            pages_per_block=g.pages_per_block,
            blocks=g.blocks,
            planes=g.planes,
            bits_per_cell=g.bits_per_cell,
            column_cycles=g.column_cycles,
            row_cycles=g.row_cycles,
        )

    @classmethod
    def from_parameter_page(cls, fields: dict[str, Any]) -> ChipGeometry:
        """From fields decoded by `onfi_spec.parampage.parse`."""
        cycles = int(fields["address_cycles"])
        return cls(
            page_bytes=int(fields["page_bytes"]),
            spare_bytes=int(fields["spare_bytes"]),
            pages_per_block=int(fields["pages_per_block"]),
            blocks=int(fields["blocks_per_lun"]) * max(1, int(fields["luns"])),
            planes=1 << int(fields["plane_address_bits"]),
            bits_per_cell=max(1, int(fields["bits_per_cell"])),
            column_cycles=cycles >> 4,
            row_cycles=cycles & 0x0F,
        )

    @property
    def total_bytes(self) -> int:
        """Bytes of one page including spare."""
        return self.page_bytes + self.spare_bytes

    @property
    def wls_per_block(self) -> int:
        return self.pages_per_block // self.bits_per_cell

    @property
    def page_address_bits(self) -> int:
        return max(1, (self.pages_per_block - 1).bit_length())

    def pages_in_mode(self, slc: bool) -> int:
        return self.wls_per_block if slc else self.pages_per_block

    def plane_of(self, block: int) -> int:
        return block % self.planes

    # validation -------------------------------------------------------------

    def check_block(self, block: int) -> None:
        if not isinstance(block, int) or not 0 <= block < self.blocks:
            raise AddressError(f"block {block} is outside the die: allowed 0..{self.blocks - 1}")

    def check_page(self, page: int, slc: bool) -> None:
        n = self.pages_in_mode(slc)
        if not isinstance(page, int) or not 0 <= page < n:
            mode = "SLC mode (one page per WL)" if slc else "native mode"
            raise AddressError(f"page {page} is outside the block in {mode}: allowed 0..{n - 1}")

    def check_span(self, column: int, length: int) -> None:
        total = self.total_bytes
        if not isinstance(column, int) or not 0 <= column < total:
            raise AddressError(f"column {column} is outside the page: allowed 0..{total - 1}")
        if length < 0 or column + length > total:
            raise AddressError(
                f"{length} bytes from column {column} run past the page: at most "
                f"{total - column} bytes (page {self.page_bytes} + spare {self.spare_bytes})"
            )

    # encoding ---------------------------------------------------------------

    def row(self, block: int, page: int = 0) -> int:
        return (block << self.page_address_bits) | page

    def row_bytes(self, block: int, page: int = 0) -> bytes:
        return self.row(block, page).to_bytes(self.row_cycles, "little")

    def column_bytes(self, column: int) -> bytes:
        return column.to_bytes(self.column_cycles, "little")

    def full_address(self, block: int, page: int, column: int = 0) -> bytes:
        """Column cycles then row cycles, as sent after 00h / 80h / 85h."""
        return self.column_bytes(column) + self.row_bytes(block, page)

    def describe(self) -> str:
        return (
            f"{self.blocks} blocks x {self.pages_per_block} pages x "
            f"({self.page_bytes}+{self.spare_bytes}) bytes, {self.planes} planes, "
            f"{self.bits_per_cell} bit/cell, {self.column_cycles}+{self.row_cycles} address cycles"
        )
