"""The FPGA design behind the XDMA driver's device files, emulated in Python for tests and
demos: `XdmaEmulation` answers the `DeviceFiles` calls of `nandlab.transport.xdma`, so
everything above the device files runs unchanged; `emulated_bench` opens an xdma:// bench
on it.

With `firmware=` (the bridge library of `make -C firmware host-lib`) it is the top with
the board CPU (hw/regs/nandlab_cpu_bar.rdl's BAR map): the firmware's C code
(`nandlab.transport.firmware_native.NativeFirmware`) holds the mailbox registers and the
shared RAM, and its op programs reach the sequencer only while CPU_CTRL.STREAM_CPU is
set, as the H2C stream's reach it only while it is clear."""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field
from pathlib import Path

from nandlab.boards import Board, load_board
from nandlab.errors import TransportError
from nandlab.firmware._cpu_regs import (
    BAR_CPU_CTRL,
    BAR_CSR_SIZE,
    BAR_SHARED,
    BAR_SHARED_SIZE,
    CPU_CTRL,
)
from nandlab.ops import Program, Results, decode_results
from nandlab.ops._generated import SPEC_VERSION
from nandlab.profiles import Profile
from nandlab.regs import ID_MAGIC, REG
from nandlab.transport.base import Transport
from nandlab.transport.firmware_native import NativeFirmware
from nandlab.transport.xdma import ERESTARTSYS, ETIME, XdmaTransport, parse_xdma_url

_MAILBOX = frozenset(r.offset for n, r in REG.items() if n.startswith("MBX_"))
"""The CSR block's mailbox registers: with the CPU, the firmware's side of them answers."""


@dataclass
class XdmaFaults:
    """Driver failure modes an `XdmaEmulation` can play."""

    missing: set[str] = field(default_factory=set)  # device file suffixes: "user", "h2c_0"...
    permission_denied: bool = False
    c2h_errno: int | None = None  # e.g. ETIME or ERESTARTSYS (512) on the next C2H read
    wrong_magic: bool = False


