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
test mode is on.

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
from nandlab.onfi.chip import Chip, _busy_list, _busy_total, _data
from nandlab.onfi.ops_builder import OpsBuilder
from nandlab.onfi.results import OpResult, PageRead
from nandlab.onfi_spec.opcodes import Cmd, Status
from nandlab.onfi_spec.testmode import (
    SENSE_TIME_UNIT_US,
    VREAD_SLC,
    LatchOp,
    MwsFlag,
    Node,
    esp_params,
    pbm_bytes,
)

__all__ = [
    "VREAD_SLC",
    "LatchOp",
    "LatchRun",
    "MwsFlag",
    "Node",
    "Step",
    "TestMode",
    "data_in",
    "init_l1",
    "init_l2",
    "m1",
    "m2",
    "m3",
    "output",
    "sense",
    "xor",
]

ADDR_CHUNK = 8
"""An ADDR instruction carries 1..8 address cycles."""


@dataclass(frozen=True)
class Step:
    """One latch micro-operation: op code and its argument byte."""

    op: LatchOp
    arg: int = 0


def sense(k: int) -> Step:
    """Sense the addressed WL at VREADk into SO (0 = VREAD0 below the erased state,
    k = 1.. = read reference k-1 with its offset, VREAD_SLC = the SLC reference).
    SO = 1 where the cell does not conduct."""
    return Step(LatchOp.SENSE, k)


def m1(inverted_so: bool = False) -> Step:
    """M1: A |= SO (C &= ~SO); inverted_so uses the extra SO inverter: A |= ~SO."""
    return Step(LatchOp.M1, int(inverted_so))


def m2(inverted_so: bool = False) -> Step:
    """M2: A &= ~SO; inverted_so: A &= SO."""
    return Step(LatchOp.M2, int(inverted_so))


def m3() -> Step:
    """M3: OUT |= A (B &= ~A): L1 to L2."""
    return Step(LatchOp.M3)


def init_l1(inverted: bool = False) -> Step:
    """L1 init: A = 1 (Fig. 2), or A = 0 with inverted=True (Fig. 7)."""
    return Step(LatchOp.INIT_L1, int(inverted))


def init_l2() -> Step:
    """L2 init: OUT = 0, B = 1."""
    return Step(LatchOp.INIT_L2)


def xor() -> Step:
    """OUT ^= A."""
    return Step(LatchOp.XOR)


def output(node: Node) -> Step:
    """Select the node the following data out reads."""
    return Step(LatchOp.OUTPUT, int(node))


