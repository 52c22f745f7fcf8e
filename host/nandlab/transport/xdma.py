"""`xdma://` transport: the FPGA ONFI controller over PCIe through the Xilinx XDMA driver.

    xdma:///dev/xdma0?board=kc705-onfi&profile=mlc-64l[&channel=0][&timeout_s=10]

The FPGA design (hw/rtl/nandlab_top_xdma.sv) runs the XDMA IP in AXI-Stream
mode: an op program goes down H2C stream `channel` as one packet (one
`pwrite` of its words; in streaming mode the file offset is not an address
and is 0), the result stream comes back on C2H stream `channel` as one
packet ending with the END record (one `pread`); the CSR block (register map
from hw/regs/nandlab_regs.rdl, `nandlab.regs`) sits at offset 0 of the user
BAR (`<dev>_user`, 4-byte `pread` / `pwrite` at the register offset).
Completion is the C2H packet's end: the design raises no user interrupt, so
the events files (`<dev>_events_N`) are not used.

Before a program the transport checks the sequencer is idle
(STATUS.RUNNING) and sets RSP_LIMIT to the read buffer, so a result stream
can never be longer than the `pread` that receives it (the design stops with
ERROR OVERFLOW instead). On open it checks the ID magic, the register map's
major version and the op program spec version.

Timeouts are the driver's: a C2H read waits at most the xdma module's
`c2h_timeout` (10 s by default; `timeout_s=` must match the module
parameter). A program whose WAIT_RDY timeouts add up to more is refused
before it runs. The driver's known failure modes get messages that say
what to do: device files missing (driver not loaded, FPGA not enumerated),
no permission, transfer timeouts (ETIME / ETIMEDOUT), "Unknown error 512"
(ERESTARTSYS leaking from an interrupted streaming C2H read).

A bitstream with the board CPU (the KCU105 build; CPU_CTRL.CPU_ID in the
user BAR, hw/regs/nandlab_cpu_bar.rdl) gives the bench the `firmware` role:
the firmware's loops through the mailbox registers and the shared RAM window,
the sequencer's streams handed to the CPU for each loop
(`nandlab.transport.xdma_cpu`). Without it the role is absent and the campaign
steps drive their loops from the host.

Hardware-free testing swaps only `DeviceFiles` (open, pread, pwrite, close)
for `nandlab.transport.xdma_emulation.XdmaEmulation`: the design's register
map and a sequencer (the op program semantics of the sim transport) with
virtual dies behind it.
"""

from __future__ import annotations

import errno
import math
import os
from dataclasses import dataclass
from typing import Any, Protocol

from nandlab.boards import Board, FpgaController, load_board
from nandlab.errors import BenchURLError, TransportError, UsageError
from nandlab.firmware._cpu_regs import BAR_CPU_CTRL
from nandlab.firmware.mailbox import Mailbox
from nandlab.ops import (
    Dout,
    DoutCompare,
    Program,
    Results,
    WaitRdy,
    decode_results,
)
from nandlab.ops._generated import SPEC_VERSION
from nandlab.profiles import Profile, load_profile
from nandlab.regs import ID_MAGIC, REG
from nandlab.transport.base import Transport, board_record
from nandlab.transport.roles import Roles
from nandlab.transport.url import query_options, split_url
from nandlab.transport.xdma_cpu import (
    POLL_S,
    BarPort,
    StreamHandover,
    board_mailbox,
    has_cpu,
)

XDMA_FORM = ("xdma:///dev/xdmaN?board=NAME|PATH&profile=NAME|PATH[&channel=N][&timeout_s=S] "
             "(e.g. xdma:///dev/xdma0?board=kc705-onfi&profile=mlc-64l)")
DRIVER_TIMEOUT_S = 10.0  # xdma module parameters h2c_timeout / c2h_timeout default
ERESTARTSYS = 512
ETIME = 62
BENCH_CAPABILITIES = frozenset({"power", "din_pattern", "dout_compare", "cache_read",
                                "cache_program", "multiplane", "copyback"})
VENDOR_CAPABILITIES = ("slc_mode", "soft_bit_read", "search", "coxpm")
"""Vendor commands the design drives when the profile declares them (plain op programs,
the CoX-PM and Search-in-Memory commands included)."""
LACKS = {
    "fpga_coxpm": "the XDMA bitstream has no CoX-PM kernel on its read stream (hw/hls/coxpm "
    "is C-simulated, not synthesised into it); use rtl://PROFILE, whose controller runs the "
    "kernel, or a part with the CoX-PM commands (vendor.coxpm)",
}
_KEYS = frozenset({"board", "profile", "channel", "timeout_s"})


