"""The ONFI command state machine of a virtual die: command and address cycles.

`CommandDecoder` reads command and address cycles, tracks the open sequence in the
die's `BusRegisters` and hands each complete operation to the part that does it
(`array_ops.ArrayOps`, `testmode.TestModeEngine`, `vendor_cmds.VendorCommands`,
`features.FeatureRegisters`, `identity`). The bus rules it pins down are listed in
`vchip.die`'s docstring. Data cycles are `die_data.DataPath`'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum, auto

from nandlab.onfi_spec.opcodes import Cmd, Feature
from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.onfi_spec.testmode import Node
from nandlab.vchip import identity
from nandlab.vchip.address import CellMode, Target
from nandlab.vchip.array_ops import ArrayOps
from nandlab.vchip.clock import US
from nandlab.vchip.identity_common import latencies_us
from nandlab.vchip.parts import DiePart, DieParts
from nandlab.vchip.power import Phase
from nandlab.vchip.testmode import TestModeEngine
from nandlab.vchip.vendor_cmds import VendorCommands

# busy of READ PARAMETER PAGE / READ UNIQUE ID: ONFI bounds it by tR, so a part whose
# declared tR is shorter (slc-search, the RTL test die) is busy for its declared tR
PARAM_PAGE_BUSY_US = 25.0


class Out(Enum):
    """What data out cycles return."""

    NONE = auto()
    STATUS = auto()
    STREAM = auto()  # a fixed byte pattern (ID, parameter page, unique ID, features)
    DATA = auto()  # the cache register of the selected plane
    SEARCH = auto()  # the output of the last Search-in-Memory command


@dataclass
class Seq:
    """A command whose address cycles are being collected."""

    opcode: int
    addr: list[int] = field(default_factory=list)
    opened: bool = False  # 80h / 85h: bound to its page (data in may follow)


class BusRegisters:
    """The die's interface state between bus cycles (cleared by RESET, except WP#)."""

    def __init__(self) -> None:
        self.wp = False  # WP# low: program and erase blocked
        self.clear()

    def clear(self) -> None:
        self.seq: Seq | None = None
        self.out = Out.NONE
        self.stream = identity.ByteStream()
        self.plane = 0  # plane whose cache register data in / out uses
        self.column = 0
        self.din_page = False  # data in goes to the cache register
        self.din_features: int | None = None  # feature address being written
        self.feature_bytes = bytearray()
        self.prog: Target | None = None  # page the open program sequence targets
        self.status_plane: int | None = None  # 78h: status of this plane only
        self.resume_out = Out.NONE  # data output that 00h resumes after READ STATUS
        self.din_latch: Node | None = None  # test-mode data load into a latch node

    def idle(self) -> None:
        """No open sequence, no data in or out."""
        self.seq = None
        self.out = Out.NONE
        self.din_page = False
        self.din_latch = None
        self.din_features = None
        self.prog = None

    def data_output(self, plane: int, column: int) -> None:
        self.plane, self.column, self.out = plane, column, Out.DATA


