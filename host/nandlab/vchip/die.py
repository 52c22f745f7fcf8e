"""The virtual NAND die: one ONFI target (one LUN) at the byte-cycle level.

`VirtualDie` is the ONFI command state machine: it answers command, address and
data cycles like a die on the bus and hands each complete operation to the part
that does it: `array_ops.ArrayOps` (read / program / erase and their cache,
multi-plane, copyback and soft-bit forms), `testmode.TestModeEngine` (test-mode
commands), `vendor_cmds.VendorCommands` (Search-in-Memory, CoX-PM), `clock.DieClock` (clock,
R/B#, status, power log), `features.FeatureRegisters`, `address.AddressMap` (with the
sticky SLC / MLC mode) and `identity` (READ ID, parameter page, unique ID).

Bus behaviour a real die leaves undefined is pinned down here:

- R/B# goes low at the end of the confirm command cycle (tWB is not added).
- While RDY is low only READ STATUS (70h), READ STATUS ENHANCED (78h) and
  RESET (FFh) are accepted; other commands are ignored. Data out while busy
  reads FFh; data in while busy is dropped.
- Unknown command bytes, and confirm bytes that fit no open sequence, are
  ignored: the die returns to idle.
- Data out after a read comes from the selected plane's cache register; after
  READ STATUS, 00h without address returns to data output. 06h + column + row
  + E0h (change read column enhanced) picks the plane that is read out.
- RESET cuts the power phases of an aborted operation but not its effect on
  the cells.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import Any

import numpy as np

from nandlab.onfi_spec.opcodes import PARAMETER_PAGE_COPIES, Cmd, Feature
from nandlab.onfi_spec.sdr_timing import SdrTiming, sdr
from nandlab.onfi_spec.testmode import Node
from nandlab.profiles.model import Profile
from nandlab.vchip import identity
from nandlab.vchip.address import AddressMap, CellMode, Target
from nandlab.vchip.array import CellArray
from nandlab.vchip.array_ops import ArrayOps
from nandlab.vchip.clock import US, DieClock
from nandlab.vchip.features import FEATURE_BYTES, FeatureRegisters
from nandlab.vchip.latches import PageBuffer
from nandlab.vchip.parts import DieParts
from nandlab.vchip.power import Phase, PowerLog
from nandlab.vchip.testmode import TestModeEngine
from nandlab.vchip.vendor_cmds import VendorCommands

PARAM_PAGE_BUSY_US = 25.0  # tR of READ PARAMETER PAGE / READ UNIQUE ID


class _Out(Enum):
    NONE = auto()
    STATUS = auto()
    STREAM = auto()  # a fixed byte pattern (ID, parameter page, unique ID, features)
    DATA = auto()  # the cache register of the selected plane
    SEARCH = auto()  # the output of the last Search-in-Memory command


@dataclass
class _Seq:
    """A command whose address cycles are being collected."""

    opcode: int
    addr: list[int] = field(default_factory=list)
    opened: bool = False  # 80h / 85h: bound to its page (data in may follow)


class VirtualDie:
    """An ONFI target with one LUN over a `CellArray`.

    Args:
        profile: the chip profile.
        seed, chip: identify the die; they key the array and the unique ID.
        array: an existing cell array (from a die image); made from the profile if None.
        param_page_copies: parameter page copies streamed before repeating (>= 3).
        corrupt_param_copies: copies to damage, for CRC / majority tests: a set of copy
            indices (copy k gets byte 8 + 11k inverted) or a mapping copy -> {byte: xor mask}.
    """

    def __init__(
        self,
        profile: Profile,
        seed: int = 0,
        chip: int = 0,
        array: CellArray | None = None,
        *,
        param_page_copies: int = PARAMETER_PAGE_COPIES,
        corrupt_param_copies: identity.Corruption = (),
    ) -> None:
        if param_page_copies < PARAMETER_PAGE_COPIES:
            raise ValueError(f"param_page_copies must be >= {PARAMETER_PAGE_COPIES}")
        self.profile = profile
        self.seed = seed
        self.chip = chip
        self.array = array if array is not None else CellArray(profile, seed, chip)
        g = profile.geometry
        parts = DieParts(
            profile,
            self.array,
            DieClock(profile.power, g.planes),
            FeatureRegisters(profile),
            AddressMap(g, profile.vendor),
            PageBuffer(g.planes, g.page_bytes + g.spare_bytes),
        )
        self._clock, self._features = parts.clock, parts.features
        self._addresses, self._buffer = parts.addresses, parts.buffer
        self.power: PowerLog = parts.clock.power
        self._test = TestModeEngine(parts)
        self._ops = ArrayOps(parts, self._test)
        self._search = VendorCommands(parts, self._ops)
        self._param_stream = identity.parameter_pages(
            profile, param_page_copies, corrupt_param_copies
        )
        self.unique_id = identity.unique_id(profile, seed, chip)
        self._wp = False
        self._reset_bus_state()

    def _reset_bus_state(self) -> None:
        self._seq: _Seq | None = None
        self._out = _Out.NONE
        self._stream = identity.ByteStream()
        self._plane = 0  # plane whose cache register data in / out uses
        self._column = 0
        self._din_page = False  # data in goes to the cache register
        self._din_features: int | None = None  # feature address being written
        self._feature_bytes = bytearray()
        self._prog: Target | None = None  # page the open program sequence targets
        self._status_plane: int | None = None  # 78h: status of this plane only
        self._resume_out = _Out.NONE  # data output that 00h resumes after READ STATUS
        self._din_latch: Node | None = None  # test-mode data load into a latch node
        self._ops.reset()

    @property
    def now_ns(self) -> int:
        """The virtual clock (ns): bus cycles and busy waits advance it."""
        return self._clock.now_ns

    @property
    def ready(self) -> bool:
        """R/B# at now_ns."""
        return self._clock.now_ns >= self._clock.rdy_until

    @property
    def last_busy_ns(self) -> int:
        """R/B# low time of the current or last busy period (0 if never busy)."""
        return self._clock.last_busy_ns

    @property
    def busy_until_ns(self) -> int:
        """When the current or last busy period ends (R/B# returns high), in ns."""
        return self._clock.rdy_until

    @property
    def timing(self) -> SdrTiming:
        """Interface timing: the SDR mode SET FEATURES 01h selects (mode 0 after RESET)."""
        return self._clock.timing

    @property
    def timing_mode(self) -> int:
        return self._clock.timing.mode

    @property
    def slc_mode(self) -> bool:
        return self._addresses.mode is CellMode.SLC

    @property
    def mlc_mode(self) -> bool:
        return self._addresses.mode is CellMode.MLC

    @property
    def test_mode(self) -> bool:
        return self._test.active

    def advance(self, ns: int) -> None:
        self._clock.advance(ns)

    def wait_ready(self, timeout_ns: int) -> int | None:
        """Advance to R/B# high or by `timeout_ns`; the busy time in ns, or None on timeout."""
        return self._clock.wait_ready(timeout_ns)

    def set_wp(self, write_protect: bool) -> None:
        """Drive WP# (True = WP# low = program and erase blocked)."""
        self._wp = bool(write_protect)

    def current_trace(self, t0_ns: int, t1_ns: int, period_ns: int) -> np.ndarray:
        """Supply current samples (µA, int64), the mean over each period in [t0, t1)."""
        return self.power.trace(t0_ns, t1_ns, period_ns)

    def energy_nJ(self, t0_ns: int, t1_ns: int) -> float:
        return self.power.energy_nJ(t0_ns, t1_ns)

    def state_dict(self) -> dict[str, Any]:
        """Volatile registers (JSON-able): features, timing mode, SLC mode, test mode."""
        return {
            "features": self._features.state(),
            "timing_mode": self._clock.timing.mode,
            "slc_mode": self.slc_mode,
            "test_mode": self._test.active,
        } | ({"mlc_mode": self.mlc_mode} if self.profile.vendor.mlc_mode is not None else {})

    def load_state(self, d: Mapping[str, Any]) -> None:
        self._features.load(d.get("features", {}))
        self._clock.timing = sdr(int(d.get("timing_mode", 0)))
        slc, mlc = d.get("slc_mode", False), d.get("mlc_mode", False)
        self._addresses.mode = CellMode.SLC if slc else CellMode.MLC if mlc else CellMode.NATIVE
        self._test.active = bool(d.get("test_mode", False))

    def feature(self, fa: int) -> bytes:
        """P1..P4 of feature address `fa` (zeros if never written)."""
        return self._features.get(fa)

    def cmd(self, byte: int) -> None:
        """One command cycle (tWC)."""
        byte &= 0xFF
        clock = self._clock
        busy = clock.now_ns < clock.rdy_until
        clock.bus(clock.timing.tWC)
        if busy and byte not in (Cmd.READ_STATUS, Cmd.READ_STATUS_ENHANCED, Cmd.RESET):
            return
        if self._search.cmd(byte):
            self._idle()
            self._out = _Out.SEARCH
            return
        if self._confirm(byte):
            return
        self._start(byte)

    def addr(self, byte: int) -> None:
        """One address cycle (tWC)."""
        clock = self._clock
        clock.bus(clock.timing.tWC)
        seq = self._seq
        if seq is None:
            self._search.addr(byte)
            return
        seq.addr.append(byte & 0xFF)
        self._on_address(seq)

    def write(self, data: bytes) -> None:
        """Data in cycles (tWC per byte)."""
        clock = self._clock
        busy = clock.now_ns < clock.rdy_until
        clock.bus(-(-self._features.byte_ps(clock.timing.tWC) * len(data) // 1000))
        if busy or not data:
            return
        if self._seq is not None and self._seq.opcode in (Cmd.PROGRAM, Cmd.CHANGE_WRITE_COLUMN):
            self._open_program(self._seq)
        if self._din_features is not None:
            self._feature_bytes += data[: FEATURE_BYTES - len(self._feature_bytes)]
            if len(self._feature_bytes) == FEATURE_BYTES:
                self._set_feature(self._din_features, bytes(self._feature_bytes))
        elif self._din_latch is not None:
            self._buffer.planes[self._plane].load(self._din_latch, self._column, data)
            self._column += len(data)
        elif self._din_page:
            self._buffer.planes[self._plane].write(self._column, data)
            self._column += len(data)
        elif self._out is _Out.SEARCH:
            self._search.write(data)

    def read(self, n: int) -> bytes:
        """Data out cycles (tRC per byte)."""
        if n <= 0:
            return b""
        if self._seq is not None and self._seq.opcode == Cmd.READ and not self._seq.addr:
            self._seq = None  # 00h without address: back to data output after status
            if self._out is _Out.STATUS:
                self._out = self._resume_out
        clock = self._clock
        byte_ps = self._features.byte_ps(clock.timing.tRC)
        start = clock.bus(-(-byte_ps * n // 1000))
        if self._out is _Out.STATUS:
            wp, plane = self._wp, self._status_plane
            return bytes(clock.status(start + i * byte_ps // 1000, wp, plane) for i in range(n))
        # bytes clocked before R/B# returns read FFh
        early = min(n, max(0, -(-(clock.rdy_until - start) * 1000 // byte_ps)))
        return b"\xff" * early + self._data_out(n - early)

    def _data_out(self, n: int) -> bytes:
        if n == 0:
            return b""
        if self._out is _Out.DATA:
            out = self._buffer.planes[self._plane].read(self._column, n)
            self._column += n
            return out
        if self._out is _Out.STREAM:
            return self._stream.take(n)
        if self._out is _Out.SEARCH:
            return self._search.read(n)
        return b"\xff" * n

    def _data_output(self, plane: int, column: int) -> None:
        self._plane, self._column, self._out = plane, column, _Out.DATA

    def _start(self, byte: int) -> None:
        opens = self._test.command(byte, self._plane)
        if opens is not None:
            self._idle()
            if opens:
                self._seq = _Seq(byte)
        elif byte == Cmd.RESET:
            self._reset()
        elif byte == Cmd.READ_STATUS:
            self._seq = None
            self._status_mode(None)
        elif byte in _ADDRESSED:
            self._seq = _Seq(byte)
            self._din_page = self._din_page and byte == Cmd.CHANGE_WRITE_COLUMN
            self._din_features = None
        elif byte in (Cmd.READ_CACHE_SEQUENTIAL, Cmd.READ_CACHE_END):
            self._seq = None
            self._cache_read(None, byte == Cmd.READ_CACHE_END, 0)
        else:
            self._idle()
            self._addresses.mode_command(byte)

    def _idle(self) -> None:
        self._seq = None
        self._out = _Out.NONE
        self._din_page = False
        self._din_latch = None
        self._din_features = None
        self._prog = None

    def _confirm(self, byte: int) -> bool:
        """Handle `byte` as the confirm of the open sequence; False if it is not one."""
        seq = self._seq
        if seq is None:
            return False
        op = seq.opcode
        test = self._test.confirm(op, seq.addr, byte)
        if test is not None:
            if test.closes:
                self._seq = None
            if test.path is not None and test.path.load is not None:
                self._plane, self._column, self._din_latch = test.path.plane, 0, test.path.load
            elif test.path is not None:
                self._data_output(test.path.plane, 0)
            return True
        if op == Cmd.READ:
            return self._read_confirm(seq, byte)
        if op in (Cmd.CHANGE_READ_COLUMN_ENHANCED, Cmd.CHANGE_READ_COLUMN):
            if byte != Cmd.CHANGE_READ_COLUMN_CONFIRM:
                return False
            self._seq = None
            col, t = self._addresses.decode(seq.addr)
            plane = t.plane if op == Cmd.CHANGE_READ_COLUMN_ENHANCED else self._plane
            self._data_output(plane, col)
            return True
        if op in (Cmd.PROGRAM, Cmd.CHANGE_WRITE_COLUMN):
            if byte not in (Cmd.PROGRAM_CONFIRM, Cmd.PROGRAM_MULTIPLANE, Cmd.PROGRAM_CACHE):
                return False
            self._open_program(seq)
            self._seq = None
            self._program_confirm(byte)
            return True
        if op == Cmd.ERASE:
            if byte not in (Cmd.ERASE_CONFIRM, Cmd.ERASE_MULTIPLANE):
                return False
            self._seq = None
            t = self._addresses.decode_row(seq.addr)
            if byte == Cmd.ERASE_MULTIPLANE:
                self._ops.queue_erase(t)
            else:
                self._ops.erase(t, self._wp)
            return True
        return False

    def _read_confirm(self, seq: _Seq, byte: int) -> bool:
        """30h, 31h (random cache read), 32h (multi-plane), 35h (copyback), soft-bit confirm."""
        if byte == Cmd.READ_CACHE_SEQUENTIAL and len(seq.addr) < self._addresses.addr_cycles:
            return False  # 31h alone: sequential cache read
        soft = self.profile.vendor.soft_bit_read
        soft_confirm = soft is not None and byte == soft.confirm_cmd
        if byte not in _READ_CONFIRMS and not soft_confirm:
            return False
        self._seq = None
        col, t = self._addresses.decode(seq.addr)
        if byte == Cmd.READ_CACHE_SEQUENTIAL:
            self._cache_read(t, False, col)
        elif byte == Cmd.READ_MULTIPLANE:
            self._ops.queue_read(t)
        else:
            self._ops.read(t, soft=byte not in _READ_CONFIRMS, copyback=byte == Cmd.COPYBACK_READ)
            self._data_output(t.plane, col)
        return True

    def _cache_read(self, random: Target | None, last: bool, column: int) -> None:
        plane = self._ops.cache_read(random, last)
        if plane is not None:
            self._data_output(plane, column)

    def _on_address(self, seq: _Seq) -> None:
        """Act on commands that complete with their address cycles."""
        op, n = seq.opcode, len(seq.addr)
        tm = self.profile.vendor.test_mode
        if tm is not None and op == tm.enter_cmd and n == 1 and not self._test.active:
            self._seq = None
            self._test.enter(seq.addr[0])
            return
        if op in (Cmd.READ_ID, Cmd.READ_PARAMETER_PAGE, Cmd.READ_UNIQUE_ID) and n == 1:
            self._seq = None
            self._identify(op, seq.addr[0])
        elif op == Cmd.GET_FEATURES and n == 1:
            self._seq = None
            self._stream = identity.ByteStream(self.feature(seq.addr[0]), wrap=False)
            self._out = _Out.STREAM
            self._feature_busy()
        elif op == Cmd.SET_FEATURES and n == 1:
            self._seq = None
            self._din_features = seq.addr[0]
            self._feature_bytes = bytearray()
        elif op == Cmd.READ_STATUS_ENHANCED and n == self.profile.geometry.row_cycles:
            self._seq = None
            self._status_mode(self._addresses.decode_row(seq.addr).plane)
        elif op in (Cmd.PROGRAM, Cmd.CHANGE_WRITE_COLUMN) and n == self._addresses.addr_cycles:
            self._open_program(seq)

    def _status_mode(self, plane: int | None) -> None:
        if self._out is not _Out.STATUS:
            self._resume_out = self._out
        self._out = _Out.STATUS
        self._status_plane = plane

    def _reset(self) -> None:
        self._clock.reset(round(self.profile.timing.t_rst_us * US))
        self._reset_bus_state()
        self._features.clear()
        self._search.reset()
        self._addresses.mode = CellMode.NATIVE
        self._test.exit()

    def _identify(self, op: int, address: int) -> None:
        self._out = _Out.STREAM
        if op == Cmd.READ_ID:
            self._stream = identity.ByteStream(identity.read_id(self.profile, address))
            return
        if op == Cmd.READ_PARAMETER_PAGE:
            self._stream = identity.ByteStream(self._param_stream)
        else:
            self._stream = identity.ByteStream(identity.unique_id_stream(self.unique_id))
        clock = self._clock
        start = clock.array_start()
        end = start + round(PARAM_PAGE_BUSY_US * US)
        clock.power.add(start, end, Phase.READ)
        clock.busy(end)

    def _feature_busy(self) -> None:
        self._clock.busy(self._clock.now_ns + round(self.profile.timing.t_feat_us * US))

    def _set_feature(self, fa: int, params: bytes) -> None:
        self._din_features = None
        self._feature_busy()
        if self._features.set(fa, params, self._test.active) and fa == Feature.TIMING_MODE:
            self._clock.timing = sdr(self._features.command_sdr_mode())

    def _open_program(self, seq: _Seq) -> None:
        """Bind the open 80h / 85h sequence to its page once its address is known."""
        if seq.opened:
            return
        seq.opened = True
        bound = self._ops.open_program(seq.opcode == Cmd.PROGRAM, seq.addr, self._prog)
        if bound is not None:
            t, col = bound
            self._prog, self._plane, self._column, self._din_page = t, t.plane, col, True

    def _program_confirm(self, byte: int) -> None:
        t = self._prog
        self._prog, self._din_page = None, False
        if t is None:
            return
        if byte == Cmd.PROGRAM_MULTIPLANE:
            self._ops.queue_program(t)
        else:
            self._ops.program(t, cache=byte == Cmd.PROGRAM_CACHE, write_protect=self._wp)


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
_READ_CONFIRMS = frozenset(
    {Cmd.READ_CONFIRM, Cmd.READ_CACHE_SEQUENTIAL, Cmd.READ_MULTIPLANE, Cmd.COPYBACK_READ}
)