@dataclass(frozen=True)
class XdmaOptions:
    """device: the driver's device prefix (/dev/xdma0); channel: H2C / C2H stream number."""

    device: str
    board: str
    profile: str | None = None
    channel: int = 0
    timeout_s: float = DRIVER_TIMEOUT_S

    def file(self, kind: str) -> str:
        """Path of one device file: 'user', 'h2c', 'c2h'."""
        return f"{self.device}_{kind}" if kind == "user" else f"{self.device}_{kind}_{self.channel}"


def parse_xdma_url(url: str) -> XdmaOptions:
    """Parse an `xdma://` URL; BenchURLError names the fault and the form."""
    parts = split_url(url, XDMA_FORM)
    if parts.scheme.lower() != "xdma":
        raise BenchURLError(f"'{url}' is not an xdma:// URL: use {XDMA_FORM}")
    if parts.netloc or not parts.path.startswith("/dev/xdma"):
        raise BenchURLError(f"bench URL '{url}' names no /dev/xdmaN device; form: {XDMA_FORM}")
    query = query_options(url, parts.query, _KEYS, XDMA_FORM)
    if not query.get("board"):
        raise BenchURLError(f"bench URL '{url}' names no board (board=...); form: {XDMA_FORM}")
    channel = query.get("channel", "0")
    if not channel.isdigit() or int(channel) > 3:
        raise BenchURLError(f"bench URL '{url}': channel='{channel}' must be 0..3")
    try:
        timeout = float(query.get("timeout_s", DRIVER_TIMEOUT_S))
    except ValueError:
        timeout = -1.0
    if not 0 < timeout <= 3600:
        raise BenchURLError(f"bench URL '{url}': timeout_s must be seconds in (0, 3600]")
    return XdmaOptions(parts.path.rstrip("/"), query["board"], query.get("profile") or None,
                       int(channel), timeout)


class SequencerPower:
    """The power monitor of an FPGA bench: the board's monitor, sampled by the sequencer."""

    def __init__(self, board: Board) -> None:
        self._board = board

    def describe(self) -> dict[str, Any]:
        monitor = self._board.power_monitor
        return {
            "kind": monitor.kind if monitor is not None else "fpga",
            "sampled_by": "FPGA sequencer POWER windows",
        }


class DeviceFiles(Protocol):
    """The few system calls the transport makes on the driver's device files."""

    def open(self, path: str, write: bool) -> int: ...

    def pread(self, fd: int, n: int, offset: int) -> bytes: ...

    def pwrite(self, fd: int, data: bytes, offset: int) -> int: ...

    def close(self, fd: int) -> None: ...


class OsDeviceFiles:
    """The real device files (os.open / os.pread / os.pwrite / os.close)."""

    def open(self, path: str, write: bool) -> int:
        return os.open(path, os.O_RDWR if write else os.O_RDONLY)

    def pread(self, fd: int, n: int, offset: int) -> bytes:
        return os.pread(fd, n, offset)

    def pwrite(self, fd: int, data: bytes, offset: int) -> int:
        return os.pwrite(fd, data, offset)

    def close(self, fd: int) -> None:
        os.close(fd)


def driver_error(what: str, path: str, exc: OSError, timeout_s: float) -> TransportError:
    """A TransportError for an XDMA driver failure that says what to do."""
    code = exc.errno
    if code == errno.ENOENT:
        hint = ("the device file is missing: is the xdma driver loaded (lsmod | grep xdma; "
                "insmod xdma.ko), the FPGA programmed and enumerated (lspci -d 10ee:), and the "
                "channel in the URL built into the bitstream?")
    elif code in (errno.EACCES, errno.EPERM):
        hint = ('no permission: add a udev rule, e.g. KERNEL=="xdma*", MODE="0666", or run in '
                "a group that owns the device files")
    elif code in (ETIME, errno.ETIMEDOUT):
        hint = (f"the DMA transfer timed out after the driver's timeout ({timeout_s:g} s, module "
                "parameters h2c_timeout / c2h_timeout): the sequencer may be stuck on a chip "
                "that never becomes ready; the transport resets it (CONTROL.SOFT_RESET)")
    elif code == ERESTARTSYS:
        hint = ("'Unknown error 512' (ERESTARTSYS) from the driver: a known XDMA driver fault "
                "when a streaming C2H read is interrupted or times out; the result packet is "
                "lost: the sequencer was reset, rerun the program; update the driver "
                "(Xilinx dma_ip_drivers) if it persists")
    else:
        hint = "see dmesg for xdma messages"
    return TransportError(f"XDMA {what} on {path} failed: [Errno {code}] "
                          f"{exc.strerror or os.strerror(code or 0)}; {hint}")