class CommandDecoder(DiePart):
    """Command and address cycles of one die (see the module docstring)."""

    def __init__(
        self,
        parts: DieParts,
        regs: BusRegisters,
        test: TestModeEngine,
        ops: ArrayOps,
        search: VendorCommands,
        param_stream: bytes,
        unique_id: bytes,
    ) -> None:
        super().__init__(parts)
        self._regs = regs
        self._test, self._ops, self._search = test, ops, search
        self._param_stream = param_stream
        self._unique_id = unique_id
        self._addr_cycles = parts.addresses.addr_cycles
        self._row_cycles = parts.profile.geometry.row_cycles
        t_r_us = math.ceil(latencies_us(parts.profile)[0])  # as the parameter page says
        self._param_busy_ns = round(min(PARAM_PAGE_BUSY_US, t_r_us) * US)
        tm = parts.profile.vendor.test_mode
        # opcodes whose address cycles only collect (no action at some count): a whole
        # ADDR instruction of them is taken at once
        self._collect_only = _COLLECT_ONLY - ({tm.enter_cmd} if tm is not None else set())

    def reset_bus(self) -> None:
        self._regs.clear()
        self._ops.reset()

    def cmd(self, byte: int) -> None:
        """One command cycle (tWC)."""
        byte &= 0xFF
        clock = self._clock
        busy = clock.now_ns < clock.rdy_until
        clock.bus(clock.timing.tWC)
        self._features.bus_command(byte)
        if busy and byte not in (Cmd.READ_STATUS, Cmd.READ_STATUS_ENHANCED, Cmd.RESET):
            return
        if self._search.cmd(byte):
            self._regs.idle()
            self._regs.out = Out.SEARCH
            return
        if self._confirm(byte):
            return
        self._start(byte)

    def addr(self, byte: int) -> None:
        """One address cycle (tWC)."""
        clock = self._clock
        clock.bus(clock.timing.tWC)
        self._features.bus_address()
        seq = self._regs.seq
        if seq is None:
            self._search.addr(byte)
            return
        seq.addr.append(byte & 0xFF)
        self._on_address(seq)

    def addr_cycles(self, data: bytes) -> None:
        """Address cycles (tWC each), as many `addr` calls. A READ, ERASE, change column,
        vendor or test-mode sequence only collects its address, and a PROGRAM acts once
        it is complete, so those take the whole run in one step (one bus phase, as the
        cycles merge into one anyway)."""
        self._features.bus_address()
        seq = self._regs.seq
        if seq is None or not data:
            for byte in data:
                self.addr(byte)
            return
        op = seq.opcode
        program = op in (Cmd.PROGRAM, Cmd.CHANGE_WRITE_COLUMN)
        if op not in self._collect_only and not program:
            for byte in data:
                self.addr(byte)
            return
        clock = self._clock
        clock.bus(clock.timing.tWC * len(data))
        before = len(seq.addr)
        seq.addr.extend(data)
        if program and before < self._addr_cycles <= len(seq.addr):
            self._open_program(seq)

    # -- commands ---------------------------------------------------------------

    def _start(self, byte: int) -> None:
        regs = self._regs
        opens = self._test.command(byte, regs.plane)
        if opens is not None:
            regs.idle()
            if opens:
                regs.seq = Seq(byte)
        elif byte == Cmd.RESET:
            self._reset()
        elif byte == Cmd.READ_STATUS:
            regs.seq = None
            self.status_mode(None)
        elif byte in _ADDRESSED:
            regs.seq = Seq(byte)
            regs.din_page = regs.din_page and byte == Cmd.CHANGE_WRITE_COLUMN
            regs.din_features = None
        elif byte in (Cmd.READ_CACHE_SEQUENTIAL, Cmd.READ_CACHE_END):
            regs.seq = None
            self._cache_read(None, byte == Cmd.READ_CACHE_END, 0)
        else:
            regs.idle()
            self._addresses.mode_command(byte)

    def _confirm(self, byte: int) -> bool:
        """Handle `byte` as the confirm of the open sequence; False if it is not one."""
        regs = self._regs
        seq = regs.seq
        if seq is None:
            return False
        op = seq.opcode
        test = self._test.confirm(op, seq.addr, byte)
        if test is not None:
            if test.closes:
                regs.seq = None
            if test.path is not None and test.path.load is not None:
                regs.plane, regs.column, regs.din_latch = test.path.plane, 0, test.path.load
            elif test.path is not None:
                regs.data_output(test.path.plane, 0)
            return True
        if op == Cmd.READ:
            return self._read_confirm(seq, byte)
        if op in (Cmd.CHANGE_READ_COLUMN_ENHANCED, Cmd.CHANGE_READ_COLUMN):
            if byte != Cmd.CHANGE_READ_COLUMN_CONFIRM:
                return False
            regs.seq = None
            col, t = self._addresses.decode(seq.addr)
            plane = t.plane if op == Cmd.CHANGE_READ_COLUMN_ENHANCED else regs.plane
            regs.data_output(plane, col)
            return True
        if op in (Cmd.PROGRAM, Cmd.CHANGE_WRITE_COLUMN):
            if byte not in (Cmd.PROGRAM_CONFIRM, Cmd.PROGRAM_MULTIPLANE, Cmd.PROGRAM_CACHE):
                return False
            self._open_program(seq)
            regs.seq = None
            self._program_confirm(byte)
            return True
        if op == Cmd.ERASE:
            if byte not in (Cmd.ERASE_CONFIRM, Cmd.ERASE_MULTIPLANE):
                return False
            regs.seq = None
            t = self._addresses.decode_row(seq.addr)
            if byte == Cmd.ERASE_MULTIPLANE:
                self._ops.queue_erase(t)
            else:
                self._ops.erase(t, regs.wp)
            return True
        return False

    def _read_confirm(self, seq: Seq, byte: int) -> bool:
        """30h, 31h (random cache read), 32h (multi-plane), 35h (copyback), soft-bit confirm."""
        if byte == Cmd.READ_CACHE_SEQUENTIAL and len(seq.addr) < self._addr_cycles:
            return False  # 31h alone: sequential cache read
        soft = self._profile.vendor.soft_bit_read
        soft_confirm = soft is not None and byte == soft.confirm_cmd
        if byte not in _READ_CONFIRMS and not soft_confirm:
            return False
        self._regs.seq = None
        col, t = self._addresses.decode(seq.addr)
        if byte == Cmd.READ_CACHE_SEQUENTIAL:
            self._cache_read(t, False, col)
        elif byte == Cmd.READ_MULTIPLANE:
            self._ops.queue_read(t)
        else:
            self._ops.read(t, soft=byte not in _READ_CONFIRMS, copyback=byte == Cmd.COPYBACK_READ)
            self._regs.data_output(t.plane, col)
        return True

    def _cache_read(self, random: Target | None, last: bool, column: int) -> None:
        plane = self._ops.cache_read(random, last)
        if plane is not None:
            self._regs.data_output(plane, column)

    def _on_address(self, seq: Seq) -> None:
        """Act on commands that complete with their address cycles."""
        regs = self._regs
        op, n = seq.opcode, len(seq.addr)
        tm = self._profile.vendor.test_mode
        if tm is not None and op == tm.enter_cmd and n == 1 and not self._test.active:
            regs.seq = None
            self._test.enter(seq.addr[0])
            return
        if op in (Cmd.READ_ID, Cmd.READ_PARAMETER_PAGE, Cmd.READ_UNIQUE_ID) and n == 1:
            regs.seq = None
            self._identify(op, seq.addr[0])
        elif op == Cmd.GET_FEATURES and n == 1:
            regs.seq = None
            regs.stream = identity.ByteStream(self._features.get(seq.addr[0]), wrap=False)
            regs.out = Out.STREAM
            self._feature_busy()
        elif op == Cmd.SET_FEATURES and n == 1:
            regs.seq = None
            regs.din_features = seq.addr[0]
            regs.feature_bytes = bytearray()
        elif op == Cmd.READ_STATUS_ENHANCED and n == self._row_cycles:
            regs.seq = None
            self.status_mode(self._addresses.decode_row(seq.addr).plane)
        elif op in (Cmd.PROGRAM, Cmd.CHANGE_WRITE_COLUMN) and n == self._addr_cycles:
            self._open_program(seq)

    def status_mode(self, plane: int | None) -> None:
        regs = self._regs
        if regs.out is not Out.STATUS:
            regs.resume_out = regs.out
        regs.out = Out.STATUS
        regs.status_plane = plane

    def _reset(self) -> None:
        self._clock.reset(round(self._profile.timing.t_rst_us * US))
        self.reset_bus()
        self._features.clear()
        self._search.reset()
        self._addresses.mode = CellMode.NATIVE
        self._test.exit()

    def _identify(self, op: int, address: int) -> None:
        regs = self._regs
        regs.out = Out.STREAM
        if op == Cmd.READ_ID:
            regs.stream = identity.ByteStream(identity.read_id(self._profile, address))
            return
        if op == Cmd.READ_PARAMETER_PAGE:
            regs.stream = identity.ByteStream(self._param_stream)
        else:
            regs.stream = identity.ByteStream(identity.unique_id_stream(self._unique_id))
        clock = self._clock
        start = clock.array_start()
        end = start + self._param_busy_ns
        clock.power.add(start, end, Phase.READ)
        clock.busy(end)

    def _feature_busy(self) -> None:
        self._clock.busy(self._clock.now_ns + round(self._profile.timing.t_feat_us * US))

    def set_feature(self, fa: int, params: bytes) -> None:
        """SET FEATURES' four parameter bytes are in: tFEAT busy, then the feature acts."""
        self._regs.din_features = None
        self._feature_busy()
        if self._features.set(fa, params, self._test.active) and fa == Feature.TIMING_MODE:
            self._clock.timing = sdr(self._features.command_sdr_mode())

    def open_program(self) -> None:
        """Data in after an 80h / 85h address: bind the sequence to its page (if open)."""
        seq = self._regs.seq
        if seq is not None and seq.opcode in (Cmd.PROGRAM, Cmd.CHANGE_WRITE_COLUMN):
            self._open_program(seq)

    def _open_program(self, seq: Seq) -> None:
        """Bind the open 80h / 85h sequence to its page once its address is known."""
        if seq.opened:
            return
        seq.opened = True
        regs = self._regs
        bound = self._ops.open_program(seq.opcode == Cmd.PROGRAM, seq.addr, regs.prog)
        if bound is not None:
            t, col = bound
            regs.prog, regs.plane, regs.column, regs.din_page = t, t.plane, col, True

    def _program_confirm(self, byte: int) -> None:
        regs = self._regs
        t = regs.prog
        regs.prog, regs.din_page = None, False
        if t is None:
            return
        if byte == Cmd.PROGRAM_MULTIPLANE:
            self._ops.queue_program(t)
        else:
            self._ops.program(t, cache=byte == Cmd.PROGRAM_CACHE, write_protect=regs.wp)


