"""`ArrayTarget`: the single-page array operations of a target (read, program, erase,
copyback, soft-bit read), the bad-block and blank checks that guard them, and the
address and data checks the test-mode layer shares.

Every operation validates its request first and raises before anything runs,
so a refused request leaves the chip unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from nandlab.errors import AddressError, RangeError, RefusedOperation
from nandlab.onfi.address import ChipGeometry
from nandlab.onfi.bbt import BadBlockTable
from nandlab.onfi.results import OpResult, PageRead, busy_steps, data_records
from nandlab.onfi.target import Controller, Target
from nandlab.onfi_spec.opcodes import Cmd as Op
from nandlab.ops import Addr, Cmd, Program, Results
from nandlab.sequences import core, vendor

BLANK_ZERO_FRACTION = 1e-3
"""A page with more than this fraction of bits unlike an unwritten page is not erased."""
KEPT_LOWER_PAGES = 64
"""Lower pages whose written data a target keeps for the blank check of the pages above."""
_KEEP_DATA = frozenset(
    {
        Op.READ, Op.READ_CONFIRM, Op.READ_CACHE_SEQUENTIAL, Op.READ_CACHE_END,
        Op.READ_MULTIPLANE, Op.COPYBACK_READ, Op.CHANGE_READ_COLUMN,
        Op.CHANGE_READ_COLUMN_ENHANCED, Op.CHANGE_READ_COLUMN_CONFIRM, Op.READ_STATUS,
        Op.READ_STATUS_ENHANCED, Op.READ_ID, Op.READ_PARAMETER_PAGE, Op.READ_UNIQUE_ID,
        Op.GET_FEATURES, Op.SET_FEATURES, Op.RESET, Op.PROGRAM_CONFIRM, Op.PROGRAM_CACHE,
        Op.PROGRAM_MULTIPLANE, Op.ERASE_CONFIRM, Op.ERASE_MULTIPLANE,
    }
)
"""Command bytes that change no page outside the addresses a program names (see
`ArrayTarget.run`); any other byte (vendor, test mode) drops every kept page."""
_WRITES = frozenset({Op.PROGRAM, Op.CHANGE_WRITE_COLUMN, Op.ERASE})
"""Commands whose address names the page (or block) they change."""


class ArrayTarget(Target):
    """A target's page and block operations (see `Chip` for the whole API)."""

    def __init__(self, transport: Controller, ce: int = 0) -> None:
        super().__init__(transport, ce)
        self._bbt: BadBlockTable | None = None
        # (block, page) -> data `program_page` wrote on a native lower page, oldest first
        self._written: dict[tuple[int, int], bytes] = {}
        self._keep_bytes: frozenset[int] | None = None  # _KEEP_DATA + the SLC mode bytes

    def run(self, program: Program, what: str) -> Results:
        """`Target.run`, after dropping the kept lower-page data `program` may change."""
        self._forget_written(program)
        return super().run(program, what)

    def _forget_written(self, program: Program) -> None:
        """Drop kept data of the pages `program` programs and the blocks it erases; all of
        it when the program holds a command outside `_KEEP_DATA` (a vendor or test-mode
        command may change cells without naming them)."""
        if not self._written:
            return
        geo = self.geometry
        if self._keep_bytes is None:
            profile = self.transport.profile
            slc = profile.vendor.slc_mode if profile is not None else None
            modes = {slc.enter_cmd, slc.exit_cmd} if slc is not None else set()
            self._keep_bytes = _KEEP_DATA | modes
        keep = self._keep_bytes
        writes: int | None = None  # the opcode whose address comes next
        for ins in program:
            if isinstance(ins, Cmd):
                byte = ins.byte
                writes = byte if byte in _WRITES else None
                if writes is None and byte not in keep:
                    self._written.clear()
                    return
            elif isinstance(ins, Addr) and writes is not None:
                row_bytes = ins.data if writes == Op.ERASE else ins.data[geo.column_cycles :]
                if row_bytes:  # 85h with a column alone stays on the page its 80h named
                    row = int.from_bytes(row_bytes, "little")
                    block = row >> geo.page_address_bits
                    page = row & ((1 << geo.page_address_bits) - 1)
                    for key in [k for k in self._written if k[0] == block]:
                        if writes == Op.ERASE or key[1] == page:
                            del self._written[key]
                writes = None

    # ------------------------------------------------------------ checks

    def check_address(self, block: int, page: int, slc: bool) -> ChipGeometry:
        """The geometry, after checking `block` and `page` (a WL with slc=True) exist."""
        geo = self.geometry
        geo.check_block(block)
        geo.check_page(page, slc)
        return geo

    def check_data(self, data: bytes) -> bytes:
        """`data` as bytes, after checking it fits one page with its spare."""
        geo = self.geometry
        data = bytes(data)
        if not 1 <= len(data) <= geo.total_bytes:
            raise AddressError(
                f"{len(data)} data bytes do not fit a page: allowed 1..{geo.total_bytes} "
                f"(page {geo.page_bytes} + spare {geo.spare_bytes})"
            )
        return data

    def is_bad_block(self, block: int) -> bool:
        """Factory bad-block marker (first spare byte of page 0 != FFh), read once per block.

        The answer is kept in the chip's persistent bad-block table (`BadBlockTable`),
        because once a block has been programmed its spare byte no longer says anything.
        """
        geo = self.geometry
        geo.check_block(block)
        if self._bbt is None:
            self._bbt = BadBlockTable.for_chip(self.identification.unique_id)
        bad = self._bbt.get(block)
        if bad is None:
            page = self._read(block, 0, slc=False, column=geo.page_bytes, length=1)
            bad = page.data[0] != 0xFF
            self._bbt.record(block, bad)
        return bad

    def forget_bad_blocks(self) -> None:
        """Read every marker again, keeping the answers in memory only (a virtual die
        started fresh: its old table says nothing about it) until `keep_bad_blocks`."""
        self._bbt = BadBlockTable(None)

    def keep_bad_blocks(self) -> None:
        """Store the in-memory answers as the chip's table, replacing the old one."""
        if self._bbt is None or self._bbt.path is not None:
            return
        kept = BadBlockTable.for_chip(self.identification.unique_id)
        kept.replace(self._bbt)
        self._bbt = kept

    def refuse_bad(self, blocks: Sequence[int], force: bool, what: str) -> None:
        """RefusedOperation when a block carries the factory bad-block marker, unless force."""
        if force:
            return
        bad = [b for b in blocks if self.is_bad_block(b)]
        if bad:
            raise RefusedOperation(
                f"{what}: block {', '.join(map(str, bad))} carries the factory bad-block "
                "marker: refused unless forced (nandlab read / program / erase --force)"
            )

    def is_erased(self, block: int, page: int, *, slc: bool = False) -> bool:
        """Blank check: at most 0.1 % of the page's bits differ from an unwritten page.

        An unwritten page reads all 1s, except an upper page (page type t > 0)
        whose lower pages are written: its cells sit in the lowest state the
        lower pages allow (charge only adds), so it reads that state's bit t
        (Gray code from the profile). The lower pages predict it: the data
        `program_page` wrote on them (kept while no other program or erase of theirs
        ran through this target), else read back. Either way the page itself is read.
        """
        geo = self.check_address(block, page, slc)
        n = geo.total_bytes
        data = np.frombuffer(self._read(block, page, slc=slc, column=0, length=n).data, np.uint8)
        page_type = 0 if slc else page % geo.bits_per_cell
        profile = self.transport.profile
        if page_type and profile is not None:
            first = page - page_type
            lowers = []
            for t in range(page_type):
                kept = self._written.get((block, first + t))
                if kept is None:
                    kept = self._read(block, first + t, slc=False, column=0, length=n).data
                lowers.append(np.frombuffer(kept, np.uint8))
            table = _unwritten_bit_table(profile.geometry.gray_code, page_type)
            expected = _expected_bytes(lowers, table)
        else:
            expected = np.full(n, 0xFF, dtype=np.uint8)
        # bytes compared 8 bits at a time: the bits that differ, counted without unpacking
        wrong = int(np.bitwise_count(data ^ expected).sum(dtype=np.int64))
        return wrong <= BLANK_ZERO_FRACTION * 8 * n

    def refuse_not_erased(
        self, block: int, pages: Sequence[int], slc: bool, force: bool, blank_check: bool
    ) -> None:
        """RefusedOperation when a page to program is not erased (unless force / no blank_check)."""
        if force or not blank_check:
            return
        for page in pages:
            if not self.is_erased(block, page, slc=slc):
                raise RefusedOperation(
                    f"program block {block} page {page}: the page is not erased (more than "
                    f"{BLANK_ZERO_FRACTION:.1%} of its bits read 0); erase the block first, or "
                    "force it (nandlab program --force) to program over it (charge only adds)"
                )

    # ------------------------------------------------------------------- read

    def read_page(
        self,
        block: int,
        page: int,
        *,
        slc: bool = False,
        plane: int | None = None,
        column: int = 0,
        length: int | None = None,
        force: bool = False,
    ) -> PageRead:
        """READ (00h-30h) `length` bytes (default: to the end of the spare) from `column`.

        `page` counts pages in the block's native mode, or WLs with slc=True.
        `plane`, when given, must be the block's plane (block % planes).
        """
        geo = self.check_address(block, page, slc)
        if plane is not None and plane != geo.plane_of(block):
            raise AddressError(
                f"block {block} is on plane {geo.plane_of(block)}, not plane {plane} "
                f"(plane = block % {geo.planes})"
            )
        n = geo.total_bytes - column if length is None else length
        geo.check_span(column, n)
        if n == 0:
            raise AddressError("a read needs at least 1 byte")
        self.refuse_bad([block], force, f"read block {block}")
        return self._read(block, page, slc=slc, column=column, length=n)

    def _read(self, block: int, page: int, *, slc: bool, column: int, length: int) -> PageRead:
        cycles = self.geometry.full_address(block, page, column)
        seq = core.page_read(self.sdr, cycles, length, self.timeouts.read)
        results = self.run_array(seq, slc=slc, what=f"READ block {block} page {page}")
        data = data_records(results)[0]
        return PageRead(block, page, data, sum(busy_steps(results)), slc, column)

    def soft_bit_read(
        self, block: int, page: int, delta_code: int, *, force: bool = False
    ) -> PageRead:
        """Vendor soft-bit read: 1 bits where the +-delta_code sensings agree (reliable cells).

        delta_code is in DAC steps (1..code_max). Needs the profile's vendor.soft_bit_read.
        """
        self.require("soft_bit_read", "soft-bit read")
        sbr = self.profile.vendor.soft_bit_read
        assert sbr is not None
        geo = self.check_address(block, page, False)
        self.check_soft_bit_delta(delta_code)
        self.refuse_bad([block], force, f"soft-bit read block {block}")
        self.set_feature(sbr.delta_feature, bytes([delta_code, 0, 0, 0]))
        seq = vendor.soft_bit_read(
            self.sdr, sbr, geo.full_address(block, page), geo.total_bytes, self.timeouts.read
        )
        what = f"SOFT-BIT READ block {block} page {page}"
        results = self.run_array(seq, slc=False, what=what)
        return PageRead(block, page, data_records(results)[0], sum(busy_steps(results)))

    def check_soft_bit_delta(self, delta_code: int) -> None:
        """RangeError unless `delta_code` is 1..code_max DAC steps."""
        code_max = self.profile.read_offsets.code_max
        if not isinstance(delta_code, int) or not 1 <= delta_code <= code_max:
            step = self.profile.read_offsets.step_mV
            raise RangeError(
                f"soft-bit delta {delta_code} is out of range: allowed 1..{code_max} DAC steps "
                f"({step:g}..{code_max * step:g} mV in steps of {step:g} mV)"
            )

    # -------------------------------------------------------- program, erase

    def run_with_status(
        self, body: Program, *, slc: bool, what: str, cache: bool = False
    ) -> OpResult:
        """Run `body` as an SLC or native array operation, then READ STATUS (after the SLC
        exit); ChipStatusFail on FAIL (and FAILC with cache=True)."""
        program = self.array_op(body, slc=slc, what=what) + core.read_status(self.sdr)
        results = self.run(program, what)
        return OpResult.of(self.check_status(results, what, cache=cache), results)

    def program_page(
        self,
        block: int,
        page: int,
        data: bytes,
        *,
        slc: bool = False,
        force: bool = False,
        blank_check: bool = True,
    ) -> OpResult:
        """PROGRAM (80h-10h) `data` from column 0 (bytes not given stay FFh).

        Refused on a bad block or a page that is not erased unless force=True;
        blank_check=False skips the read that checks the page is erased.
        """
        geo = self.check_address(block, page, slc)
        data = self.check_data(data)
        self.refuse_bad([block], force, f"program block {block}")
        self.refuse_not_erased(block, [page], slc, force, blank_check)
        what = f"PROGRAM block {block} page {page}" + (" (SLC)" if slc else "")
        cycles = geo.full_address(block, page)
        seq = core.page_program(self.sdr, cycles, data, self.timeouts.program)
        result = self.run_with_status(seq, slc=slc, what=what)
        if not slc and page % geo.bits_per_cell < geo.bits_per_cell - 1:
            # kept for the blank check of the pages above on its WL (bytes not given: FFh)
            self._written[(block, page)] = data + b"\xff" * (geo.total_bytes - len(data))
            if len(self._written) > KEPT_LOWER_PAGES:
                del self._written[next(iter(self._written))]
        return result

    def copyback(
        self,
        src_block: int,
        src_page: int,
        dst_block: int,
        dst_page: int,
        *,
        force: bool = False,
        blank_check: bool = True,
    ) -> OpResult:
        """COPYBACK: 00h-35h reads the source into the page register, 85h-10h programs it.

        Source and destination must be on the same plane.
        """
        geo = self.check_address(src_block, src_page, False)
        self.check_address(dst_block, dst_page, False)
        if geo.plane_of(src_block) != geo.plane_of(dst_block):
            raise AddressError(
                f"copyback from block {src_block} (plane {geo.plane_of(src_block)}) to block "
                f"{dst_block} (plane {geo.plane_of(dst_block)}): both must be on the same plane "
                f"(plane = block % {geo.planes})"
            )
        self.refuse_bad([src_block, dst_block], force, "copyback")
        self.refuse_not_erased(dst_block, [dst_page], False, force, blank_check)
        what = f"COPYBACK block {src_block} page {src_page} -> block {dst_block} page {dst_page}"
        timeouts = self.timeouts
        seq = core.copyback(
            self.sdr,
            geo.full_address(src_block, src_page),
            geo.full_address(dst_block, dst_page),
            timeouts.read,
            timeouts.program,
        )
        return self.run_with_status(seq, slc=False, what=what)

    def erase_block(self, block: int, *, force: bool = False) -> OpResult:
        """ERASE (60h-D0h) one block. Refused on a factory-bad block unless force=True."""
        geo = self.geometry
        geo.check_block(block)
        self.refuse_bad([block], force, f"erase block {block}")
        what = f"ERASE block {block}"
        seq = core.erase(self.sdr, geo.row_bytes(block), self.timeouts.erase)
        return self.run_with_status(seq, slc=False, what=what)