def data_in(node: Node) -> Step:
    """The following data in loads node A or OUT (TestMode.load_latch sends the bytes)."""
    return Step(LatchOp.DATA_IN, int(node))


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
                "commands, tuned ISPP, shortened sensing); pass allow_test_mode=True to use them"
            )
        chip._require("test_mode", "test-mode operations")
        self.chip = chip

    # ------------------------------------------------------------- plumbing

    @property
    def _vendor(self) -> Any:
        """The profile's vendor section (each caller has checked its capability)."""
        return self.chip.profile.vendor

    def _begin(self) -> OpsBuilder:
        tm = self._vendor.test_mode
        ops = self.chip._new_op(False, "test mode")
        ops.cmd(tm.enter_cmd).addr(bytes([tm.key]))
        return ops

    def _end(self, ops: OpsBuilder) -> OpsBuilder:
        return ops.cmd(self._vendor.test_mode.exit_cmd)

    def _feature(self, ops: OpsBuilder, fa: int, params: bytes) -> None:
        ops.cmd(Cmd.SET_FEATURES).addr(bytes([fa])).delay_adl().din(params)
        ops.delay_wb().wait(self.chip._t_feat)

    def _set_test_feature(self, fa: int, params: bytes, what: str) -> None:
        ops = self._begin()
        self._feature(ops, fa, params)
        self._end(ops)
        self.chip._run(ops, what)

    @staticmethod
    def _addr(ops: OpsBuilder, data: bytes) -> None:
        for i in range(0, len(data), ADDR_CHUNK):
            ops.addr(data[i : i + ADDR_CHUNK])

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
        geo = chip._check_addr(block, page, slc)
        chip._refuse_bad([block], force, f"read block {block}")
        ops = self._begin()
        if slc:
            chip._require("slc_mode", "SLC read")
            ops.cmd(self._vendor.slc_mode.enter_cmd)
        if inverse:
            chip._require("inverse_read", "inverse read")
            ops.cmd(self._vendor.inverse_read.prefix_cmd)
        ops.cmd(Cmd.READ).addr(geo.full_address(block, page)).cmd(Cmd.READ_CONFIRM)
        ops.delay_wb().wait(chip._t_r).delay_rr().dout(geo.total_bytes)
        if slc:
            ops.cmd(self._vendor.slc_mode.exit_cmd)
        self._end(ops)
        res = chip._run(ops, f"{'INVERSE ' if inverse else ''}READ block {block} page {page}")
        return PageRead(block, page, _data(res)[0], _busy_total(res), slc)

    def soft_bit_read(
        self, block: int, page: int, delta_code: int, *, inverse: bool = False, force: bool = False
    ) -> PageRead:
        """Soft-bit read (XNOR of the +-delta sensings), optionally inverted (XOR)."""
        chip = self.chip
        chip._require("soft_bit_read", "soft-bit read")
        sbr = self._vendor.soft_bit_read
        geo = chip._check_addr(block, page, False)
        code_max = chip.profile.read_offsets.code_max
        if not isinstance(delta_code, int) or not 1 <= delta_code <= code_max:
            raise RangeError(f"soft-bit delta {delta_code} is out of range: allowed 1..{code_max}")
        chip._refuse_bad([block], force, f"soft-bit read block {block}")
        chip.set_feature(sbr.delta_feature, bytes([delta_code, 0, 0, 0]))
        ops = self._begin()
        if inverse:
            chip._require("inverse_read", "inverse soft-bit read")
            ops.cmd(self._vendor.inverse_read.prefix_cmd)
        ops.cmd(Cmd.READ).addr(geo.full_address(block, page)).cmd(sbr.confirm_cmd)
        ops.delay_wb().wait(chip._t_r).delay_rr().dout(geo.total_bytes)
        self._end(ops)
        res = chip._run(ops, f"SOFT-BIT READ block {block} page {page}")
        return PageRead(block, page, _data(res)[0], _busy_total(res))

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
        chip._require("latch_ops", "latch micro-operations")
        lo = self._vendor.latch_ops
        geo = chip._check_addr(block, page, slc)
        chip._refuse_bad([block], force, f"latch operations block {block}")
        row = geo.row_bytes(block, page)
        ops = self._begin()
        if slc:
            chip._require("slc_mode", "SLC latch sensing")
            ops.cmd(self._vendor.slc_mode.enter_cmd)
        sensings = 0
        for st in steps:
            if not isinstance(st, Step):
                raise RangeError(f"latch step {st!r} is not a Step (use sense(), m1(), ...)")
            if st.op in (LatchOp.OUTPUT, LatchOp.DATA_IN):
                raise RangeError("output / data_in steps: use read= / load_latch()")
            if not 0 <= st.arg <= 0xFF:
                raise RangeError(f"latch step argument {st.arg} is not a byte")
            sensings += st.op == LatchOp.SENSE
            ops.cmd(lo.cmd)
            self._addr(ops, bytes([st.op, st.arg]) + row)
            ops.cmd(lo.confirm_cmd).delay_wb().wait(chip._t_r)
        if read is not None:
            ops.cmd(lo.cmd)
            self._addr(ops, bytes([LatchOp.OUTPUT, int(read)]) + row)
            ops.cmd(lo.confirm_cmd).delay_rr().dout(geo.total_bytes)
        if slc:
            ops.cmd(self._vendor.slc_mode.exit_cmd)
        self._end(ops)
        res = chip._run(ops, f"LATCH OPS block {block} page {page}")
        busy = _busy_list(res)
        data = _data(res)[0] if read is not None else b""
        node = read if read is not None else Node.OUT
        return LatchRun(block, page, node, data, sum(busy), tuple(busy), sensings)

    def load_latch(self, block: int, node: Node, data: bytes) -> None:
        """Load `data` into node A or OUT of `block`'s plane (ParaBit's operand reload)."""
        chip = self.chip
        chip._require("latch_ops", "latch data load")
        if node not in (Node.A, Node.OUT):
            raise RangeError(f"only nodes A and OUT can be loaded, not {node.name}")
        geo = chip.geometry
        geo.check_block(block)
        data = chip._check_data(data)
        lo = self._vendor.latch_ops
        ops = self._begin()
        ops.cmd(lo.cmd)
        self._addr(ops, bytes([LatchOp.DATA_IN, int(node)]) + geo.row_bytes(block))
        ops.cmd(lo.confirm_cmd).delay_adl().din(data)
        self._end(ops)
        chip._run(ops, f"LATCH LOAD {node.name} block {block}")

    def read_latch(self, block: int, node: Node = Node.OUT) -> bytes:
        """Data out of one latch node of `block`'s plane (no sensing)."""
        return self.latch_run(block, 0, [], read=node).data

    def latch_xor(self, block: int, *, read: bool = True) -> PageRead:
        """XOR between the latches of `block`'s plane: C-latch (OUT) = S-latch (A) ^ OUT."""
        chip = self.chip
        chip._require("latch_xor", "latch XOR")
        geo = chip.geometry
        geo.check_block(block)
        ops = self._begin()
        ops.cmd(self._vendor.latch_xor.cmd).delay_wb().wait(chip._t_r)
        if read and self._vendor.latch_ops is not None:
            lo = self._vendor.latch_ops
            ops.cmd(lo.cmd)
            self._addr(ops, bytes([LatchOp.OUTPUT, int(Node.OUT)]) + geo.row_bytes(block))
            ops.cmd(lo.confirm_cmd).delay_rr().dout(geo.total_bytes)
        elif read:  # plain data out from the cache register
            ops.cmd(Cmd.CHANGE_READ_COLUMN_ENHANCED).addr(geo.full_address(block, 0))
            ops.cmd(Cmd.CHANGE_READ_COLUMN_CONFIRM).delay(chip._t_ccs).dout(geo.total_bytes)
        self._end(ops)
        res = chip._run(ops, f"LATCH XOR block {block}")
        data = _data(res)[0] if read else b""
        return PageRead(block, 0, data, _busy_total(res), True)

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
        chip._require("mws", "multi-wordline sensing")
        mws = self._vendor.mws
        geo = chip.geometry
        if not groups:
            raise AddressError("MWS needs at least one (block, WLs) group")
        wls_n = geo.wls_per_block
        blocks: list[int] = []
        body = b""
        for block, wls in groups:
            geo.check_block(block)
            if not wls:
                raise AddressError(f"MWS group of block {block} selects no WL")
            bitmap = bytearray(pbm_bytes(wls_n))
            for w in wls:
                if not 0 <= w < wls_n:
                    raise AddressError(f"MWS WL {w} out of range 0..{wls_n - 1}")
                bitmap[w >> 3] |= 1 << (w & 7)
            if block not in blocks:
                blocks.append(block)
            body += geo.row_bytes(block) + bytes(bitmap)
        planes = {geo.plane_of(b) for b in blocks}
        if len(planes) > 1:
            raise AddressError(
                f"MWS blocks {', '.join(map(str, blocks))} are on planes "
                f"{', '.join(map(str, sorted(planes)))}: inter-block MWS shares bitlines, so "
                "every block must be on one plane"
            )
        if len(blocks) > mws.max_blocks and not allow_over_power:
            raise RefusedOperation(
                f"MWS over {len(blocks)} blocks exceeds the profile's power budget of "
                f"{mws.max_blocks} blocks at once; pass allow_over_power=True to override"
            )
        chip._refuse_bad(blocks, force, "MWS")
        flags = (
            (MwsFlag.INVERSE if inverse else 0)
            | (MwsFlag.S_INIT if s_init else 0)
            | (MwsFlag.C_INIT if c_init else 0)
            | (MwsFlag.S_TO_C if s_to_c else 0)
        )
        over = len(blocks) > mws.max_blocks
        ops = self._begin()
        if over:
            self._feature(ops, mws.override_feature, bytes([1, 0, 0, 0]))
        ops.cmd(mws.cmd).addr(bytes([int(flags)]))
        group_n = geo.row_cycles + pbm_bytes(wls_n)
        for i in range(0, len(body), group_n):
            if i:
                ops.cmd(mws.cont_cmd)
            self._addr(ops, body[i : i + group_n])
        ops.cmd(mws.confirm_cmd).delay_wb().wait(chip._t_r)
        if over:
            self._feature(ops, mws.override_feature, bytes(4))
        ops.cmd(Cmd.READ_STATUS).delay_whr().dout(1)
        if read:
            ops.cmd(Cmd.CHANGE_READ_COLUMN_ENHANCED).addr(geo.full_address(blocks[0], 0))
            ops.cmd(Cmd.CHANGE_READ_COLUMN_CONFIRM).delay(chip._t_ccs).dout(geo.total_bytes)
        self._end(ops)
        what = f"MWS blocks {', '.join(map(str, blocks))}"
        res = chip._run(ops, what)
        datas = _data(res)
        if datas[0][0] & Status.FAIL:
            raise ChipStatusFail(f"{what}: the die refused the MWS (status FAIL)")
        busy = _busy_list(res)
        t_mws = busy[1] if over else busy[0]
        return PageRead(blocks[0], 0, datas[1] if read else b"", t_mws, True)

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
        self.chip._require("esp", "enhanced SLC programming")
        try:
            params = esp_params(
                start_offset_mV=start_offset_mV,
                step_mV=step_mV,
                verify_raise_mV=verify_raise_mV,
                extra_steps=extra_steps,
            )
        except ValueError as e:
            raise RangeError(str(e)) from None
        self._set_test_feature(self._vendor.esp.feature, params, "SET FEATURES ESP")

    def clear_esp(self) -> None:
        self.set_esp()

    def program_esp(
        self, block: int, wl: int, data: bytes, *, force: bool = False, blank_check: bool = False
    ) -> OpResult:
        """SLC program of one WL in test mode, so the ESP tuning (set_esp) applies;
        busy_ns (tESP) follows the ISPP loop count."""
        chip = self.chip
        chip._require("esp", "enhanced SLC programming")
        geo = chip._check_addr(block, wl, True)
        data = chip._check_data(data)
        chip._refuse_bad([block], force, f"ESP program block {block}")
        chip._refuse_not_erased(block, [wl], True, force, blank_check)
        mode = self._vendor.slc_mode
        return self._program_in_mode(
            mode.enter_cmd, mode.exit_cmd, geo.full_address(block, wl), data,
            f"ESP PROGRAM block {block} WL {wl}",
        )

    def _program_in_mode(
        self, enter_cmd: int, exit_cmd: int, address: bytes, data: bytes, what: str
    ) -> OpResult:
        """PROGRAM between a mode's enter / exit commands, then READ STATUS."""
        chip = self.chip
        ops = self._begin()
        ops.cmd(enter_cmd)
        ops.cmd(Cmd.PROGRAM).addr(address).delay_adl().din(data)
        ops.cmd(Cmd.PROGRAM_CONFIRM).delay_wb().wait(chip._t_prog)
        ops.cmd(exit_cmd)
        ops.cmd(Cmd.READ_STATUS).delay_whr().dout(1)
        self._end(ops)
        res = chip._run(ops, what)
        status = chip._check_status(res, what)
        busy = _busy_list(res)
        return OpResult(status, sum(busy), tuple(busy))

    # ------------------------------------------------------------ MLC mode

    def _mlc_page(self, block: int, page: int) -> Any:
        chip = self.chip
        # the profile declares the mode; the raw vendor commands need no bench support
        # beyond the test mode (transports do not list mlc_mode as a capability yet)
        if self._vendor.mlc_mode is None:
            raise UnsupportedCapability(
                f"MLC-mode operation needs vendor.mlc_mode (profile {chip.profile.name} has none)"
            )
        geo = chip._check_addr(block, 0, False)
        limit = geo.wls_per_block * 2
        if not 0 <= page < limit:
            raise AddressError(f"MLC page {page} out of range 0..{limit - 1}")
        return geo

    def program_mlc(self, block: int, page: int, data: bytes, *, force: bool = False) -> OpResult:
        """Program one page of a TLC die in its MLC mode (vendor.mlc_mode): page =
        WL * 2 + page type (0 lower, 1 upper); lower before upper, as on the chip."""
        chip = self.chip
        geo = self._mlc_page(block, page)
        data = chip._check_data(data)
        chip._refuse_bad([block], force, f"MLC program block {block}")
        mlc = self._vendor.mlc_mode
        return self._program_in_mode(
            mlc.enter_cmd, mlc.exit_cmd, geo.full_address(block, page), data,
            f"MLC PROGRAM block {block} page {page}",
        )

    def read_mlc(self, block: int, page: int, *, force: bool = False) -> PageRead:
        """READ 00h-30h of one MLC-mode page (page = WL * 2 + page type)."""
        chip = self.chip
        geo = self._mlc_page(block, page)
        chip._refuse_bad([block], force, f"MLC read block {block}")
        mlc = self._vendor.mlc_mode
        ops = self._begin()
        ops.cmd(mlc.enter_cmd)
        ops.cmd(Cmd.READ).addr(geo.full_address(block, page)).cmd(Cmd.READ_CONFIRM)
        ops.delay_wb().wait(chip._t_r).delay_rr().dout(geo.total_bytes)
        ops.cmd(mlc.exit_cmd)
        self._end(ops)
        res = chip._run(ops, f"MLC READ block {block} page {page}")
        return PageRead(block, page, _data(res)[0], _busy_total(res), False)

    def set_sense_time_us(self, us: float | None) -> None:
        """Sensing (strobe) time of every test-mode sensing; None = the default."""
        self.chip._require("sense_time", "sensing-time control")
        code = 0 if us is None else round(us / SENSE_TIME_UNIT_US)
        if not 0 <= code <= 0xFFFF or (us is not None and code == 0):
            raise RangeError(
                f"sensing time {us} us out of range: {SENSE_TIME_UNIT_US}.."
                f"{0xFFFF * SENSE_TIME_UNIT_US:g} us in steps of {SENSE_TIME_UNIT_US} us"
            )
        params = bytes([code & 0xFF, code >> 8, 0, 0])
        self._set_test_feature(self._vendor.sense_time.feature, params, "SET FEATURES sense time")

    @contextmanager
    def sense_time(self, us: float | None) -> Iterator[None]:
        """Context: sensing time `us` inside, back to the default after."""
        self.set_sense_time_us(us)
        try:
            yield
        finally:
            self.set_sense_time_us(None)


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
