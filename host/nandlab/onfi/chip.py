"""`Chip`: one ONFI target (LUN) behind a transport.

The chip layer turns ONFI operations into op programs (contract 1) and runs
them on its transport; it never touches a die or a wire itself. Every
operation validates its address against the chip's geometry first and raises
before anything runs, so a refused request leaves the chip unchanged.

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

import numpy as np

from nandlab.errors import (
    AddressError,
    ChipStatusFail,
    NandTimeout,
    RangeError,
    RefusedOperation,
    TransportError,
    UnsupportedCapability,
)
from nandlab.onfi.address import ChipGeometry
from nandlab.onfi.bbt import BadBlockTable
from nandlab.onfi.identify import identify_target
from nandlab.onfi.ops_builder import OpsBuilder
from nandlab.onfi.results import Identification, OpResult, PageRead
from nandlab.onfi_spec.opcodes import PARAMETER_PAGE_BYTES, UNIQUE_ID_BYTES, Cmd, Feature, Status
from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.ops import ErrorCode, Results
from nandlab.profiles import Profile
from nandlab.profiles.model import ReadReference
from nandlab.transport.base import Transport

BLANK_ZERO_FRACTION = 1e-3
"""A page with more than this fraction of bits unlike an unwritten page is not erased."""
TIMEOUT_SAFETY = 4
"""WAIT_RDY timeouts = this x the parameter page maximum (tR, tPROG, tBERS)."""
DEFAULT_TIMEOUT_NS = 50_000_000
"""Timeout of RESET (tRST) and, before the parameter page is known, of array operations."""
U32_MAX = 0xFFFFFFFF


class Chip:
    """One ONFI target: chip enable `ce` of `transport`.

    The chip identifies itself on first need (READ ID, parameter page) without
    a RESET, so settings made by an earlier session (timing mode, read
    offsets) survive; call `identify()` (which resets by default) to start
    clean.
    """

    def __init__(self, transport: Transport, ce: int = 0) -> None:
        if not 0 <= ce < transport.targets:
            raise AddressError(
                f"chip enable {ce} is not on this bench: allowed 0..{transport.targets - 1}"
            )
        self.transport = transport
        self.ce = ce
        self._ident: Identification | None = None
        self._geometry: ChipGeometry | None = None
        self._timing_mode = 0
        self._bbt: BadBlockTable | None = None

    # ------------------------------------------------------------------ basics

    @property
    def profile(self) -> Profile:
        """The profile the bench declares (needed for offsets and vendor operations)."""
        profile = self.transport.profile
        if profile is None:
            raise UnsupportedCapability(
                f"bench {self.transport.url} declares no chip profile: read offsets and vendor "
                "operations need one (give ?profile=... in the bench URL)"
            )
        return profile

    @property
    def identification(self) -> Identification:
        if self._ident is None:
            self.identify(reset=False)
        assert self._ident is not None
        return self._ident

    @property
    def geometry(self) -> ChipGeometry:
        """Geometry decoded from the parameter page (identifies on first use)."""
        if self._geometry is None:
            self.identify(reset=False)
        assert self._geometry is not None
        return self._geometry

    @property
    def timing_mode(self) -> int:
        """SDR timing mode the chip layer believes the target is in."""
        return self._timing_mode

    def _new(self) -> OpsBuilder:
        return OpsBuilder(self.ce, sdr(self._timing_mode))

    def _run(self, ops: OpsBuilder, what: str) -> Results:
        results = self.transport.run(ops.program())
        for err in results.errors:
            if err.code == ErrorCode.TIMEOUT:
                raise NandTimeout(
                    f"{what}: R/B# stayed low past the timeout (CE {self.ce}, "
                    f"instruction {err.index})"
                )
            raise TransportError(
                f"{what}: the bench reported error {ErrorCode(err.code).name} at "
                f"instruction {err.index} (CE {self.ce})"
            )
        return results

    def _timeout(self, field: str) -> int:
        if self._ident is None:
            return DEFAULT_TIMEOUT_NS
        us = int(self._ident.fields.get(field) or 0)
        if us <= 0:
            return DEFAULT_TIMEOUT_NS
        return min(U32_MAX, us * 1000 * TIMEOUT_SAFETY)

    @property
    def _t_r(self) -> int:
        return self._timeout("t_r_us")

    @property
    def _t_prog(self) -> int:
        return self._timeout("t_prog_us")

    @property
    def _t_bers(self) -> int:
        return self._timeout("t_bers_us")

    @property
    def _t_feat(self) -> int:
        """tFEAT (ONFI: 1 us; the profile may declare a longer one) x the safety factor."""
        feat_ns = sdr(self._timing_mode).tFEAT
        if self.transport.profile is not None:
            feat_ns = max(feat_ns, round(self.transport.profile.timing.t_feat_us * 1000))
        return feat_ns * TIMEOUT_SAFETY

    @property
    def _t_ccs(self) -> int:
        if self._ident is not None and self._ident.fields.get("t_ccs_ns"):
            return int(self._ident.fields["t_ccs_ns"])
        return sdr(self._timing_mode).tCCS

    # ------------------------------------------------------------ identify

    def identify(self, *, reset: bool = True) -> Identification:
        """RESET (optional), READ ID 00h / 20h, parameter page, READ UNIQUE ID.

        Afterwards the chip addresses with the decoded geometry. Without
        reset, the target keeps its timing mode, which is read back (GET
        FEATURES 01h) so the bench switches to it too. Raises NotOnfiChip,
        ParameterPageCRCError, UniqueIdError, and ProfileMismatch when the
        parameter page disagrees with the bench's profile.
        """
        if reset:
            self.reset()
        ident, geometry = identify_target(self, self.transport.profile)
        self._ident, self._geometry = ident, geometry
        if not reset:
            mode = self.get_feature(Feature.TIMING_MODE)[0] & 0x0F
            if mode != self._timing_mode and mode in _supported_modes(ident.fields):
                self._run(self._new().timing(mode), f"TIMING mode {mode}")
                self._timing_mode = mode
        return ident

    def reset(self) -> int:
        """RESET (FFh); the target returns to SDR timing mode 0. Returns busy ns."""
        ops = self._new()
        ops.cmd(Cmd.RESET).delay_wb().wait(DEFAULT_TIMEOUT_NS).timing(0)
        results = self._run(ops, "RESET")
        self._timing_mode = 0
        return _busy_total(results)

    def read_id(self, address: int, n: int) -> bytes:
        """READ ID (90h) at `address` (00h JEDEC, 20h ONFI): `n` bytes."""
        ops = self._new()
        ops.cmd(Cmd.READ_ID).addr(bytes([address])).delay_whr().dout(n)
        return _data(self._run(ops, f"READ ID {address:02X}h"))[0]

    def read_parameter_pages(self, copies: int) -> bytes:
        """READ PARAMETER PAGE (ECh): `copies` x 256 bytes as read."""
        ops = self._new()
        ops.cmd(Cmd.READ_PARAMETER_PAGE).addr(b"\x00").delay_wb().wait(self._t_r)
        ops.dout(PARAMETER_PAGE_BYTES * copies)
        return _data(self._run(ops, "READ PARAMETER PAGE"))[0]

    def read_unique_id_raw(self, copies: int) -> bytes:
        """READ UNIQUE ID (EDh): `copies` x (16 id bytes + 16 complement bytes)."""
        ops = self._new()
        ops.cmd(Cmd.READ_UNIQUE_ID).addr(b"\x00").delay_wb().wait(self._t_r)
        ops.dout(2 * UNIQUE_ID_BYTES * copies)
        return _data(self._run(ops, "READ UNIQUE ID"))[0]

    # ------------------------------------------------------- status, features

    def status(self) -> int:
        """READ STATUS (70h): the status byte (see onfi_spec.opcodes.Status)."""
        ops = self._new()
        ops.cmd(Cmd.READ_STATUS).delay_whr().dout(1)
        return _data(self._run(ops, "READ STATUS"))[0][0]

    def status_enhanced(self, block: int) -> int:
        """READ STATUS ENHANCED (78h) of the plane / LUN holding `block`."""
        geo = self.geometry
        geo.check_block(block)
        ops = self._new()
        ops.cmd(Cmd.READ_STATUS_ENHANCED).addr(geo.row_bytes(block)).delay_whr().dout(1)
        return _data(self._run(ops, f"READ STATUS ENHANCED block {block}"))[0][0]

    def get_feature(self, fa: int) -> bytes:
        """GET FEATURES (EEh) at feature address `fa`: P1..P4."""
        _check_byte("feature address", fa)
        ops = self._new()
        ops.cmd(Cmd.GET_FEATURES).addr(bytes([fa])).delay_wb().wait(self._t_feat)
        ops.delay_rr().dout(4)
        return _data(self._run(ops, f"GET FEATURES {fa:02X}h"))[0]

    def set_feature(self, fa: int, params: bytes) -> int:
        """SET FEATURES (EFh) at `fa` with P1..P4 (4 bytes). Returns busy ns (tFEAT)."""
        _check_byte("feature address", fa)
        if len(params) != 4:
            raise RangeError(f"SET FEATURES takes 4 parameter bytes (P1..P4), got {len(params)}")
        ops = self._new()
        ops.cmd(Cmd.SET_FEATURES).addr(bytes([fa])).delay_adl().din(bytes(params))
        ops.delay_wb().wait(self._t_feat)
        return _busy_total(self._run(ops, f"SET FEATURES {fa:02X}h"))

    def set_timing_mode(self, mode: int) -> None:
        """Switch the target and the bench to SDR timing `mode` (one of the profile's sdr_modes)."""
        allowed = self.profile.timing.sdr_modes
        if mode not in allowed:
            raise RangeError(
                f"SDR timing mode {mode} is not supported by {self.profile.name}: "
                f"allowed {', '.join(map(str, allowed))}"
            )
        ops = self._new()
        ops.cmd(Cmd.SET_FEATURES).addr(bytes([Feature.TIMING_MODE])).delay_adl()
        ops.din(bytes([mode, 0, 0, 0])).delay_wb().wait(self._t_feat).timing(mode)
        self._run(ops, f"SET FEATURES timing mode {mode}")
        self._timing_mode = mode

    def set_write_protect(self, protect: bool) -> None:
        """Drive WP# (low = protected): program and erase then fail with status FAIL."""
        ops = self._new()
        ops.wp(not protect)
        self._run(ops, "GPIO WP#")

    # ---------------------------------------------------------- read offsets

    def _reference(self, ref_index: int, slc: bool) -> ReadReference:
        offsets = self.profile.read_offsets
        if slc:
            return offsets.slc_reference
        refs = offsets.references
        if not 0 <= ref_index < len(refs):
            raise RangeError(
                f"read reference {ref_index} does not exist on {self.profile.name}: "
                f"allowed 0..{len(refs) - 1} ({', '.join(r.name for r in refs)})"
            )
        return refs[ref_index]

    def read_offsets_mV(self) -> dict[str, float]:
        """Current offset of every read reference (native ones, then the SLC one), in mV."""
        offsets = self.profile.read_offsets
        out: dict[str, float] = {}
        cache: dict[int, bytes] = {}
        for ref in [*offsets.references, offsets.slc_reference]:
            if ref.feature not in cache:
                cache[ref.feature] = self.get_feature(ref.feature)
            code = int(np.int8(np.uint8(cache[ref.feature][ref.param])))
            out[ref.name] = code * offsets.step_mV
        return out

    def set_read_offset_code(self, ref_index: int, code: int, *, slc: bool = False) -> None:
        """Set read reference `ref_index` (or the SLC one) to offset `code` DAC steps."""
        offsets = self.profile.read_offsets
        ref = self._reference(ref_index, slc)
        step = offsets.step_mV
        if not isinstance(code, int) or not offsets.code_min <= code <= offsets.code_max:
            raise RangeError(
                f"read offset code {code} for {ref.name} is out of range: allowed codes "
                f"{offsets.code_min}..{offsets.code_max}, i.e. {offsets.code_min * step:g}.."
                f"{offsets.code_max * step:g} mV in steps of {step:g} mV"
            )
        params = bytearray(self.get_feature(ref.feature))
        params[ref.param] = code & 0xFF
        self.set_feature(ref.feature, bytes(params))

    def set_read_offset_mV(self, ref_index: int, mV: float, *, slc: bool = False) -> None:
        """Set a read reference offset in mV (a whole number of DAC steps)."""
        offsets = self.profile.read_offsets
        ref = self._reference(ref_index, slc)
        code = round(mV / offsets.step_mV)
        lo, hi = offsets.code_min * offsets.step_mV, offsets.code_max * offsets.step_mV
        if abs(code * offsets.step_mV - mV) > 1e-6 or not lo <= mV <= hi:
            raise RangeError(
                f"read offset {mV:g} mV for {ref.name} is not allowed: {lo:g}..{hi:g} mV "
                f"in steps of {offsets.step_mV:g} mV"
            )
        self.set_read_offset_code(ref_index, code, slc=slc)

    def reset_read_offsets(self) -> None:
        """Set every read reference offset (native and SLC) back to 0."""
        offsets = self.profile.read_offsets
        touched: dict[int, bytearray] = {}
        for ref in [*offsets.references, offsets.slc_reference]:
            if ref.feature not in touched:
                touched[ref.feature] = bytearray(self.get_feature(ref.feature))
            touched[ref.feature][ref.param] = 0
        for fa, params in touched.items():
            self.set_feature(fa, bytes(params))

    # ------------------------------------------------------------ bad blocks

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

    def _refuse_bad(self, blocks: Sequence[int], force: bool, what: str) -> None:
        if force:
            return
        bad = [b for b in blocks if self.is_bad_block(b)]
        if bad:
            raise RefusedOperation(
                f"{what}: block {', '.join(map(str, bad))} carries the factory bad-block "
                "marker; pass force=True to operate on it anyway"
            )

    # -------------------------------------------------------------- capability

    def _require(self, capability: str, what: str) -> None:
        profile = self.transport.profile
        section = getattr(profile.vendor, capability, None) if profile is not None else None
        if section is None:
            name = profile.name if profile is not None else "(none)"
            raise UnsupportedCapability(
                f"{what} needs the vendor operation '{capability}', but the profile {name} has "
                f"no vendor.{capability} section"
            )
        if not self.transport.supports(capability):
            raise UnsupportedCapability(
                f"{what} needs '{capability}', which bench {self.transport.url} does not support"
            )

    def _new_op(self, slc: bool, what: str) -> OpsBuilder:
        """Builder for an array operation in SLC or native mode.

        The vendor SLC mode is sticky on the die, so an SLC operation enters it
        and `_end_op` leaves it; a native operation first leaves it in case an
        aborted program left the die in SLC mode.
        """
        ops = self._new()
        vendor_slc = self.transport.profile.vendor.slc_mode if self.transport.profile else None
        if slc:
            self._require("slc_mode", what)
            assert vendor_slc is not None
            ops.cmd(vendor_slc.enter_cmd)
        elif vendor_slc is not None:
            ops.cmd(vendor_slc.exit_cmd)
        return ops

    def _end_op(self, ops: OpsBuilder, slc: bool) -> OpsBuilder:
        if slc:
            vendor_slc = self.profile.vendor.slc_mode
            assert vendor_slc is not None
            ops.cmd(vendor_slc.exit_cmd)
        return ops

    def _check_addr(self, block: int, page: int, slc: bool) -> ChipGeometry:
        geo = self.geometry
        geo.check_block(block)
        geo.check_page(page, slc)
        return geo

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
        geo = self._check_addr(block, page, slc)
        if plane is not None and plane != geo.plane_of(block):
            raise AddressError(
                f"block {block} is on plane {geo.plane_of(block)}, not plane {plane} "
                f"(plane = block % {geo.planes})"
            )
        n = geo.total_bytes - column if length is None else length
        geo.check_span(column, n)
        if n == 0:
            raise AddressError("a read needs at least 1 byte")
        self._refuse_bad([block], force, f"read block {block}")
        return self._read(block, page, slc=slc, column=column, length=n)

    def _read(self, block: int, page: int, *, slc: bool, column: int, length: int) -> PageRead:
        geo = self.geometry
        ops = self._new_op(slc, "SLC read")
        ops.cmd(Cmd.READ).addr(geo.full_address(block, page, column)).cmd(Cmd.READ_CONFIRM)
        ops.delay_wb().wait(self._t_r).delay_rr().dout(length)
        self._end_op(ops, slc)
        results = self._run(ops, f"READ block {block} page {page}")
        return PageRead(block, page, _data(results)[0], _busy_total(results), slc, column)

    def read_cache_sequential(
        self, block: int, first_page: int, count: int, *, slc: bool = False, force: bool = False
    ) -> list[PageRead]:
        """Cache read: 00h-30h, then 31h per further page, 3Fh for the last; whole pages.

        Each page's busy_ns is the cache busy time before its output (tRCBSY); the
        first page's also includes tR.
        """
        geo = self._check_addr(block, first_page, slc)
        if count < 1 or first_page + count > geo.pages_in_mode(slc):
            raise AddressError(
                f"cache read of {count} pages from page {first_page} runs outside the block: "
                f"count 1..{geo.pages_in_mode(slc) - first_page}"
            )
        self._refuse_bad([block], force, f"cache read block {block}")
        if count == 1:
            return [self._read(block, first_page, slc=slc, column=0, length=geo.total_bytes)]
        n = geo.total_bytes
        ops = self._new_op(slc, "SLC cache read")
        ops.cmd(Cmd.READ).addr(geo.full_address(block, first_page)).cmd(Cmd.READ_CONFIRM)
        ops.delay_wb().wait(self._t_r)
        for i in range(count):
            last = i == count - 1
            ops.cmd(Cmd.READ_CACHE_END if last else Cmd.READ_CACHE_SEQUENTIAL)
            ops.delay_wb().wait(self._t_r).delay_rr().dout(n)
        self._end_op(ops, slc)
        results = self._run(ops, f"CACHE READ block {block} pages {first_page}..")
        datas, busys = _data(results), _busy_list(results)
        # busys[0] is tR of the first page; busys[i + 1] precedes the output of page i.
        busys[1] += busys[0]
        return [PageRead(block, first_page + i, datas[i], busys[i + 1], slc) for i in range(count)]

    def _check_planes(self, blocks: Sequence[int], what: str) -> ChipGeometry:
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

    def read_multiplane(
        self, blocks: Sequence[int], page: int, *, slc: bool = False, force: bool = False
    ) -> list[PageRead]:
        """Multi-plane read: 00h-32h per plane, 00h-30h for the last, then each plane's data.

        Each plane's data is then selected with 06h + address + E0h (change read column
        enhanced). busy_ns is the total busy time of the operation.
        """
        geo = self._check_planes(blocks, "multi-plane read")
        geo.check_page(page, slc)
        self._refuse_bad(blocks, force, "multi-plane read")
        ops = self._new_op(slc, "SLC multi-plane read")
        for i, b in enumerate(blocks):
            last = i == len(blocks) - 1
            ops.cmd(Cmd.READ).addr(geo.full_address(b, page))
            ops.cmd(Cmd.READ_CONFIRM if last else Cmd.READ_MULTIPLANE)
            ops.delay_wb().wait(self._t_r)
        for b in blocks:
            ops.cmd(Cmd.CHANGE_READ_COLUMN_ENHANCED).addr(geo.full_address(b, page))
            ops.cmd(Cmd.CHANGE_READ_COLUMN_CONFIRM).delay(self._t_ccs).dout(geo.total_bytes)
        self._end_op(ops, slc)
        results = self._run(ops, "MULTI-PLANE READ")
        busy = _busy_total(results)
        datas = _data(results)
        return [PageRead(b, page, d, busy, slc) for b, d in zip(blocks, datas, strict=True)]

    def soft_bit_read(
        self, block: int, page: int, delta_code: int, *, force: bool = False
    ) -> PageRead:
        """Vendor soft-bit read: 1 bits where the +-delta_code sensings agree (reliable cells).

        delta_code is in DAC steps (1..code_max). Needs the profile's vendor.soft_bit_read.
        """
        self._require("soft_bit_read", "soft-bit read")
        sbr = self.profile.vendor.soft_bit_read
        assert sbr is not None
        geo = self._check_addr(block, page, False)
        code_max = self.profile.read_offsets.code_max
        if not isinstance(delta_code, int) or not 1 <= delta_code <= code_max:
            step = self.profile.read_offsets.step_mV
            raise RangeError(
                f"soft-bit delta {delta_code} is out of range: allowed 1..{code_max} DAC steps "
                f"({step:g}..{code_max * step:g} mV in steps of {step:g} mV)"
            )
        self._refuse_bad([block], force, f"soft-bit read block {block}")
        self.set_feature(sbr.delta_feature, bytes([delta_code, 0, 0, 0]))
        ops = self._new_op(False, "soft-bit read")
        ops.cmd(Cmd.READ).addr(geo.full_address(block, page)).cmd(sbr.confirm_cmd)
        ops.delay_wb().wait(self._t_r).delay_rr().dout(geo.total_bytes)
        results = self._run(ops, f"SOFT-BIT READ block {block} page {page}")
        return PageRead(block, page, _data(results)[0], _busy_total(results))

    # ---------------------------------------------------------------- program

    def _check_data(self, data: bytes) -> bytes:
        geo = self.geometry
        data = bytes(data)
        if not 1 <= len(data) <= geo.total_bytes:
            raise AddressError(
                f"{len(data)} data bytes do not fit a page: allowed 1..{geo.total_bytes} "
                f"(page {geo.page_bytes} + spare {geo.spare_bytes})"
            )
        return data

    def is_erased(self, block: int, page: int, *, slc: bool = False) -> bool:
        """Blank check: at most 0.1 % of the page's bits differ from an unwritten page.

        An unwritten page reads all 1s, except an upper page (page type t > 0)
        whose lower pages are written: its cells sit in the lowest state the
        lower pages allow (charge only adds), so it reads that state's bit t
        (Gray code from the profile). The lower pages are read to predict it.
        """
        geo = self._check_addr(block, page, slc)
        n = geo.total_bytes
        bits = np.unpackbits(
            np.frombuffer(self._read(block, page, slc=slc, column=0, length=n).data, np.uint8)
        )
        page_type = 0 if slc else page % geo.bits_per_cell
        expected: np.ndarray | int = 1
        profile = self.transport.profile
        if page_type and profile is not None:
            first = page - page_type
            key = np.zeros(bits.size, dtype=np.int64)
            for t in range(page_type):
                lower = self._read(block, first + t, slc=False, column=0, length=n).data
                key |= np.unpackbits(np.frombuffer(lower, np.uint8)).astype(np.int64) << t
            expected = _unwritten_bit_table(profile.geometry.gray_code, page_type)[key]
        wrong = int(np.count_nonzero(bits != expected))
        return wrong <= BLANK_ZERO_FRACTION * bits.size

    def _refuse_not_erased(
        self, block: int, pages: Sequence[int], slc: bool, force: bool, blank_check: bool
    ) -> None:
        if force or not blank_check:
            return
        for page in pages:
            if not self.is_erased(block, page, slc=slc):
                raise RefusedOperation(
                    f"program block {block} page {page}: the page is not erased (more than "
                    f"{BLANK_ZERO_FRACTION:.1%} of its bits read 0); erase the block first, or "
                    "pass force=True to program over it (charge only adds)"
                )

    def _check_status(self, results: Results, what: str, cache: bool = False) -> int:
        """FAIL of the operation; with cache=True also FAILC (the previous cached page)."""
        status = _data(results)[-1][0]
        if status & (Status.FAIL | (Status.FAILC if cache else 0)):
            wp = "" if status & Status.WP_N else " (WP# is low: the target is write protected)"
            raise ChipStatusFail(f"{what}: status {status:02X}h reports FAIL{wp}")
        return status

    def _status_tail(self, ops: OpsBuilder) -> None:
        ops.cmd(Cmd.READ_STATUS).delay_whr().dout(1)

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
        geo = self._check_addr(block, page, slc)
        data = self._check_data(data)
        self._refuse_bad([block], force, f"program block {block}")
        self._refuse_not_erased(block, [page], slc, force, blank_check)
        what = f"PROGRAM block {block} page {page}" + (" (SLC)" if slc else "")
        ops = self._new_op(slc, "SLC program")
        ops.cmd(Cmd.PROGRAM).addr(geo.full_address(block, page)).delay_adl().din(data)
        ops.cmd(Cmd.PROGRAM_CONFIRM).delay_wb().wait(self._t_prog)
        self._end_op(ops, slc)
        self._status_tail(ops)
        results = self._run(ops, what)
        return OpResult(self._check_status(results, what), *_busy_pair(results))

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
        geo = self._check_addr(block, first_page, slc)
        count = len(pages_data)
        if count < 1 or first_page + count > geo.pages_in_mode(slc):
            raise AddressError(
                f"cache program of {count} pages from page {first_page} runs outside the "
                f"block: count 1..{geo.pages_in_mode(slc) - first_page}"
            )
        datas = [self._check_data(d) for d in pages_data]
        self._refuse_bad([block], force, f"cache program block {block}")
        self._refuse_not_erased(
            block, range(first_page, first_page + count), slc, force, blank_check
        )
        what = f"CACHE PROGRAM block {block} pages {first_page}..{first_page + count - 1}"
        ops = self._new_op(slc, "SLC cache program")
        for i, data in enumerate(datas):
            last = i == count - 1
            ops.cmd(Cmd.PROGRAM).addr(geo.full_address(block, first_page + i)).delay_adl()
            ops.din(data).cmd(Cmd.PROGRAM_CONFIRM if last else Cmd.PROGRAM_CACHE)
            ops.delay_wb().wait(self._t_prog)
        self._end_op(ops, slc)
        self._status_tail(ops)
        results = self._run(ops, what)
        status = self._check_status(results, what, cache=True)
        return OpResult(status, *_busy_pair(results))

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
        geo = self._check_planes(blocks, "multi-plane program")
        geo.check_page(page, slc)
        if len(datas) != len(blocks):
            raise AddressError(f"multi-plane program: {len(blocks)} blocks but {len(datas)} pages")
        checked = [self._check_data(d) for d in datas]
        self._refuse_bad(blocks, force, "multi-plane program")
        for b in blocks:
            self._refuse_not_erased(b, [page], slc, force, blank_check)
        what = f"MULTI-PLANE PROGRAM blocks {', '.join(map(str, blocks))} page {page}"
        ops = self._new_op(slc, "SLC multi-plane program")
        for i, (b, data) in enumerate(zip(blocks, checked, strict=True)):
            last = i == len(blocks) - 1
            ops.cmd(Cmd.PROGRAM).addr(geo.full_address(b, page)).delay_adl().din(data)
            ops.cmd(Cmd.PROGRAM_CONFIRM if last else Cmd.PROGRAM_MULTIPLANE)
            ops.delay_wb().wait(self._t_prog)
        self._end_op(ops, slc)
        self._status_tail(ops)
        results = self._run(ops, what)
        return OpResult(self._check_status(results, what), *_busy_pair(results))

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
        geo = self._check_addr(src_block, src_page, False)
        self._check_addr(dst_block, dst_page, False)
        if geo.plane_of(src_block) != geo.plane_of(dst_block):
            raise AddressError(
                f"copyback from block {src_block} (plane {geo.plane_of(src_block)}) to block "
                f"{dst_block} (plane {geo.plane_of(dst_block)}): both must be on the same plane "
                f"(plane = block % {geo.planes})"
            )
        self._refuse_bad([src_block, dst_block], force, "copyback")
        self._refuse_not_erased(dst_block, [dst_page], False, force, blank_check)
        what = f"COPYBACK block {src_block} page {src_page} -> block {dst_block} page {dst_page}"
        ops = self._new_op(False, "copyback")
        ops.cmd(Cmd.READ).addr(geo.full_address(src_block, src_page)).cmd(Cmd.COPYBACK_READ)
        ops.delay_wb().wait(self._t_r)
        ops.cmd(Cmd.CHANGE_WRITE_COLUMN).addr(geo.full_address(dst_block, dst_page)).delay_adl()
        ops.cmd(Cmd.PROGRAM_CONFIRM).delay_wb().wait(self._t_prog)
        self._status_tail(ops)
        results = self._run(ops, what)
        return OpResult(self._check_status(results, what), *_busy_pair(results))

    # ------------------------------------------------------------------ erase

    def erase_block(self, block: int, *, force: bool = False) -> OpResult:
        """ERASE (60h-D0h) one block. Refused on a factory-bad block unless force=True."""
        geo = self.geometry
        geo.check_block(block)
        self._refuse_bad([block], force, f"erase block {block}")
        what = f"ERASE block {block}"
        ops = self._new_op(False, "erase")
        ops.cmd(Cmd.ERASE).addr(geo.row_bytes(block)).cmd(Cmd.ERASE_CONFIRM)
        ops.delay_wb().wait(self._t_bers)
        self._status_tail(ops)
        results = self._run(ops, what)
        return OpResult(self._check_status(results, what), *_busy_pair(results))

    def erase_multiplane(self, blocks: Sequence[int], *, force: bool = False) -> OpResult:
        """Multi-plane erase: 60h-D1h per plane, 60h-D0h for the last."""
        geo = self._check_planes(blocks, "multi-plane erase")
        self._refuse_bad(blocks, force, "multi-plane erase")
        what = f"MULTI-PLANE ERASE blocks {', '.join(map(str, blocks))}"
        ops = self._new_op(False, "multi-plane erase")
        for i, b in enumerate(blocks):
            last = i == len(blocks) - 1
            ops.cmd(Cmd.ERASE).addr(geo.row_bytes(b))
            ops.cmd(Cmd.ERASE_CONFIRM if last else Cmd.ERASE_MULTIPLANE)
            ops.delay_wb().wait(self._t_bers)
        self._status_tail(ops)
        results = self._run(ops, what)
        return OpResult(self._check_status(results, what), *_busy_pair(results))


def _supported_modes(fields: dict[str, object]) -> list[int]:
    """SDR timing modes the parameter page declares (bit per mode)."""
    bits = int(fields.get("sdr_timing_modes") or 1)  # type: ignore[call-overload]
    return [m for m in range(6) if bits >> m & 1]


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


def _check_byte(what: str, value: int) -> None:
    if not isinstance(value, int) or not 0 <= value <= 0xFF:
        raise RangeError(f"{what} {value!r} is not a byte: allowed 0x00..0xFF")


def _data(results: Results) -> list[bytes]:
    return [bytes(d) for d in results.data]


def _busy_list(results: Results) -> list[int]:
    return [int(b) for b in results.busy_ns]


def _busy_total(results: Results) -> int:
    return sum(_busy_list(results))


def _busy_pair(results: Results) -> tuple[int, tuple[int, ...]]:
    busys = _busy_list(results)
    return sum(busys), tuple(busys)