def result_bound_words(program: Program) -> int:
    """An upper bound of the result words a program produces (POWER samples excluded)."""
    words = 16
    for ins in program:
        words += 4
        if isinstance(ins, Dout):
            words += math.ceil(ins.n / 4)
        elif isinstance(ins, DoutCompare):
            words += 2 * math.ceil(ins.n / ins.chunk)
    return words


class XdmaTransport(Transport):
    """The FPGA controller behind the XDMA driver's device files.

    Args:
        options: the parsed URL.
        url: the URL as given.
        files: the device-file layer (OsDeviceFiles; XdmaEmulation in tests).
        board, profile: override what the URL names.
        power_samples: room for POWER samples per program (result words).
        poll_s: the mailbox's sleep between two polls of the board CPU's answer.
    """

    board: Board  # the URL always names one
    bench_capabilities = BENCH_CAPABILITIES
    vendor_capabilities = VENDOR_CAPABILITIES
    lacks = LACKS

    def __init__(self, options: XdmaOptions, url: str, *, files: DeviceFiles | None = None,
                 board: Board | None = None, profile: Profile | None = None,
                 power_samples: int = 65536, poll_s: float = POLL_S) -> None:
        self.url = url
        self.options = options
        self.board = board if board is not None else load_board(options.board)
        if not isinstance(self.board.controller, FpgaController):
            raise BenchURLError(f"bench URL '{url}': board '{self.board.name}' has a "
                                f"{self.board.controller.kind} controller, not an FPGA")
        if profile is None and options.profile is not None:
            profile = load_profile(options.profile)
        self._profile = profile
        self.files: DeviceFiles = files if files is not None else OsDeviceFiles()
        self.power_samples = power_samples
        self._fds: dict[str, int] = {}
        self._closed = False
        try:
            for kind in ("user", "h2c", "c2h"):
                path = options.file(kind)
                try:
                    self._fds[kind] = self.files.open(path, write=kind != "c2h")
                except OSError as exc:
                    raise driver_error("open", path, exc, options.timeout_s) from None
            self._check_bitstream()
            self.cpu = has_cpu(self.read32(BAR_CPU_CTRL, "CPU_CTRL"))
            """Whether the bitstream has the board CPU (and so the `firmware` role)."""
            firmware = None
            self.mailbox: Mailbox | None = None
            """The board CPU's mailbox (None without the CPU)."""
            if self.cpu:
                port = BarPort(self.read32, self.write32)
                self.mailbox = board_mailbox(port, poll_s)
                firmware = StreamHandover(self.mailbox, port, self._idle)
            self._roles = Roles(power=SequencerPower(self.board), firmware=firmware)
        except BaseException:
            self.close()
            raise

    @classmethod
    def from_url(cls, url: str, **kwargs: object) -> XdmaTransport:
        return cls(parse_xdma_url(url), url, **kwargs)  # type: ignore[arg-type]

    # ------------------------------------------------------------ registers

    def read32(self, offset: int, what: str = "") -> int:
        """The 32-bit word at byte `offset` of the user BAR (`what` names it in errors)."""
        path = self.options.file("user")
        what = what or f"0x{offset:04X}"
        try:
            data = self.files.pread(self._fds["user"], 4, offset)
        except OSError as exc:
            raise driver_error(f"register read {what}", path, exc, self.options.timeout_s) from None
        if len(data) != 4:
            raise TransportError(f"XDMA register read {what} on {path} returned {len(data)} bytes")
        return int.from_bytes(data, "little")

    def write32(self, offset: int, value: int, what: str = "") -> None:
        """Write the 32-bit word at byte `offset` of the user BAR."""
        path = self.options.file("user")
        try:
            self.files.pwrite(self._fds["user"], value.to_bytes(4, "little"), offset)
        except OSError as exc:
            raise driver_error(f"register write {what or f'0x{offset:04X}'}", path, exc,
                               self.options.timeout_s) from None

    def read_reg(self, name: str) -> int:
        """A CSR by name (nandlab.regs), through the user BAR."""
        return self.read32(REG[name].offset, name)

    def write_reg(self, name: str, value: int) -> None:
        self.write32(REG[name].offset, value, name)

    def field(self, reg: str, name: str) -> int:
        return REG[reg].field(name).get(self.read_reg(reg))

    def _check_bitstream(self) -> None:
        magic = self.read_reg("ID")
        if magic != ID_MAGIC:
            raise TransportError(
                f"{self.url}: the user BAR does not hold the nandlab CSR block (ID = "
                f"0x{magic:08X}, expected 0x{ID_MAGIC:08X}): wrong bitstream or BAR")
        version = self.read_reg("VERSION")
        major = REG["VERSION"].field("REGS_MAJOR")
        if major.get(version) != major.reset:
            raise TransportError(
                f"{self.url}: register map version {major.get(version)}, this host speaks "
                f"{major.reset}: update the bitstream or nandlab")
        spec = REG["VERSION"].field("OPS_SPEC").get(version)
        if spec != SPEC_VERSION:
            raise TransportError(
                f"{self.url}: the sequencer implements op program spec {spec}, this host "
                f"speaks {SPEC_VERSION}: update the bitstream or nandlab")

    # ------------------------------------------------------------ interface

    @property
    def targets(self) -> int:
        return self.field("CONFIG", "NUM_CE")

    @property
    def profile(self) -> Profile | None:
        return self._profile

    @property
    def busy_source(self) -> str:
        return "stream:sequencer WAIT_RDY counter (FPGA clock resolution)"

    @property
    def roles(self) -> Roles:
        return self._roles

    def describe(self) -> dict[str, Any]:
        version = self.read_reg("VERSION")
        clock = self.field("CONFIG", "CLK_PERIOD_PS")
        cpu: dict[str, Any] = {"present": self.cpu}
        if self.mailbox is not None:
            cpu["firmware"] = self.mailbox.version()
        return {
            "board": board_record(self.board, self.options.board),
            "device": self.options.device,
            "channel": self.options.channel,
            "bitstream": {
                "id": f"0x{self.read_reg('ID'):08X}",
                "version": f"0x{version:08X}",
                "regs": f"{REG['VERSION'].field('REGS_MAJOR').get(version)}."
                f"{REG['VERSION'].field('REGS_MINOR').get(version)}",
                "ops_spec": REG["VERSION"].field("OPS_SPEC").get(version),
                "num_ce": self.targets,
                "clk_period_ps": clock,
                "cpu": cpu,
            },
        }

    def run(self, program: Program) -> Results:
        if self._closed:
            raise TransportError(f"bench {self.url} is closed")
        waits_s = sum(i.timeout_ns for i in program if isinstance(i, WaitRdy)) / 1e9
        if waits_s > self.options.timeout_s:
            raise UsageError(
                f"the program may wait {waits_s:g} s for R/B#, longer than the XDMA driver's "
                f"c2h_timeout ({self.options.timeout_s:g} s): split it, or raise the module "
                "parameter (modprobe xdma c2h_timeout=N) and timeout_s= in the URL")
        words = result_bound_words(program) + self.power_samples
        return decode_results(self.run_encoded(program.encode(), words))

    def run_encoded(self, encoded: bytes, limit_words: int = 4096) -> bytes:
        """Send encoded program words as they are -> result words.

        Malformed programs too: the design answers them with an ERROR record
        (BAD_OPCODE, TRUNCATED, BAD_ARG) and is ready for the next program.
        `limit_words` is the RSP_LIMIT of this program and the size of the
        C2H read; a longer result stream ends with ERROR OVERFLOW.
        """
        if self._closed:
            raise TransportError(f"bench {self.url} is closed")
        self._idle()
        words = limit_words
        self.write_reg("RSP_LIMIT", words)
        h2c, c2h = self.options.file("h2c"), self.options.file("c2h")
        try:
            sent = self.files.pwrite(self._fds["h2c"], encoded, 0)
        except OSError as exc:
            self._soft_reset()
            raise driver_error("H2C write", h2c, exc, self.options.timeout_s) from None
        if sent != len(encoded):
            self._soft_reset()
            raise TransportError(f"XDMA H2C write on {h2c} sent {sent} of {len(encoded)} bytes")
        try:
            data = self.files.pread(self._fds["c2h"], 4 * words, 0)
        except OSError as exc:
            self._soft_reset()
            raise driver_error("C2H read", c2h, exc, self.options.timeout_s) from None
        try:
            decode_results(bytes(data))
        except Exception as exc:  # noqa: BLE001 - OpProgramError and truncation
            self._soft_reset()
            raise TransportError(f"XDMA C2H read on {c2h}: the result stream is malformed "
                                 f"({len(data)} bytes): {exc}") from None
        return bytes(data)

    def _idle(self) -> None:
        """No program left running: a sequencer still RUNNING is reset."""
        if self.field("STATUS", "RUNNING"):
            self._soft_reset()

    def _soft_reset(self) -> None:
        reset = REG["CONTROL"].field("SOFT_RESET")
        self.write_reg("CONTROL", reset.put(0, 1))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for fd in self._fds.values():
            try:
                self.files.close(fd)
            except OSError:
                continue
        self._fds.clear()