class XdmaEmulation:
    """The FPGA design behind the XDMA device files, in Python.

    The user BAR answers the register map of nandlab.regs (ID, VERSION,
    CONFIG, CONTROL, STATUS, RB_STATUS, RSP_LIMIT, counters); an H2C packet
    is one op program, run by the sequencer model (the sim transport's op
    program semantics) on `num_ce` virtual dies; its result stream is the
    next C2H packet, cut at RSP_LIMIT with ERROR OVERFLOW as the RTL does.

    `firmware`: the firmware bridge library; the design then has the board
    CPU, which runs a mailbox command whenever the host reads the BAR (the
    board's CPU runs beside the host; this one runs when the host looks).
    Without it, BAR offsets past the CSR block alias into it as the CPU-less
    top's 7-bit decode does.
    """

    CLK_PERIOD_PS = 8000

    def __init__(self, profile: str | Profile, *, num_ce: int = 1, seed: int = 0,
                 device: str = "/dev/xdma0", channel: int = 0,
                 firmware: Path | None = None) -> None:
        from nandlab.transport.sim import SimTransport

        self.sequencer = SimTransport(profile, seed=seed, dies=num_ce, persist=False)
        self.device = device
        self.channel = channel
        self.faults = XdmaFaults()
        self.regs: dict[int, int] = {r.offset: 0 for r in REG.values()}
        self.regs[REG["ID"].offset] = ID_MAGIC
        version = REG["VERSION"]
        v = version.field("REGS_MAJOR").put(0, version.field("REGS_MAJOR").reset)
        self.regs[version.offset] = version.field("OPS_SPEC").put(v, SPEC_VERSION)
        config = REG["CONFIG"]
        c = config.field("NUM_CE").put(0, num_ce)
        self.regs[config.offset] = config.field("CLK_PERIOD_PS").put(c, self.CLK_PERIOD_PS)
        self._packets: list[bytes] = []
        self._fds: dict[int, str] = {}
        self.programs = 0
        self.stream_cpu = False
        self.cpu = NativeFirmware(firmware, _CpuStream(self)) if firmware is not None else None

    def _kind(self, path: str) -> str:
        if not path.startswith(self.device + "_"):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
        suffix = path[len(self.device) + 1:]
        known = {"user", f"h2c_{self.channel}", f"c2h_{self.channel}"}
        if suffix not in known or suffix in self.faults.missing:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
        return suffix.split("_")[0]

    # the DeviceFiles calls

    def open(self, path: str, write: bool) -> int:
        kind = self._kind(path)
        if self.faults.permission_denied:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
        fd = 100 + len(self._fds)
        self._fds[fd] = kind
        return fd

    def close(self, fd: int) -> None:
        self._fds.pop(fd, None)

    def pwrite(self, fd: int, data: bytes, offset: int) -> int:
        kind = self._fds[fd]
        if kind == "user":
            self._write_reg(offset, int.from_bytes(bytes(data[:4]), "little"))
            return 4
        if kind != "h2c":
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        if self.stream_cpu:
            # the sequencer takes the CPU's stream: H2C is never drained, the driver times out
            raise OSError(ETIME, os.strerror(ETIME))
        self._packets.append(self._run(bytes(data)))
        return len(data)

    def pread(self, fd: int, n: int, offset: int) -> bytes:
        kind = self._fds[fd]
        if kind == "user":
            return self._read_reg(offset).to_bytes(4, "little")[:n]
        if kind != "c2h":
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        if self.faults.c2h_errno is not None:
            code, self.faults.c2h_errno = self.faults.c2h_errno, None
            self._packets.clear()
            raise OSError(code, "Unknown error 512" if code == ERESTARTSYS else os.strerror(code))
        if not self._packets:
            raise OSError(ETIME, os.strerror(ETIME))  # the driver's c2h_timeout
        return self._packets.pop(0)[:n]

    # the design

    def _read_reg(self, offset: int) -> int:
        if self.cpu is not None:
            self.cpu.step()
            if offset in _MAILBOX:
                return self.cpu.read32(offset)
            if offset == BAR_CPU_CTRL:
                ctrl = CPU_CTRL.field("CPU_ID").put(0, CPU_CTRL.field("CPU_ID").reset)
                return CPU_CTRL.field("STREAM_CPU").put(ctrl, int(self.stream_cpu))
            if BAR_SHARED <= offset < BAR_SHARED + BAR_SHARED_SIZE:
                return self.cpu.read_words(offset - BAR_SHARED, 1)[0]
            if offset >= BAR_CSR_SIZE:
                return 0
        if offset == REG["ID"].offset and self.faults.wrong_magic:
            return 0xFFFFFFFF
        if offset == REG["RB_STATUS"].offset:
            return sum(1 << k for k, d in enumerate(self.sequencer.dies) if d.ready)
        return self.regs.get(offset & 0x7F, 0)

    def _write_reg(self, offset: int, value: int) -> None:
        if self.cpu is not None:
            if offset in _MAILBOX:
                self.cpu.write32(offset, value)
                return
            if offset == BAR_CPU_CTRL:
                self.stream_cpu = bool(CPU_CTRL.field("STREAM_CPU").get(value))
                return
            if BAR_SHARED <= offset < BAR_SHARED + BAR_SHARED_SIZE:
                self.cpu.write_words(offset - BAR_SHARED, [value])
                return
            if offset >= BAR_CSR_SIZE:
                return
        if offset == REG["CONTROL"].offset:
            control = REG["CONTROL"]
            if control.field("SOFT_RESET").get(value):
                self._packets.clear()
            if control.field("CLEAR_COUNTERS").get(value):
                for name in ("CNT_PROGRAMS", "CNT_ERRORS", "CNT_BUSY_LO", "CNT_BUSY_HI"):
                    self.regs[REG[name].offset] = 0
            self.regs[control.offset] = control.field("TIMING_OVERRIDE").put(
                0, control.field("TIMING_OVERRIDE").get(value))
            return
        if offset in (REG["RSP_LIMIT"].offset, *(REG[n].offset for n in (
                "TIMING_WRITE", "TIMING_READ", "TIMING_SETUP", "TIMING_TURN", "TIMING_CCS"))):
            self.regs[offset] = value & 0xFFFFFFFF

    def run_cpu(self, program: Program) -> Results:
        """An op program from the CPU's stream (the firmware's sequencer)."""
        if not self.stream_cpu:
            raise TransportError("the firmware sent an op program while CPU_CTRL.STREAM_CPU "
                                 "was clear: on the board it would never reach the sequencer")
        results = self.sequencer.run(program)
        self.programs += 1
        self._count(results)
        return results

    def _run(self, words: bytes) -> bytes:
        # RSP_LIMIT is applied while the program runs, as nandlab_seq does: nothing after
        # the overflowing instruction reaches the dies
        limit = self.regs[REG["RSP_LIMIT"].offset]
        stream = self.sequencer.run_encoded(words, limit_words=limit)
        results = decode_results(stream)
        self.programs += 1
        self._count(results)
        return stream

    def _count(self, results: Results) -> None:
        self.regs[REG["CNT_PROGRAMS"].offset] = self.programs & 0xFFFFFFFF
        errors = self.regs[REG["CNT_ERRORS"].offset] + len(results.errors)
        self.regs[REG["CNT_ERRORS"].offset] = errors & 0xFFFFFFFF
        cycles = (self.regs[REG["CNT_BUSY_HI"].offset] << 32 | self.regs[REG["CNT_BUSY_LO"].offset])
        cycles += sum(results.busy_ns) * 1000 // self.CLK_PERIOD_PS
        self.regs[REG["CNT_BUSY_LO"].offset] = cycles & 0xFFFFFFFF
        self.regs[REG["CNT_BUSY_HI"].offset] = (cycles >> 32) & 0xFFFFFFFF
        status = REG["STATUS"]
        s = status.field("TIMING_MODE").put(0, self.sequencer.expected_timing_mode)
        if results.errors:
            s = status.field("LAST_ERROR").put(s, int(results.errors[-1].code))
        self.regs[status.offset] = s


class _CpuStream(Transport):
    """The sequencer as the firmware's bridge sees it: the emulation's CPU stream."""

    def __init__(self, emulation: XdmaEmulation) -> None:
        self.emulation = emulation
        self.url = f"xdma-emulation:{emulation.device}#cpu-stream"

    @property
    def targets(self) -> int:
        return self.emulation.sequencer.targets

    @property
    def profile(self) -> Profile | None:
        return self.emulation.sequencer.profile

    def run(self, program: Program) -> Results:
        return self.emulation.run_cpu(program)


def emulated_bench(board: Board | str | Path, profile: str = "mlc-64l", *, num_ce: int = 1,
                   seed: int = 0, firmware: Path | None = None
                   ) -> tuple[XdmaTransport, XdmaEmulation]:
    """An xdma:// bench on the emulated FPGA design (tests, demos); `firmware`: the
    bridge library, for the design with the board CPU."""
    board_model = board if isinstance(board, Board) else load_board(board)
    emulation = XdmaEmulation(profile, num_ce=num_ce, seed=seed, firmware=firmware)
    url = f"xdma:///dev/xdma0?board={board_model.name}&profile={profile}"
    bench = XdmaTransport(parse_xdma_url(url), url, files=emulation, board=board_model,
                          poll_s=0.0)
    return bench, emulation