_ADDRESSED = frozenset(
    {
        Cmd.READ_ID,
        Cmd.READ_PARAMETER_PAGE,
        Cmd.READ_UNIQUE_ID,
        Cmd.GET_FEATURES,
        Cmd.SET_FEATURES,
        Cmd.READ_STATUS_ENHANCED,
        Cmd.READ,
        Cmd.CHANGE_READ_COLUMN,
        Cmd.CHANGE_READ_COLUMN_ENHANCED,
        Cmd.PROGRAM,
        Cmd.CHANGE_WRITE_COLUMN,
        Cmd.ERASE,
    }
)
# every opcode `_on_address` acts on at some address count, and the program ones
_ACTS_ON_ADDRESS = frozenset(
    {
        Cmd.READ_ID,
        Cmd.READ_PARAMETER_PAGE,
        Cmd.READ_UNIQUE_ID,
        Cmd.GET_FEATURES,
        Cmd.SET_FEATURES,
        Cmd.READ_STATUS_ENHANCED,
        Cmd.PROGRAM,
        Cmd.CHANGE_WRITE_COLUMN,
    }
)
_COLLECT_ONLY = frozenset(range(256)) - _ACTS_ON_ADDRESS
_READ_CONFIRMS = frozenset(
    {Cmd.READ_CONFIRM, Cmd.READ_CACHE_SEQUENTIAL, Cmd.READ_MULTIPLANE, Cmd.COPYBACK_READ}
)
