"""The virtual NAND die: one ONFI target (one LUN) at the byte-cycle level.

`VirtualDie` answers command, address and data cycles like a die on the bus,
keeps a virtual clock (`now_ns`) that every bus cycle and busy period
advances, and drives a `CellArray` for the analog state. Behaviour a real die
leaves undefined is pinned down here:

- R/B# goes low at the end of the confirm command cycle (tWB is not added)
  for the operation's busy time; array operations queue behind an array still
  busy from a cache operation (start = max(now, ARDY)).
- While RDY is low only READ STATUS (70h), READ STATUS ENHANCED (78h) and
  RESET (FFh) are accepted; other commands are ignored. Data out while busy
  reads FFh; data in while busy is dropped.
- Unknown command bytes, and confirm bytes that fit no open sequence, are
  ignored: the die returns to idle.
- Out-of-range addresses are masked to the address width (LUN bits ignored);
  pages or blocks past the die read all FFh, and program / erase on them
  fails (FAIL), all without touching the array.
- SLC mode (profile `vendor.slc_mode`) is a sticky mode: `enter_cmd` switches
  every following READ / PROGRAM / ERASE to SLC until `exit_cmd` or RESET.
  In SLC mode the page address is the WL. MLC mode (profile `vendor.mlc_mode`, with
  `physics.mlc`) is sticky the same way: pages are WL * 2 + page type (lower, upper),
  programmed with the MLC verify levels and read at the MLC references. Entering
  one of the two modes leaves the other.
- Program / erase with WP# low is not performed: status shows FAIL with WP_N
  clear, and R/B# does not go low.
- A cache register is the I/O side of every plane (see `latches`); data out
  after a read comes from it. After READ STATUS, 00h without address returns
  to data output.
- Status: FAIL is the last completed operation's result (reads pass);
  FAILC is the result of the operation before it when that one was a cache
  program. READ STATUS ENHANCED (78h) reports the addressed plane only.
- Multi-plane: 11h / 32h / D1h queue a plane (busy tDBSY = 1 µs); the final
  10h / 30h / D0h runs every queued plane at once (busy = the longest).
  06h + column + row + E0h (change read column enhanced) picks the plane
  whose cache register is read out.
- Identification data (READ ID, parameter page, unique ID) comes from
  `nandlab.vchip.identity`.
- The virtual array senses and programs at the time the operation is issued;
  the result becomes visible on the bus when R/B# returns. RESET cuts the
  power phases of an aborted operation but not its effect on the cells.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import Any

import numpy as np

from nandlab.onfi_spec.opcodes import PARAMETER_PAGE_COPIES, Cmd, Feature, Status
from nandlab.onfi_spec.sdr_timing import SdrTiming, sdr
from nandlab.onfi_spec.testmode import (
    SENSE_TIME_UNIT_US,
    VREAD_SLC,
    LatchOp,
    MwsFlag,
    Node,
    pbm_bytes,
)
from nandlab.profiles.model import Profile
from nandlab.vchip import identity
from nandlab.vchip import testmode as tmx
from nandlab.vchip.array import CellArray
from nandlab.vchip.latches import PlaneRegisters, sense_page, sense_soft_bits
from nandlab.vchip.power import Phase, PowerLog

US = 1000  # ns per µs
PARAM_PAGE_BUSY_US = 25.0  # tR of READ PARAMETER PAGE / READ UNIQUE ID
T_DBSY_US = 1.0  # multi-plane queue (11h, 32h, D1h) busy
FEATURE_BYTES = 4


class _Out(Enum):
    NONE = auto()
    STATUS = auto()
    STREAM = auto()  # a fixed byte pattern (ID, parameter page, unique ID, features)
    DATA = auto()  # the cache register of the selected plane


@dataclass
class _Seq:
    """A command whose address cycles are being collected."""

    opcode: int
    addr: list[int] = field(default_factory=list)
    opened: bool = False  # 80h / 85h: bound to its page (data in may follow)


@dataclass(frozen=True)
class _Target:
    """A decoded row: plane, block, page (None when past the die)."""

    plane: int
    block: int
    page: int
    valid: bool


@dataclass
class _OpRecord:
    done_ns: int
    fail: tuple[bool, ...]  # per plane
    cache: bool = False  # a cache operation: FAILC reports it once the next op is done


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
        self._nbytes = g.page_bytes + g.spare_bytes
        self._col_mask = (1 << max(1, (self._nbytes - 1).bit_length())) - 1
        self._regs = [PlaneRegisters(self._nbytes) for _ in range(g.planes)]
        self.power = PowerLog(profile.power)
        self._param_stream = identity.parameter_pages(
            profile, param_page_copies, corrupt_param_copies
        )
        self.unique_id = identity.unique_id(profile, seed, chip)

        self.now_ns = 0
        self._wp = False
        self._rdy_from = 0
        self._rdy_until = 0
        self._ardy_until = 0
        self._ops: deque[_OpRecord] = deque(maxlen=4)
        self._features: dict[int, bytes] = {}
        self._timing = sdr(0)
        self.slc_mode = False
        self.mlc_mode = False
        self.test_mode = False
        self._inverse_next = False  # one-shot inverse-read prefix
        self._reset_bus_state()

    # ---------------------------------------------------------------- bus state

    def _reset_bus_state(self) -> None:
        self._seq: _Seq | None = None
        self._out = _Out.NONE
        self._stream = b""
        self._stream_pos = 0
        self._stream_wrap = True
        self._plane = 0  # plane whose cache register data in / out uses
        self._column = 0
        self._din_page = False  # data in goes to the cache register
        self._din_features: int | None = None  # feature address being written
        self._feature_bytes = bytearray()
        self._prog: _Target | None = None  # page the open program sequence targets
        self._mp_read: list[_Target] = []
        self._mp_prog: list[_Target] = []
        self._mp_erase: list[_Target] = []
        self._copyback_plane: int | None = None
        self._next_cache_page: _Target | None = None  # page sensed by the next 31h
        self._sensed_plane = 0  # plane whose data register holds the last sensing
        self._status_plane: int | None = None  # 78h: status of this plane only
        self._resume_out = _Out.NONE  # data output that 00h resumes after READ STATUS
        self._din_latch: Node | None = None  # test-mode data load into a latch node
        self._mws_groups: list[int] = []  # address counts where MWS continue slots fell

    # ---------------------------------------------------------------- clock and R/B#

    @property
    def timing_mode(self) -> int:
        return self._timing.mode

    @property
    def timing(self) -> SdrTiming:
        return self._timing

    @property
    def ready(self) -> bool:
        """R/B# at now_ns."""
        return self.now_ns >= self._rdy_until

    @property
    def array_ready(self) -> bool:
        """ARDY at now_ns (low while a cache operation's array part runs)."""
        return self.now_ns >= self._ardy_until

    @property
    def last_busy_ns(self) -> int:
        """R/B# low time of the current or last busy period (0 if never busy)."""
        return self._rdy_until - self._rdy_from

    def advance(self, ns: int) -> None:
        if ns < 0:
            raise ValueError(f"time only moves forward: advance({ns})")
        self.now_ns += int(ns)

    def wait_ready(self, timeout_ns: int) -> int | None:
        """Advance to R/B# high or by `timeout_ns`; the busy time in ns, or None on timeout."""
        if self.ready:
            return self.last_busy_ns
        if self._rdy_until - self.now_ns <= timeout_ns:
            self.now_ns = self._rdy_until
            return self.last_busy_ns
        self.now_ns += int(timeout_ns)
        return None

    def set_wp(self, write_protect: bool) -> None:
        """Drive WP# (True = WP# low = program and erase blocked)."""
        self._wp = bool(write_protect)

    def _bus(self, ns: int) -> int:
        start = self.now_ns
        self.now_ns += ns
        self.power.add(start, self.now_ns, Phase.IO)
        return start

    def _busy(self, until_ns: int, array_until_ns: int | None = None) -> None:
        self._rdy_from = self.now_ns
        self._rdy_until = max(until_ns, self.now_ns)
        self._ardy_until = max(self._rdy_until, array_until_ns or 0, self._ardy_until)

    def _array_start(self) -> int:
        return max(self.now_ns, self._ardy_until)

    # ---------------------------------------------------------------- power

    def current_trace(self, t0_ns: int, t1_ns: int, period_ns: int) -> np.ndarray:
        """Supply current samples (µA, int64), the mean over each period in [t0, t1)."""
        return self.power.trace(t0_ns, t1_ns, period_ns)

    def energy_nJ(self, t0_ns: int, t1_ns: int) -> float:
        return self.power.energy_nJ(t0_ns, t1_ns)

    # ---------------------------------------------------------------- volatile state

    def state_dict(self) -> dict[str, Any]:
        """Volatile registers (JSON-able): features, timing mode, SLC mode, test mode."""
        return {
            "features": {str(fa): list(v) for fa, v in sorted(self._features.items())},
            "timing_mode": self._timing.mode,
            "slc_mode": self.slc_mode,
            "test_mode": self.test_mode,
        } | ({"mlc_mode": self.mlc_mode} if self.profile.vendor.mlc_mode is not None else {})

    def load_state(self, d: Mapping[str, Any]) -> None:
        self._features = {
            int(fa): bytes(int(b) & 0xFF for b in v) for fa, v in d.get("features", {}).items()
        }
        self._timing = sdr(int(d.get("timing_mode", 0)))
        self.slc_mode = bool(d.get("slc_mode", False))
        self.mlc_mode = bool(d.get("mlc_mode", False))
        self.test_mode = bool(d.get("test_mode", False))

    def feature(self, fa: int) -> bytes:
        """P1..P4 of feature address `fa` (zeros if never written)."""
        return self._features.get(fa, bytes(FEATURE_BYTES))

    # ---------------------------------------------------------------- bus cycles

    def cmd(self, byte: int) -> None:
        """One command cycle (tWC)."""
        byte &= 0xFF
        busy = not self.ready
        self._bus(self._timing.tWC)
        if busy and byte not in (Cmd.READ_STATUS, Cmd.READ_STATUS_ENHANCED, Cmd.RESET):
            return
        if self._confirm(byte):
            return
        self._start(byte)

    def addr(self, byte: int) -> None:
        """One address cycle (tWC)."""
        self._bus(self._timing.tWC)
        seq = self._seq
        if seq is None:
            return
        seq.addr.append(byte & 0xFF)
        self._on_address(seq)

    def write(self, data: bytes) -> None:
        """Data in cycles (tWC per byte)."""
        busy = not self.ready
        self._bus(self._timing.tWC * len(data))
        if busy or not data:
            return
        if self._seq is not None and self._seq.opcode in (Cmd.PROGRAM, Cmd.CHANGE_WRITE_COLUMN):
            self._open_program(self._seq)
        if self._din_features is not None:
            self._feature_bytes += data[: FEATURE_BYTES - len(self._feature_bytes)]
            if len(self._feature_bytes) == FEATURE_BYTES:
                self._set_feature(self._din_features, bytes(self._feature_bytes))
        elif self._din_latch is not None:
            self._regs[self._plane].load(self._din_latch, self._column, data)
            self._column += len(data)
        elif self._din_page:
            self._regs[self._plane].write(self._column, data)
            self._column += len(data)

    def read(self, n: int) -> bytes:
        """Data out cycles (tRC per byte)."""
        if n <= 0:
            return b""
        if self._seq is not None and self._seq.opcode == Cmd.READ and not self._seq.addr:
            self._seq = None  # 00h without address: back to data output after status
            if self._out is _Out.STATUS:
                self._out = self._resume_out
        start = self._bus(self._timing.tRC * n)
        if self._out is _Out.STATUS:
            return bytes(self._status_at(start + i * self._timing.tRC) for i in range(n))
        # bytes clocked before R/B# returns read FFh
        early = min(n, max(0, -(-(self._rdy_until - start) // self._timing.tRC)))
        return b"\xff" * early + self._data_out(n - early)

    def _data_out(self, n: int) -> bytes:
        if n == 0:
            return b""
        if self._out is _Out.DATA:
            out = self._regs[self._plane].read(self._column, n)
            self._column += n
            return out
        if self._out is _Out.STREAM:
            s, pos = self._stream, self._stream_pos
            self._stream_pos += n
            if self._stream_wrap:
                return _cycle(s, pos, n)
            return (s[pos : pos + n]).ljust(n, b"\x00")
        return b"\xff" * n

    # ---------------------------------------------------------------- command dispatch

    def _start(self, byte: int) -> None:
        slc = self.profile.vendor.slc_mode
        mlc = self.profile.vendor.mlc_mode
        if self._test_start(byte):
            return
        if byte == Cmd.RESET:
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
            self._cache_read(random=None, last=byte == Cmd.READ_CACHE_END)
        elif slc is not None and byte == slc.enter_cmd:
            self._idle()
            self.slc_mode, self.mlc_mode = True, False
        elif slc is not None and byte == slc.exit_cmd:
            self._idle()
            self.slc_mode = False
        elif mlc is not None and byte == mlc.enter_cmd:
            self._idle()
            self.slc_mode, self.mlc_mode = False, True
        elif mlc is not None and byte == mlc.exit_cmd:
            self._idle()
            self.mlc_mode = False
        else:
            self._idle()

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
        if self._test_confirm(seq, byte):
            return True
        soft = self.profile.vendor.soft_bit_read
        if op == Cmd.READ:
            if byte == Cmd.READ_CACHE_SEQUENTIAL and len(seq.addr) < self._addr_cycles:
                return False  # 31h alone: sequential cache read
            reads = {
                Cmd.READ_CONFIRM,
                Cmd.READ_CACHE_SEQUENTIAL,
                Cmd.READ_MULTIPLANE,
                Cmd.COPYBACK_READ,
            }
            if byte not in reads and not (soft is not None and byte == soft.confirm_cmd):
                return False
            self._seq = None
            col, t = self._decode(seq.addr)
            if byte == Cmd.READ_CACHE_SEQUENTIAL:
                self._cache_read(random=t, last=False, column=col)
            elif byte == Cmd.READ_MULTIPLANE:
                self._mp_read = [q for q in self._mp_read if q.plane != t.plane] + [t]
                self._queue_busy()
            else:
                self._read(t, col, soft=byte not in reads, copyback=byte == Cmd.COPYBACK_READ)
            return True
        if op in (Cmd.CHANGE_READ_COLUMN_ENHANCED, Cmd.CHANGE_READ_COLUMN):
            if byte != Cmd.CHANGE_READ_COLUMN_CONFIRM:
                return False
            self._seq = None
            col, t = self._decode(seq.addr)
            if op == Cmd.CHANGE_READ_COLUMN_ENHANCED:
                self._plane = t.plane
            self._column = col
            self._out = _Out.DATA
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
            _, t = self._decode([0] * self._col_cycles + seq.addr)
            if byte == Cmd.ERASE_MULTIPLANE:
                self._mp_erase = [q for q in self._mp_erase if q.plane != t.plane] + [t]
                self._queue_busy()
            else:
                targets, self._mp_erase = [*self._mp_erase, t], []
                self._erase(targets)
            return True
        return False

    def _on_address(self, seq: _Seq) -> None:
        """Act on commands that complete with their address cycles."""
        op, n = seq.opcode, len(seq.addr)
        tm = self.profile.vendor.test_mode
        if tm is not None and op == tm.enter_cmd and n == 1 and not self.test_mode:
            self._seq = None
            self.test_mode = seq.addr[0] == tm.key
            return
        if op in (Cmd.READ_ID, Cmd.READ_PARAMETER_PAGE, Cmd.READ_UNIQUE_ID) and n == 1:
            self._seq = None
            self._identify(op, seq.addr[0])
        elif op == Cmd.GET_FEATURES and n == 1:
            self._seq = None
            self._stream, self._stream_pos, self._stream_wrap = self.feature(seq.addr[0]), 0, False
            self._out = _Out.STREAM
            self._feature_busy()
        elif op == Cmd.SET_FEATURES and n == 1:
            self._seq = None
            self._din_features = seq.addr[0]
            self._feature_bytes = bytearray()
        elif op == Cmd.READ_STATUS_ENHANCED and n == self.profile.geometry.row_cycles:
            self._seq = None
            _, t = self._decode([0] * self._col_cycles + seq.addr)
            self._status_mode(t.plane)
        elif op in (Cmd.PROGRAM, Cmd.CHANGE_WRITE_COLUMN) and n == self._addr_cycles:
            self._open_program(seq)

    def _status_mode(self, plane: int | None) -> None:
        if self._out is not _Out.STATUS:
            self._resume_out = self._out
        self._out = _Out.STATUS
        self._status_plane = plane

    @property
    def _col_cycles(self) -> int:
        return self.profile.geometry.column_cycles

    @property
    def _addr_cycles(self) -> int:
        return self.profile.geometry.column_cycles + self.profile.geometry.row_cycles

    def _decode(self, addr: list[int]) -> tuple[int, _Target]:
        """Column and target of column + row address cycles (missing cycles read 0)."""
        g = self.profile.geometry
        cycles = (addr + [0] * self._addr_cycles)[: self._addr_cycles]
        col = int.from_bytes(bytes(cycles[: g.column_cycles]), "little") & self._col_mask
        row = int.from_bytes(bytes(cycles[g.column_cycles :]), "little")
        page = row & ((1 << g.page_address_bits) - 1)
        block = (row >> g.page_address_bits) & ((1 << g.block_address_bits) - 1)
        limit = self._pages_in_mode()
        valid = block < g.blocks and page < limit
        return col, _Target(block % g.planes, block, page, valid)

    # ---------------------------------------------------------------- RESET, ID, features

    def _pages_in_mode(self) -> int:
        g = self.profile.geometry
        if self.slc_mode:
            return g.wls_per_block
        if self.mlc_mode:
            return g.wls_per_block * 2
        return g.pages_per_block

    def _reset(self) -> None:
        self.power.truncate_after(self.now_ns)
        self._reset_bus_state()
        self._features = {}
        self._timing = sdr(0)
        self.slc_mode = False
        self.mlc_mode = False
        self.test_mode = False
        self._inverse_next = False
        self._ops.clear()
        self._ardy_until = self.now_ns
        self._busy(self.now_ns + round(self.profile.timing.t_rst_us * US))

    def _identify(self, op: int, address: int) -> None:
        self._stream_pos, self._stream_wrap, self._out = 0, True, _Out.STREAM
        if op == Cmd.READ_ID:
            self._stream = identity.read_id(self.profile, address)
            return
        if op == Cmd.READ_PARAMETER_PAGE:
            self._stream = self._param_stream
        else:
            self._stream = identity.unique_id_stream(self.unique_id)
        start = self._array_start()
        end = start + round(PARAM_PAGE_BUSY_US * US)
        self.power.add(start, end, Phase.READ)
        self._busy(end)

    def _feature_busy(self) -> None:
        self._busy(self.now_ns + round(self.profile.timing.t_feat_us * US))

    def _set_feature(self, fa: int, params: bytes) -> None:
        self._din_features = None
        self._feature_busy()
        if fa in tmx.feature_addresses(self.profile) and not self.test_mode:
            return  # test-mode registers ignore writes outside the test mode
        if fa == Feature.TIMING_MODE:
            mode = params[0] & 0x0F
            if params[0] & 0xF0 or mode not in self.profile.timing.sdr_modes:
                return  # NV-DDR or an unsupported mode: ignored, as silicon does
            self._timing = sdr(mode)
        self._features[fa] = params

    def _offset_mV(self, fa: int, param: int) -> float:
        ro = self.profile.read_offsets
        raw = self.feature(fa)[param]
        code = raw - 256 if raw & 0x80 else raw
        return min(max(code, ro.code_min), ro.code_max) * ro.step_mV

    def _refs_mV(self, page_type: int | None) -> list[float]:
        """Read references (mV, offsets applied) of a page type; None = SLC."""
        ro = self.profile.read_offsets
        if page_type is None:
            r = ro.slc_reference
            return [r.default_mV + self._offset_mV(r.feature, r.param)]
        mlc = self.profile.physics.mlc
        if self.mlc_mode and mlc is not None:
            codes = mlc.gray_code
            return [
                mlc.read_mV[r]
                for r in range(len(codes) - 1)
                if codes[r][page_type] != codes[r + 1][page_type]
            ]
        refs = [ro.references[i] for i in self.profile.page_refs[page_type]]
        return [r.default_mV + self._offset_mV(r.feature, r.param) for r in refs]

    # ---------------------------------------------------------------- status

    def _status_at(self, t_ns: int) -> int:
        s = 0 if self._wp else Status.WP_N
        if t_ns >= self._rdy_until:
            s |= Status.RDY
        if t_ns >= self._ardy_until:
            s |= Status.ARDY
        done = [op for op in self._ops if op.done_ns <= t_ns]
        plane = self._status_plane

        def failed(op: _OpRecord) -> bool:
            return op.fail[plane] if plane is not None else any(op.fail)

        if done and failed(done[-1]):
            s |= Status.FAIL
        if len(done) > 1 and done[-2].cache and failed(done[-2]):
            s |= Status.FAILC
        return int(s)

    def _record(self, done_ns: int, fail: dict[int, bool], cache: bool = False) -> None:
        planes = self.profile.geometry.planes
        fails = tuple(fail.get(p, False) for p in range(planes))
        self._ops.append(_OpRecord(done_ns, fails, cache))

    # ---------------------------------------------------------------- read

    def _locate(self, t: _Target) -> tuple[int, int | None]:
        """(wl, page type) of a valid target; page type None in SLC mode."""
        if self.slc_mode:
            return t.page, None
        if self.mlc_mode:
            return t.page // 2, t.page % 2
        bits = self.profile.geometry.bits_per_cell
        return t.page // bits, t.page % bits

    def _sense(self, t: _Target, soft: bool = False) -> int:
        """Sense `t` into its plane's data register; returns tR in ns."""
        tm = self.profile.timing
        regs = self._regs[t.plane]
        inverse, self._inverse_next = self._inverse_next, False
        strobe = self._strobe_us(None)
        t_sense = tm.t_sense_us if strobe is None else strobe
        if not t.valid:
            regs.data.fill(0x00 if inverse else 0xFF)
            return round((tm.t_read_base_us + t_sense) * US)
        wl, page_type = self._locate(t)
        refs = self._refs_mV(page_type)
        slc = page_type is None

        floor = self.profile.read_offsets.sense_floor_mV
        t_soft: float | None = None

        def sense(ref_mV: float) -> np.ndarray:
            if floor is not None:  # the WL cannot be driven below the sense floor
                ref_mV = max(ref_mV, floor)
            if strobe is not None:
                return self.array.sense_mws([(t.block, [wl])], ref_mV, strobe)
            return self.array.sense(t.block, wl, ref_mV, slc)

        if soft:
            sbr = self.profile.vendor.soft_bit_read
            assert sbr is not None
            ro = self.profile.read_offsets
            raw = self.feature(sbr.delta_feature)[0]
            code = raw - 256 if raw & 0x80 else raw
            delta = min(max(code, 0), ro.code_max) * ro.step_mV
            regs.data[:] = sense_soft_bits(sense, refs, delta, self._nbytes)
            n_sensings = 2 * len(refs)
            if strobe is None and tm.t_sense_soft_us is not None:
                # the second sensing of each -/+ delta pair keeps the precharged bitlines
                t_soft = tm.t_sense_soft_us
        else:
            regs.data[:] = sense_page(sense, refs, self._nbytes)
            n_sensings = len(refs)
        g = self.profile.geometry
        if t.page in (0, 1) and g.spare_bytes and self.array.is_factory_bad(t.block):
            regs.data[g.page_bytes] = 0x00  # ONFI bad block marker
        if inverse:
            regs.data ^= 0xFF
        if t_soft is not None:
            return round((tm.t_read_base_us + n_sensings // 2 * (t_sense + t_soft)) * US)
        return round((tm.t_read_base_us + n_sensings * t_sense) * US)

    def _read(self, t: _Target, column: int, soft: bool, copyback: bool) -> None:
        """00h-30h (with any 32h-queued planes), 00h-35h, 00h-<soft-bit confirm>."""
        targets, self._mp_read = [*self._mp_read, t], []
        start = self._array_start()
        end = start
        for q in targets:
            t_r = self._sense(q, soft=soft)
            self._regs[q.plane].data_to_cache()
            self.power.add_read(start, start + t_r, self._read_setup_ns())
            end = max(end, start + t_r)
        self._record(end, {})
        self._busy(end)
        self._plane, self._column, self._out = t.plane, column, _Out.DATA
        self._sensed_plane = t.plane
        self._copyback_plane = t.plane if copyback else None
        self._next_cache_page = self._successor(t)

    def _read_setup_ns(self) -> int:
        """Setup part of a read (pump ramp, WL / BL precharge): power.read_setup_mA."""
        return round(self.profile.timing.t_read_base_us * US)

    def _successor(self, t: _Target) -> _Target:
        limit = self._pages_in_mode()
        page = t.page + 1
        return _Target(t.plane, t.block, page, t.valid and page < limit)

    def _cache_read(self, random: _Target | None, last: bool, column: int = 0) -> None:
        """31h (sequential), 00h-addr-31h (random) and 3Fh (last) cache reads."""
        if random is None and self._next_cache_page is None:
            return  # no read to continue: ignored
        tm = self.profile.timing
        start = self._array_start()
        xfer_end = start + round(tm.t_cache_xfer_us * US)
        nxt = random if random is not None else self._next_cache_page
        assert nxt is not None
        out_plane = self._sensed_plane
        self._regs[out_plane].data_to_cache()
        array_end = xfer_end
        if not last:
            t_r = self._sense(nxt)
            array_end = xfer_end + t_r
            self.power.add_read(xfer_end, array_end, self._read_setup_ns())
            self._next_cache_page = self._successor(nxt)
            self._sensed_plane = nxt.plane
        else:
            self._next_cache_page = None
        self._record(array_end, {})
        self._busy(xfer_end, array_end)
        self._plane, self._column, self._out = out_plane, column, _Out.DATA

    def _queue_busy(self) -> None:
        self._busy(self._array_start() + round(T_DBSY_US * US))

    # ---------------------------------------------------------------- program

    def _open_program(self, seq: _Seq) -> None:
        """Bind the open 80h / 85h sequence to its page once its address is known."""
        if seq.opened:
            return
        seq.opened = True
        if seq.opcode == Cmd.PROGRAM:
            col, t = self._decode(seq.addr)
            self._regs[t.plane].clear_cache()
            self._copyback_plane = None
        elif len(seq.addr) <= self._col_cycles:  # 85h + column: change write column
            if self._prog is None:
                return
            col, t = self._decode(seq.addr)
            t = self._prog
        else:  # 85h + column + row: copyback program, or a new row inside 80h
            col, t = self._decode(seq.addr)
        self._prog, self._plane, self._column, self._din_page = t, t.plane, col, True

    def _program_confirm(self, byte: int) -> None:
        t = self._prog
        self._prog, self._din_page = None, False
        if t is None:
            return
        if byte == Cmd.PROGRAM_MULTIPLANE:
            self._mp_prog = [q for q in self._mp_prog if q.plane != t.plane] + [t]
            self._queue_busy()
            return
        targets, self._mp_prog = [*self._mp_prog, t], []
        cb_plane, self._copyback_plane = self._copyback_plane, None
        if self._wp:
            self._record(self.now_ns, {q.plane: True for q in targets})
            return
        tm = self.profile.timing
        start = self._array_start()
        cache = byte == Cmd.PROGRAM_CACHE
        busy_from = start + round(tm.t_cache_xfer_us * US) if cache else start
        end = busy_from
        fail: dict[int, bool] = {}
        for q in targets:
            self._regs[q.plane].cache_to_data()
            ok, busy_us = self._program_page(q, cb_plane)
            fail[q.plane] = not ok
            self.power.add(busy_from, busy_from + round(busy_us * US), Phase.PROGRAM)
            end = max(end, busy_from + round(busy_us * US))
        self._record(end, fail, cache)
        self._busy(busy_from if cache else end, end)

    def _program_page(self, t: _Target, copyback_plane: int | None) -> tuple[bool, float]:
        """Program the plane's data register to `t`: (ok, busy µs)."""
        if not t.valid or (copyback_plane is not None and copyback_plane != t.plane):
            return False, self.profile.timing.t_prog_base_us
        wl, page_type = self._locate(t)
        data = self._regs[t.plane].data.copy()
        tune = tmx.esp_tune(self.profile, self.feature) if self.test_mode else None
        slc = page_type is None
        res = self.array.program(
            t.block,
            wl,
            {page_type or 0: data},
            slc=slc,
            ispp=tune if slc else None,
            mlc=self.mlc_mode and not slc,
        )
        return bool(res.ok), float(res.busy_us)

    # ---------------------------------------------------------------- erase

    def _erase(self, targets: list[_Target]) -> None:
        if self._wp:
            self._record(self.now_ns, {q.plane: True for q in targets})
            return
        tm = self.profile.timing
        start = self._array_start()
        end = start
        fail: dict[int, bool] = {}
        for q in targets:
            if not q.valid:
                ok, busy_us = False, tm.t_erase_base_us
            else:
                res = self.array.erase(q.block)
                ok, busy_us = bool(res.ok), float(res.busy_us)
            fail[q.plane] = not ok
            self.power.add(start, start + round(busy_us * US), Phase.ERASE)
            end = max(end, start + round(busy_us * US))
        self._record(end, fail)
        self._busy(end)

    # ---------------------------------------------------------------- test mode

    def _strobe_us(self, default_us: float | None) -> float | None:
        """Sensing (strobe) time the test-mode sense-time feature sets, else `default_us`."""
        st = self.profile.vendor.sense_time
        if st is None or not self.test_mode:
            return default_us
        raw = self.feature(st.feature)
        code = raw[0] | raw[1] << 8
        return default_us if code == 0 else code * SENSE_TIME_UNIT_US

    def _test_start(self, byte: int) -> bool:
        """Test-mode command bytes; True if `byte` was one (only in test mode, but entry)."""
        v = self.profile.vendor
        tm = v.test_mode
        if tm is None:
            return False
        if byte == tm.enter_cmd:
            self._idle()
            self._seq = _Seq(byte)
            return True
        if not self.test_mode:
            return False
        if byte == tm.exit_cmd:
            self._idle()
            self.test_mode = False
            self._inverse_next = False
            return True
        if v.inverse_read is not None and byte == v.inverse_read.prefix_cmd:
            self._idle()
            self._inverse_next = True
            return True
        if v.latch_ops is not None and byte == v.latch_ops.cmd:
            self._idle()
            self._seq = _Seq(byte)
            return True
        if v.mws is not None and byte == v.mws.cmd:
            self._idle()
            self._seq = _Seq(byte)
            self._mws_groups = []
            return True
        if v.latch_xor is not None and byte == v.latch_xor.cmd:
            self._idle()
            self._latch_step(self._plane, lambda r: r.xor_to_cache())
            return True
        return False

    def _test_confirm(self, seq: _Seq, byte: int) -> bool:
        """Confirm / continue bytes of the open test-mode sequence."""
        if not self.test_mode:
            return False
        v = self.profile.vendor
        if v.latch_ops is not None and seq.opcode == v.latch_ops.cmd:
            if byte != v.latch_ops.confirm_cmd:
                return False
            self._seq = None
            self._latch_op(seq.addr)
            return True
        if v.mws is not None and seq.opcode == v.mws.cmd:
            if byte == v.mws.cont_cmd:
                self._mws_groups.append(len(seq.addr))
                return True
            if byte != v.mws.confirm_cmd:
                return False
            self._seq = None
            self._mws(seq.addr)
            return True
        return False

    def _latch_step(self, plane: int, step: Any, busy_us: float | None = None) -> None:
        lo = self.profile.vendor.latch_ops
        t_us = busy_us if busy_us is not None else (lo.t_step_us if lo else tmx.DEFAULT_STEP_US)
        start = self._array_start()
        step(self._regs[plane])
        end = start + round(t_us * US)
        self._record(end, {})
        self._busy(end)

    def _latch_op(self, addr: list[int]) -> None:
        """CMD latch_ops.cmd, ADDR op, ADDR arg, ADDR row (row_cycles), CMD confirm."""
        lo = self.profile.vendor.latch_ops
        assert lo is not None
        op = addr[0] if addr else -1
        arg = addr[1] if len(addr) > 1 else 0
        _, t = self._decode([0] * self._col_cycles + addr[2:])
        plane = t.plane
        if op == LatchOp.SENSE:
            self._latch_sense(t, arg)
            return
        steps: dict[int, Any] = {
            LatchOp.M1: lambda r: r.m1(bool(arg & 1)),
            LatchOp.M2: lambda r: r.m2(bool(arg & 1)),
            LatchOp.M3: lambda r: r.m3(),
            LatchOp.INIT_L1: lambda r: r.init_l1(bool(arg & 1)),
            LatchOp.INIT_L2: lambda r: r.init_l2(),
            LatchOp.XOR: lambda r: r.xor_to_cache(),
        }
        if op in steps:
            self._latch_step(plane, steps[op])
        elif op == LatchOp.OUTPUT and arg in Node._value2member_map_:
            self._regs[plane].out_node = Node(arg)
            self._plane, self._column, self._out = plane, 0, _Out.DATA
        elif op == LatchOp.DATA_IN and arg in (Node.A, Node.OUT):
            self._plane, self._column, self._din_latch = plane, 0, Node(arg)

    def _latch_sense(self, t: _Target, k: int) -> None:
        """Sense the WL of `t` at VREADk into SO (1 = the cell did not conduct)."""
        lo = self.profile.vendor.latch_ops
        assert lo is not None
        ro = self.profile.read_offsets
        tm = self.profile.timing
        if k == 0:
            ref = lo.vread0_mV
        elif k == VREAD_SLC:
            r = ro.slc_reference
            ref = r.default_mV + self._offset_mV(r.feature, r.param)
        elif 1 <= k <= len(ro.references):
            r = ro.references[k - 1]
            ref = r.default_mV + self._offset_mV(r.feature, r.param)
        else:
            return  # no such reference: ignored
        strobe = self._strobe_us(None)
        t_us = tm.t_sense_us if strobe is None else strobe
        regs = self._regs[t.plane]
        inverse, self._inverse_next = self._inverse_next, False
        start = self._array_start()
        if not t.valid:
            regs.so.fill(0x00)
        else:
            wl, _ = self._locate(t)
            if strobe is None:
                conducts = self.array.sense(t.block, wl, ref, self.slc_mode)
            else:
                conducts = self.array.sense_mws([(t.block, [wl])], ref, strobe)
            regs.so[:] = conducts if inverse else ~conducts
        end = start + round(t_us * US)
        self.power.add(start, end, Phase.READ)
        self._record(end, {})
        self._busy(end)
        self._sensed_plane = t.plane

    def _mws(self, addr: list[int]) -> None:
        """Multi-wordline sensing (Flash-Cosmos): flags, then per block: row + page bitmap."""
        v = self.profile.vendor
        mws = v.mws
        assert mws is not None
        g = self.profile.geometry
        pbm_n = pbm_bytes(g.wls_per_block)
        flags = addr[0] if addr else 0
        body = addr[1:]
        group_n = g.row_cycles + pbm_n
        groups: list[tuple[int, list[int]]] = []
        ok = len(body) >= group_n and len(body) % group_n == 0
        blocks: list[int] = []
        for i in range(0, len(body) if ok else 0, group_n):
            _, t = self._decode([0] * self._col_cycles + body[i : i + g.row_cycles])
            bitmap = body[i + g.row_cycles : i + group_n]
            wls = [w for w in range(g.wls_per_block) if bitmap[w >> 3] >> (w & 7) & 1]
            if t.block >= g.blocks or not wls:
                ok = False
                break
            groups.append((t.block, wls))
            if t.block not in blocks:
                blocks.append(t.block)
        planes = {b % g.planes for b in blocks}
        override = self.feature(mws.override_feature)[0] == 1
        if len(planes) > 1 or (len(blocks) > mws.max_blocks and not override):
            ok = False
        start = self._array_start()
        inverse = bool(flags & MwsFlag.INVERSE) or self._inverse_next
        self._inverse_next = False
        if not ok:
            self._record(start, {p: True for p in range(g.planes)})
            return
        plane = blocks[0] % g.planes
        regs = self._regs[plane]
        strobe = self._strobe_us(mws.t_sense_us)
        assert strobe is not None
        r = self.profile.read_offsets.slc_reference
        ref = r.default_mV + self._offset_mV(r.feature, r.param)
        conducts = self.array.sense_mws(groups, ref, strobe)
        if flags & MwsFlag.C_INIT:
            regs.init_l2()
        if flags & MwsFlag.S_INIT:
            regs.init_l1(inverted=inverse)
        regs.so[:] = ~conducts
        if inverse:
            regs.m1()
        else:
            regs.m2()
        if flags & MwsFlag.S_TO_C:
            regs.m3()
        end = start + round((self.profile.timing.t_read_base_us + strobe) * US)
        self.power.add(start, end, Phase.READ, tmx.mws_current_mA(self.profile, len(blocks)))
        self._record(end, {})
        self._busy(end)
        self._plane, self._column, self._out = plane, 0, _Out.DATA
        regs.out_node = Node.OUT
        self._sensed_plane = plane


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


def _cycle(s: bytes, pos: int, n: int) -> bytes:
    """n bytes of `s` repeated forever, from position pos."""
    pos %= len(s)
    reps = (pos + n) // len(s) + 1
    return (s * reps)[pos : pos + n]
