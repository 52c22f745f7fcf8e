"""Test-mode chip operations: inverse read, latch micro-operations, MWS, latch XOR, ESP.

These are the die mechanisms the in-flash computing schemes sequence
(Flash-Cosmos, MCFlash, ParaBit). Each is declared by the chip profile's
`vendor` section (contract 3); a profile that leaves one out makes the call
raise `UnsupportedCapability` naming it. Test-mode operations are risky
(they reach outside the datasheet), so `TestMode(chip)` is refused unless
`allow_test_mode=True`. Every op program a `TestMode` builds enters the test
mode (CMD enter_cmd, ADDR key) first and leaves it (CMD exit_cmd) last, so the
die is never left in test mode between calls; test-mode feature registers
(ESP, sensing time, MWS override) keep their values and apply whenever the
test mode is on. The programs come from `nandlab.sequences.testmode`; the
latch steps (`sense`, `m1`, ...) are its vocabulary.

Example (ParaBit XOR of LSB / MSB of an MLC WL, Table 4)::

    tm = TestMode(chip, allow_test_mode=True)
    steps = [init_l1(inverted=True), init_l2(), sense(3), m1(), m3(),
             sense(0), m2(), sense(1), m1(), sense(2), m2(), m3()]
    result = tm.latch_run(block, wl * 2, steps)      # result.data = OUT node
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from nandlab.errors import (
    AddressError,
    ChipStatusFail,
    RangeError,
    RefusedOperation,
    UnsupportedCapability,
)
from nandlab.onfi.address import ChipGeometry
from nandlab.onfi.chip import Chip
from nandlab.onfi.results import OpResult, PageRead, busy_steps, data_records
from nandlab.onfi_spec.opcodes import Status
from nandlab.onfi_spec.testmode import VREAD_SLC, LatchOp, MwsFlag, Node, esp_params, pbm_bytes
from nandlab.ops import Program, Results
from nandlab.sequences import core
from nandlab.sequences import testmode as seq
from nandlab.sequences import vendor as vendor_seq
from nandlab.sequences.testmode import (
    Step,
    data_in_node,
    init_l1,
    init_l2,
    m1,
    m2,
    m3,
    output,
    sense,
    xor,
)
from nandlab.sequences.vendor import in_mode

__all__ = [
    "VREAD_SLC",
    "LatchOp",
    "LatchRun",
    "MwsFlag",
    "Node",
    "Step",
    "TestMode",
    "data_in_node",
    "init_l1",
    "init_l2",
    "m1",
    "m2",
    "m3",
    "output",
    "sense",
    "xor",
]


@dataclass(frozen=True)
class LatchRun:
    """Data read from a latch node after a micro-operation sequence, and the busy times."""

    block: int
    page: int
    node: Node
    data: bytes
    busy_ns: int
    busy_steps_ns: tuple[int, ...]
    sensings: int


class TestMode:
    """Test-mode operations on `chip` (refused unless allow_test_mode=True)."""

    __test__ = False  # not a pytest class

    def __init__(self, chip: Chip, *, allow_test_mode: bool = False) -> None:
        if not allow_test_mode:
            raise RefusedOperation(
                "test-mode operations drive the chip outside its datasheet (vendor test "
                "commands, tuned ISPP, shortened sensing): refused unless allowed (nandlab "
                "--allow-test-mode; a campaign: 'allow_test_mode: true' at its top)"
            )
        chip.require("test_mode", "test-mode operations")
        self.chip = chip

    # ------------------------------------------------------------- plumbing

    @property
    def _vendor(self) -> Any:
        """The profile's vendor section (each caller has checked its capability)."""
        return self.chip.profile.vendor

    def _run(self, body: Program, what: str) -> Results:
        """Run `body` inside the test mode (a native operation: the SLC mode is left first)."""
        chip = self.chip
        inside = seq.in_test_mode(self._vendor.test_mode, body)
        program = chip.array_op(inside, slc=False, what=what)
        return chip.run(program, what)

    def _read(self, body: Program, block: int, page: int, what: str, slc: bool) -> PageRead:
        res = self._run(body, what)
        return PageRead(block, page, data_records(res)[0], sum(busy_steps(res)), slc)

    def _slc(self, slc: bool, body: Program) -> Program:
        return in_mode(self._vendor.slc_mode, body) if slc else body

    # --------------------------------------------------------- inverse read

    def read_page(
        self,
        block: int,
        page: int,
        *,
        slc: bool = False,
        inverse: bool = False,
        force: bool = False,
    ) -> PageRead:
        """READ 00h-30h of a whole page, optionally as an inverse read (every bit inverted
        by the latch, not by the host). Needs vendor.inverse_read when inverse=True."""
        chip = self.chip
        geo = chip.check_address(block, page, slc)
        chip.refuse_bad([block], force, f"read block {block}")
        if slc:
            chip.require("slc_mode", "SLC read")
        sensing = core.page_read(
            chip.sdr, geo.full_address(block, page), geo.total_bytes, chip.timeouts.read
        )
        body = self._slc(slc, self._inverse(inverse, sensing, "inverse read"))
        what = f"{'INVERSE ' if inverse else ''}READ block {block} page {page}"
        return self._read(body, block, page, what, slc)

    def _inverse(self, inverse: bool, sensing: Program, what: str) -> Program:
        if not inverse:
            return sensing
        self.chip.require("inverse_read", what)
        return seq.inverse(self._vendor.inverse_read, sensing)

    def soft_bit_read(
        self, block: int, page: int, delta_code: int, *, inverse: bool = False, force: bool = False
    ) -> PageRead:
        """Soft-bit read (XNOR of the +-delta sensings), optionally inverted (XOR)."""
        chip = self.chip
        chip.require("soft_bit_read", "soft-bit read")
        sbr = self._vendor.soft_bit_read
        geo = chip.check_address(block, page, False)
        chip.check_soft_bit_delta(delta_code)
        chip.refuse_bad([block], force, f"soft-bit read block {block}")
        chip.set_feature(sbr.delta_feature, bytes([delta_code, 0, 0, 0]))
        sensing = vendor_seq.soft_bit_read(
            chip.sdr, sbr, geo.full_address(block, page), geo.total_bytes, chip.timeouts.read
        )
        body = self._inverse(inverse, sensing, "inverse soft-bit read")
        return self._read(body, block, page, f"SOFT-BIT READ block {block} page {page}", False)

    # ----------------------------------------------------- latch operations

    def latch_run(
        self,
        block: int,
        page: int,
        steps: Sequence[Step],
        *,
        read: Node | None = Node.OUT,
        slc: bool = False,
        force: bool = False,
    ) -> LatchRun:
        """Run latch micro-operations on the latches of `block`'s plane, sensing the WL
        of (block, page) (page as in read_page; in SLC mode the WL), then read node
        `read` (None: read nothing). One op program; busy times per step."""
        chip = self.chip
        chip.require("latch_ops", "latch micro-operations")
        lo = self._vendor.latch_ops
        geo = chip.check_address(block, page, slc)
        chip.refuse_bad([block], force, f"latch operations block {block}")
        row = geo.row_bytes(block, page)
        if slc:
            chip.require("slc_mode", "SLC latch sensing")
        body = seq.latch_steps(chip.sdr, lo, row, steps, chip.timeouts.read)
        if read is not None:
            body += seq.latch_output(chip.sdr, lo, row, read, geo.total_bytes)
        res = self._run(self._slc(slc, body), f"LATCH OPS block {block} page {page}")
        busy = busy_steps(res)
        data = data_records(res)[0] if read is not None else b""
        node = read if read is not None else Node.OUT
        sensings = sum(st.op == LatchOp.SENSE for st in steps)
        return LatchRun(block, page, node, data, sum(busy), busy, sensings)

    def load_latch(self, block: int, node: Node, data: bytes) -> None:
        """Load `data` into node A or OUT of `block`'s plane (ParaBit's operand reload)."""
        chip = self.chip
        chip.require("latch_ops", "latch data load")
        if node not in (Node.A, Node.OUT):
            raise RangeError(f"only nodes A and OUT can be loaded, not {node.name}")
        geo = chip.geometry
        geo.check_block(block)
        data = chip.check_data(data)
        body = seq.latch_load(chip.sdr, self._vendor.latch_ops, geo.row_bytes(block), node, data)
        self._run(body, f"LATCH LOAD {node.name} block {block}")

    def read_latch(self, block: int, node: Node = Node.OUT) -> bytes:
        """Data out of one latch node of `block`'s plane (no sensing)."""
        return self.latch_run(block, 0, [], read=node).data

    def latch_xor(self, block: int, *, read: bool = True) -> PageRead:
        """XOR between the latches of `block`'s plane: C-latch (OUT) = S-latch (A) ^ OUT."""
        chip = self.chip
        chip.require("latch_xor", "latch XOR")
        geo = chip.geometry
        geo.check_block(block)
        body = seq.latch_xor(chip.sdr, self._vendor.latch_xor, chip.timeouts.read)
        if read:
            body += self._cache_out(geo, block)
        res = self._run(body, f"LATCH XOR block {block}")
        data = data_records(res)[0] if read else b""
        return PageRead(block, 0, data, sum(busy_steps(res)), True)

    def _cache_out(self, geo: ChipGeometry, block: int) -> Program:
        """Data out of the cache register (OUT) of `block`'s plane: through the latch output
        when the part has latch operations, else a plain column change."""
        chip = self.chip
        lo = self._vendor.latch_ops
        if lo is not None:
            return seq.latch_output(chip.sdr, lo, geo.row_bytes(block), Node.OUT, geo.total_bytes)
        return core.change_read_column_enhanced(
            geo.full_address(block, 0), chip.t_ccs, geo.total_bytes
        )

    # ---------------------------------------------------------------- MWS

    def mws(
        self,
        groups: Sequence[tuple[int, Sequence[int]]],
        *,
        inverse: bool = False,
        s_init: bool = True,
        c_init: bool = True,
        s_to_c: bool = True,
        read: bool = True,
        allow_over_power: bool = False,
        force: bool = False,
    ) -> PageRead:
        """Multi-wordline sensing with the SLC reference on the WLs of each (block, WLs).

        WLs of one sub-block (a string: WL w is in sub-block w % sub_blocks) AND; strings
        of different sub-blocks / blocks OR (equation (1) of Flash-Cosmos). Blocks must
        share a plane. Flags: inverse (NAND / NOR), S-latch init, C-latch init, S-to-C
        transfer (OUT |= A). More blocks than vendor.mws.max_blocks (the power budget)
        are refused unless allow_over_power=True, which sets the die's override feature
        for this command. busy_ns is tMWS.
        """
        chip = self.chip
        geo = chip.geometry
        flags = (
            (MwsFlag.INVERSE if inverse else MwsFlag(0))
            | (MwsFlag.S_INIT if s_init else 0)
            | (MwsFlag.C_INIT if c_init else 0)
            | (MwsFlag.S_TO_C if s_to_c else 0)
        )
        body, blocks, over = self.mws_sensing(
            groups, flags, allow_over_power=allow_over_power, force=force
        )
        body += core.read_status(chip.sdr)
        if read:
            body += core.change_read_column_enhanced(
                geo.full_address(blocks[0], 0), chip.t_ccs, geo.total_bytes
            )
        what = f"MWS blocks {', '.join(map(str, blocks))}"
        res = self._run(body, what)
        datas = data_records(res)
        if datas[0][0] & Status.FAIL:
            raise ChipStatusFail(f"{what}: the die refused the MWS (status FAIL)")
        busy = busy_steps(res)
        t_mws = busy[1] if over else busy[0]
        return PageRead(blocks[0], 0, datas[1] if read else b"", t_mws, True)

    def mws_sensing(
        self,
        groups: Sequence[tuple[int, Sequence[int]]],
        flags: MwsFlag = MwsFlag.S_INIT | MwsFlag.C_INIT | MwsFlag.S_TO_C,
        *,
        allow_over_power: bool = False,
        force: bool = False,
    ) -> tuple[Program, list[int], bool]:
        """The MWS command sequence of `mws` up to its sensing's busy (inside the test mode,
        not entering it), its blocks and whether it overrides the power budget (then the
        sensing's busy is the second one, after the override's SET FEATURES)."""
        chip = self.chip
        chip.require("mws", "multi-wordline sensing")
        mws = self._vendor.mws
        geo = chip.geometry
        if not groups:
            raise AddressError("MWS needs at least one (block, WLs) group")
        blocks = list(dict.fromkeys(block for block, _ in groups))
        addressed = [geo.row_bytes(block) + _wl_bitmap(geo, block, wls) for block, wls in groups]
        planes = {geo.plane_of(b) for b in blocks}
        if len(planes) > 1:
            raise AddressError(
                f"MWS blocks {', '.join(map(str, blocks))} are on planes "
                f"{', '.join(map(str, sorted(planes)))}: inter-block MWS shares bitlines, so "
                "every block must be on one plane"
            )
        over = len(blocks) > mws.max_blocks
        if over and not allow_over_power:
            raise RefusedOperation(
                f"MWS over {len(blocks)} blocks exceeds the profile's power budget of "
                f"{mws.max_blocks} blocks at once: refused unless over-power is allowed "
                "(allow_over_power)"
            )
        chip.refuse_bad(blocks, force, "MWS")
        body = seq.mws_sense(chip.sdr, mws, flags, addressed, chip.timeouts.read)
        if over:
            body = seq.over_power(chip.sdr, mws, body, chip.timeouts.feature)
        return body, blocks, over

    # ------------------------------------------------ ESP and sensing time

    def set_esp(
        self,
        *,
        start_offset_mV: float = 0.0,
        step_mV: float = 0.0,
        verify_raise_mV: float = 0.0,
        extra_steps: int = 0,
    ) -> None:
        """Tune SLC ISPP (enhanced SLC programming) for following test-mode SLC programs:
        start voltage offset, ESP step (0 = no ESP phase), verify raise over the SLC
        verify level, extra verify-pulse steps. All zero = regular SLC programming."""
        chip = self.chip
        chip.require("esp", "enhanced SLC programming")
        try:
            params = esp_params(
                start_offset_mV=start_offset_mV,
                step_mV=step_mV,
                verify_raise_mV=verify_raise_mV,
                extra_steps=extra_steps,
            )
        except ValueError as e:
            raise RangeError(str(e)) from None
        body = seq.set_esp(chip.sdr, self._vendor.esp, params, chip.timeouts.feature)
        self._run(body, "SET FEATURES ESP")

    def clear_esp(self) -> None:
        self.set_esp()

    def program_esp(
        self, block: int, wl: int, data: bytes, *, force: bool = False, blank_check: bool = False
    ) -> OpResult:
        """SLC program of one WL in test mode, so the ESP tuning (set_esp) applies;
        busy_ns (tESP) follows the ISPP loop count."""
        chip = self.chip
        chip.require("esp", "enhanced SLC programming")
        geo = chip.check_address(block, wl, True)
        data = chip.check_data(data)
        chip.refuse_bad([block], force, f"ESP program block {block}")
        chip.refuse_not_erased(block, [wl], True, force, blank_check)
        return self._program_in_mode(
            self._vendor.slc_mode, geo.full_address(block, wl), data,
            f"ESP PROGRAM block {block} WL {wl}",
        )

    def _program_in_mode(self, mode: Any, cycles: bytes, data: bytes, what: str) -> OpResult:
        """PROGRAM between a mode's enter / exit commands, then READ STATUS."""
        chip = self.chip
        program = core.page_program(chip.sdr, cycles, data, chip.timeouts.program)
        res = self._run(in_mode(mode, program) + core.read_status(chip.sdr), what)
        return OpResult.of(chip.check_status(res, what), res)

    # ------------------------------------------------------------ MLC mode

    def _mlc_page(self, block: int, page: int) -> ChipGeometry:
        chip = self.chip
        # the profile declares the mode; the raw vendor commands need no bench support
        # beyond the test mode (transports do not list mlc_mode as a capability yet)
        if self._vendor.mlc_mode is None:
            raise UnsupportedCapability(
                f"MLC-mode operation needs vendor.mlc_mode (profile {chip.profile.name} has none)"
            )
        geo = chip.check_address(block, 0, False)
        limit = geo.wls_per_block * 2
        if not 0 <= page < limit:
            raise AddressError(f"MLC page {page} out of range 0..{limit - 1}")
        return geo

    def program_mlc(self, block: int, page: int, data: bytes, *, force: bool = False) -> OpResult:
        """Program one page of a TLC die in its MLC mode (vendor.mlc_mode): page =
        WL * 2 + page type (0 lower, 1 upper); lower before upper, as on the chip."""
        chip = self.chip
        geo = self._mlc_page(block, page)
        data = chip.check_data(data)
        chip.refuse_bad([block], force, f"MLC program block {block}")
        return self._program_in_mode(
            self._vendor.mlc_mode, geo.full_address(block, page), data,
            f"MLC PROGRAM block {block} page {page}",
        )

    def read_mlc(self, block: int, page: int, *, force: bool = False) -> PageRead:
        """READ 00h-30h of one MLC-mode page (page = WL * 2 + page type)."""
        chip = self.chip
        geo = self._mlc_page(block, page)
        chip.refuse_bad([block], force, f"MLC read block {block}")
        sensing = core.page_read(
            chip.sdr, geo.full_address(block, page), geo.total_bytes, chip.timeouts.read
        )
        body = in_mode(self._vendor.mlc_mode, sensing)
        return self._read(body, block, page, f"MLC READ block {block} page {page}", False)

    def set_sense_time_us(self, us: float | None) -> None:
        """Sensing (strobe) time of every test-mode sensing; None = the default."""
        chip = self.chip
        chip.require("sense_time", "sensing-time control")
        body = seq.set_sense_time(chip.sdr, self._vendor.sense_time, us, chip.timeouts.feature)
        self._run(body, "SET FEATURES sense time")

    @contextmanager
    def sense_time(self, us: float | None) -> Iterator[None]:
        """Context: sensing time `us` inside, back to the default after."""
        self.set_sense_time_us(us)
        try:
            yield
        finally:
            self.set_sense_time_us(None)