def _expected_bytes(lowers: list[np.ndarray], table: np.ndarray) -> np.ndarray:
    """The bytes an unwritten upper page reads over its lower pages `lowers` (page types
    0, 1, ...): bit by bit, table[key] with key = sum(lower_k bit << k).

    Built as the OR, over the keys whose table entry is 1, of the bitwise AND of each
    lower page or its complement: uint8 operations on whole bytes, no per-bit arrays.
    """
    out = np.zeros_like(lowers[0])
    for key in range(len(table)):
        if not table[key]:
            continue
        match = np.full_like(out, 0xFF)
        for k, lower in enumerate(lowers):
            match &= lower if (key >> k) & 1 else ~lower
        out |= match
    return out


def _unwritten_bit_table(gray_code: list[list[int]], page_type: int) -> np.ndarray:
    """Bit `page_type` of the lowest state consistent with each lower-page bit combination.

    Index = sum(bit_k << k) over the lower page types k < page_type.
    """
    table = np.ones(1 << page_type, dtype=np.uint8)
    for key in range(1 << page_type):
        lower = [(key >> k) & 1 for k in range(page_type)]
        for state in gray_code:  # ordered L0 (lowest Vth) upwards
            if state[:page_type] == lower:
                table[key] = state[page_type]
                break
    return table
