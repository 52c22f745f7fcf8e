"""`Chip`: one ONFI target (LUN) behind a transport.

The chip layer runs ONFI operations, built by the sequence library
(`nandlab.sequences`), on its transport; it never touches a die or a wire
itself. Every operation validates its address against the chip's geometry
first and raises before anything runs, so a refused request leaves the chip
unchanged. By concern: `onfi.target` (running programs, identification,
status, features, read offsets), `onfi.array` (page read, program, erase,
copyback, soft-bit read, bad-block and blank checks), this module (cache and
multi-plane operations), `onfi.testmode` and `onfi.power` on top.

Program and erase are never issued unless called; `force=True` is for the two
refusals that protect data and markers: operations on factory-bad blocks, and
programs to pages that are not erased.

Example::

    with open_bench("sim://mlc-64l?seed=1") as bench:
        chip = Chip(bench)
        chip.identify()
        chip.erase_block(12)
        chip.program_page(12, 0, data, blank_check=False)
        page = chip.read_page(12, 0)
"""

from __future__ import annotations

from collections.abc import Sequence

from nandlab.errors import AddressError
from nandlab.onfi.address import ChipGeometry
from nandlab.onfi.array import ArrayTarget
from nandlab.onfi.interface import (
    BusModes,
    NegotiatedInterface,
    bench_modes,
    board_modes,
    negotiate,
    sdr_rate,
    switch_to,
)
from nandlab.onfi.results import OpResult, PageRead, busy_steps, data_records
from nandlab.sequences import core