def _wl_bitmap(geo: ChipGeometry, block: int, wls: Sequence[int]) -> bytes:
    """The MWS page bitmap of `block` selecting `wls` (bit w = WL w)."""
    geo.check_block(block)
    if not wls:
        raise AddressError(f"MWS group of block {block} selects no WL")
    n = geo.wls_per_block
    bitmap = bytearray(pbm_bytes(n))
    for w in wls:
        if not 0 <= w < n:
            raise AddressError(f"MWS WL {w} out of range 0..{n - 1}")
        bitmap[w >> 3] |= 1 << (w & 7)
    return bytes(bitmap)


def inverse_read_page(
    chip: Chip, block: int, page: int, *, slc: bool = False, allow_test_mode: bool = False
) -> PageRead:
    """Shortcut: `TestMode(chip, allow_test_mode=...).read_page(..., inverse=True)`."""
    return TestMode(chip, allow_test_mode=allow_test_mode).read_page(
        block, page, slc=slc, inverse=True
    )


def inverse_soft_bit_read(
    chip: Chip, block: int, page: int, delta_code: int, *, allow_test_mode: bool = False
) -> PageRead:
    """Shortcut: `TestMode(chip, allow_test_mode=...).soft_bit_read(..., inverse=True)` (XOR)."""
    return TestMode(chip, allow_test_mode=allow_test_mode).soft_bit_read(
        block, page, delta_code, inverse=True
    )