class Chip(ArrayTarget):
    """One ONFI target: chip enable `ce` of `transport`, with all its operations."""

    _negotiated: NegotiatedInterface | None = None

    # -------------------------------------------------------------- interface

    @property
    def interface(self) -> NegotiatedInterface:
        """The data interface the chip runs: what `negotiate_interface` chose, else the SDR
        mode the chip layer set (mode 0 after RESET)."""
        if self._negotiated is not None:
            return self._negotiated
        return NegotiatedInterface("sdr", self.timing_mode, sdr_rate(self.timing_mode))

    def negotiate_interface(
        self, board: BusModes | None = None, *, max_rate_mts: float | None = None
    ) -> NegotiatedInterface:
        """Switch to the fastest interface and mode the parameter page and the bench (and
        `board`, else the bench's board file when it names one) both offer; SDR with a
        reason when none is taken (`onfi.interface.negotiate`)."""
        self._negotiated = None
        chosen = negotiate(self, self._bus(board), max_rate_mts=max_rate_mts)
        self._negotiated = chosen
        return chosen

    def use_interface(self, interface: str, mode: int) -> NegotiatedInterface:
        """Switch to one interface mode both the part and the bench (with its board file's
        modes and warm-up) offer (`onfi.interface.switch_to`): RangeError when one does not,
        FeatureNotAccepted when the part does not take it."""
        self._negotiated = None
        chosen = switch_to(self, interface, mode, self._bus(None))
        self._negotiated = None if interface == "sdr" else chosen
        return chosen

    def _bus(self, board: BusModes | None) -> BusModes:
        """What the bench drives: the transport's modes narrowed to `board`, else to the
        board file the bench names."""
        named = self.transport.board
        if board is None and named is not None:
            board = board_modes(named.interfaces)
        return bench_modes(self.transport.supports, board)

    def reset(self) -> int:
        self._negotiated = None
        return super().reset()

    def set_timing_mode(self, mode: int) -> None:
        self._negotiated = None
        super().set_timing_mode(mode)

    def _check_run(self, first: int, count: int, slc: bool, what: str) -> ChipGeometry:
        geo = self.geometry
        if count < 1 or first + count > geo.pages_in_mode(slc):
            raise AddressError(
                f"{what} of {count} pages from page {first} runs outside the block: "
                f"count 1..{geo.pages_in_mode(slc) - first}"
            )
        return geo

    def check_planes(self, blocks: Sequence[int], what: str) -> ChipGeometry:
        """The geometry, after checking `blocks` are 1..planes blocks on distinct planes."""
        geo = self.geometry
        if not 1 <= len(blocks) <= geo.planes:
            raise AddressError(f"{what} takes 1..{geo.planes} blocks, one per plane")
        for b in blocks:
            geo.check_block(b)
        planes = [geo.plane_of(b) for b in blocks]
        if len(set(planes)) != len(planes):
            raise AddressError(
                f"{what}: blocks {', '.join(map(str, blocks))} are on planes "
                f"{', '.join(map(str, planes))}; each block must be on a distinct plane "
                f"(plane = block % {geo.planes})"
            )
        return geo

    # ------------------------------------------------------------------- read

    def read_cache_sequential(
        self, block: int, first_page: int, count: int, *, slc: bool = False, force: bool = False
    ) -> list[PageRead]:
        """Cache read: 00h-30h, then 31h per further page, 3Fh for the last; whole pages.

        Each page's busy_ns is the cache busy time before its output (tRCBSY); the
        first page's also includes tR.
        """
        self.check_address(block, first_page, slc)
        geo = self._check_run(first_page, count, slc, "cache read")
        self.refuse_bad([block], force, f"cache read block {block}")
        n = geo.total_bytes
        if count == 1:
            return [self._read(block, first_page, slc=slc, column=0, length=n)]
        seq = core.cache_read(
            self.sdr, geo.full_address(block, first_page), count, n, self.timeouts.read
        )
        what = f"CACHE READ block {block} pages {first_page}.."
        results = self.run_array(seq, slc=slc, what=what)
        datas, busys = data_records(results), list(busy_steps(results))
        # busys[0] is tR of the first page; busys[i + 1] precedes the output of page i.
        busys[1] += busys[0]
        return [PageRead(block, first_page + i, datas[i], busys[i + 1], slc) for i in range(count)]

    def read_multiplane(
        self, blocks: Sequence[int], page: int, *, slc: bool = False, force: bool = False
    ) -> list[PageRead]:
        """Multi-plane read: 00h-32h per plane, 00h-30h for the last, then each plane's data.

        Each plane's data is then selected with 06h + address + E0h (change read column
        enhanced). busy_ns is the total busy time of the operation.
        """
        geo = self.check_planes(blocks, "multi-plane read")
        geo.check_page(page, slc)
        self.refuse_bad(blocks, force, "multi-plane read")
        seq = core.multiplane_read(
            self.sdr,
            [geo.full_address(b, page) for b in blocks],
            geo.total_bytes,
            self.t_ccs,
            self.timeouts.read,
        )
        results = self.run_array(seq, slc=slc, what="MULTI-PLANE READ")
        busy = sum(busy_steps(results))
        datas = data_records(results)
        return [PageRead(b, page, d, busy, slc) for b, d in zip(blocks, datas, strict=True)]

    # ---------------------------------------------------------------- program

    def program_cache(
        self,
        block: int,
        first_page: int,
        pages_data: Sequence[bytes],
        *,
        slc: bool = False,
        force: bool = False,
        blank_check: bool = True,
    ) -> OpResult:
        """Cache program: 80h-15h for every page but the last, 80h-10h for the last."""
        self.check_address(block, first_page, slc)
        count = len(pages_data)
        geo = self._check_run(first_page, count, slc, "cache program")
        datas = [self.check_data(d) for d in pages_data]
        self.refuse_bad([block], force, f"cache program block {block}")
        self.refuse_not_erased(
            block, range(first_page, first_page + count), slc, force, blank_check
        )
        what = f"CACHE PROGRAM block {block} pages {first_page}..{first_page + count - 1}"
        pages = [(geo.full_address(block, first_page + i), d) for i, d in enumerate(datas)]
        seq = core.cache_program(self.sdr, pages, self.timeouts.program)
        return self.run_with_status(seq, slc=slc, what=what, cache=True)

    def program_multiplane(
        self,
        blocks: Sequence[int],
        page: int,
        datas: Sequence[bytes],
        *,
        slc: bool = False,
        force: bool = False,
        blank_check: bool = True,
    ) -> OpResult:
        """Multi-plane program: 80h-11h per plane, 80h-10h for the last."""
        geo = self.check_planes(blocks, "multi-plane program")
        geo.check_page(page, slc)
        if len(datas) != len(blocks):
            raise AddressError(f"multi-plane program: {len(blocks)} blocks but {len(datas)} pages")
        checked = [self.check_data(d) for d in datas]
        self.refuse_bad(blocks, force, "multi-plane program")
        for b in blocks:
            self.refuse_not_erased(b, [page], slc, force, blank_check)
        what = f"MULTI-PLANE PROGRAM blocks {', '.join(map(str, blocks))} page {page}"
        planes = [(geo.full_address(b, page), d) for b, d in zip(blocks, checked, strict=True)]
        seq = core.multiplane_program(self.sdr, planes, self.timeouts.program)
        return self.run_with_status(seq, slc=slc, what=what)

    # ------------------------------------------------------------------ erase

    def erase_multiplane(self, blocks: Sequence[int], *, force: bool = False) -> OpResult:
        """Multi-plane erase: 60h-D1h per plane, 60h-D0h for the last."""
        geo = self.check_planes(blocks, "multi-plane erase")
        self.refuse_bad(blocks, force, "multi-plane erase")
        what = f"MULTI-PLANE ERASE blocks {', '.join(map(str, blocks))}"
        rows = [geo.row_bytes(b) for b in blocks]
        seq = core.multiplane_erase(self.sdr, rows, self.timeouts.erase)
        return self.run_with_status(seq, slc=False, what=what)
