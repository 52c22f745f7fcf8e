"""`ftdi://` transport: op programs on a NAND socket driven by an FT2232H through pyftdi.

The board file decides the bus mode: MCU host bus emulation (the fast path:
a page operation is one USB round trip per 3.5 KiB of reply, R/B# waited for
inside the command stream) or asynchronous bit-bang (the fallback). See
`mcu_stream`, `mcu_runner` and `bitbang` for how instructions become USB
traffic.

What this bench does on the host rather than on the board: DIN_PAT patterns
are generated and DOUT_CMP bytes compared on the host (the data crosses USB
either way), MARK times and END's elapsed time are host clock times (USB
latency resolution), POWER windows come from the attached power monitor.
Busy times come from the stream (in-stream R/B# samples; `busy_source` says
so) unless the board declares an external instrument and one is attached.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any, Protocol

from pyftdi.ftdi import Ftdi

from nandlab.boards import Board, FtdiController, load_board
from nandlab.errors import BenchURLError, TransportError
from nandlab.ops import (
    BusyRecord,
    EndRecord,
    ErrorCode,
    ErrorRecord,
    Instruction,
    Power,
    PowerRecord,
    Program,
    Record,
    Results,
)
from nandlab.profiles import Profile, load_profile
from nandlab.transport.base import Transport, board_record
from nandlab.transport.ftdi.bitbang import BitbangRunner
from nandlab.transport.ftdi.mcu_runner import LinkStats, McuRunner, usb_errno
from nandlab.transport.ftdi.mcu_stream import CLK_DIV5_OFF, McuCompiler, Step
from nandlab.transport.ftdi.options import FtdiOptions, parse_ftdi_url
from nandlab.transport.roles import PowerMonitor, Roles, ThermalController

BENCH_CAPABILITIES = frozenset(
    {"din_pattern", "dout_compare", "cache_read", "cache_program", "multiplane", "copyback"}
)
VENDOR_CAPABILITIES = ("slc_mode", "soft_bit_read", "search", "coxpm")
"""The vendor commands the bench drives when the profile declares them: all are plain
CMD / ADDR / DIN / DOUT / WAIT_RDY programs (the CoX-PM and Search-in-Memory commands
too), which the MCU host bus runs like any other."""
LACKS = {
    "fpga_coxpm": "an FT2232H has no logic on its read stream to decode and match pages; "
    "use a part with the CoX-PM commands (vendor.coxpm) here, or rtl://PROFILE, whose "
    "controller runs the CoX-PM kernel",
}
EACCES = 13


class PowerWindow(PowerMonitor, Protocol):
    """A power monitor as the transport uses it (see nandlab.instruments)."""

    def start(self) -> None: ...

    def stop(self) -> tuple[int, list[int]]:
        """(sample period ns, supply current samples µA) since start()."""
        ...


class BusyTimer(Protocol):
    """An external instrument timing R/B# low (declared by the board file)."""

    name: str

    def last_busy_ns(self) -> int: ...


def _usb_serial(ftdi: Ftdi) -> str | None:
    """The FTDI chip's USB serial number (None when the device does not give it)."""
    try:
        return str(ftdi.usb_dev.serial_number)
    except Exception:  # noqa: BLE001 - pyusb / libusb errors, a missing string descriptor
        return None


def open_error(device_url: str, exc: BaseException) -> TransportError:
    """A TransportError for a failed open that says what to do."""
    code = usb_errno(exc)
    hint = "run `nandlab doctor --url <bench URL>` to see what stops the bench"
    if code == EACCES or "permission" in str(exc).lower():
        hint = ("no permission on the USB device: install the udev rule "
                "(`nandlab doctor` prints it) and replug")
    text = str(exc) or type(exc).__name__
    return TransportError(f"cannot open FT2232H {device_url}: {text}; {hint}")


class FtdiTransport(Transport):
    """A socket board behind an FT2232H.

    Args:
        options: the parsed URL.
        url: the URL as given (reported in errors and datasets).
        board, profile: override what the URL names (tests, scripts).
        power: a power monitor for POWER windows (e.g. nandlab.instruments.Ina226Monitor).
        temperature: the temperature controller the bench declares as its thermal role.
        busy_timer: the external busy instrument a board with busy_timing.source
            = instrument needs.
    """

    board: Board  # the URL always names one
    bench_capabilities = BENCH_CAPABILITIES
    vendor_capabilities = VENDOR_CAPABILITIES
    lacks = LACKS

    def __init__(self, options: FtdiOptions, url: str, *, board: Board | None = None,
                 profile: Profile | None = None, power: PowerWindow | None = None,
                 temperature: ThermalController | None = None,
                 busy_timer: BusyTimer | None = None) -> None:
        self.url = url
        self.options = options
        self.board = board if board is not None else load_board(options.board)
        ctrl = self.board.controller
        if not isinstance(ctrl, FtdiController):
            raise BenchURLError(
                f"bench URL '{url}': board '{self.board.name}' has a {ctrl.kind} controller, "
                f"not an FT2232H; use its own URL scheme"
            )
        self.ctrl: FtdiController = ctrl
        if ctrl.bus_mode == "mcu" and options.interface != ctrl.interface:
            raise BenchURLError(
                f"bench URL '{url}': board '{self.board.name}' runs its NAND bus on interface "
                f"/{ctrl.interface}, the URL names /{options.interface}"
            )
        if profile is None and options.profile is not None:
            profile = load_profile(options.profile)
        self._profile = profile
        self.power = power
        self.temperature = temperature
        self.busy_timer = busy_timer
        if self.board.busy_timing.source == "instrument" and busy_timer is None:
            raise TransportError(
                f"{url}: board '{self.board.name}' takes busy times from the instrument "
                f"'{self.board.busy_timing.instrument}', which is not attached"
            )
        self._closed = False
        self._ftdis: list[Ftdi] = []
        self._compiler = McuCompiler(ctrl, profile, self.board.targets,
                                     sample_busy=options.busy == "sample")
        self._mcu: McuRunner | None = None
        self._bitbang: BitbangRunner | None = None
        self._open()

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> FtdiTransport:
        """Open the bench a URL names; instruments=1 also opens the board's instruments."""
        options = parse_ftdi_url(url)
        if options.instruments and "power" not in kwargs and "temperature" not in kwargs:
            from nandlab.instruments import open_instruments

            board = kwargs.setdefault("board", load_board(options.board))
            kwargs["power"], kwargs["temperature"] = open_instruments(board)
        return cls(options, url, **kwargs)

    # ------------------------------------------------------------ opening

    def _open(self) -> None:
        ctrl, opts = self.ctrl, self.options
        try:
            if ctrl.bus_mode == "mcu":
                ftdi = Ftdi()
                self._ftdis.append(ftdi)
                ftdi.open_from_url(opts.device_url)
                self._enter_mcu(ftdi)
                self._mcu = McuRunner(ftdi, ctrl, self.url, self._power_step,
                                      lambda: self._enter_mcu(ftdi))
            else:
                wiring = ctrl.bitbang
                assert wiring is not None
                data, control = Ftdi(), Ftdi()
                self._ftdis += [data, control]
                data.open_bitbang_from_url(opts.device_url_for(wiring.data_interface),
                                           direction=0x00, baudrate=ctrl.bitbang_baudrate)
                outputs = 0xFF & ~(1 << wiring.pins.rb_n)
                control.open_bitbang_from_url(opts.device_url_for(wiring.control_interface),
                                              direction=outputs, baudrate=ctrl.bitbang_baudrate)
                self._bitbang = BitbangRunner(data, control, wiring, self.board.targets, self.url,
                                              self._power_instruction)
                control.write_data(bytes((self._bitbang._ctl(),)))
        except Exception as exc:  # noqa: BLE001 - pyftdi / pyusb / libusb errors
            self._release()
            raise open_error(opts.device_url, exc) from None

    def _enter_mcu(self, ftdi: Ftdi) -> None:
        ftdi.set_latency_timer(1)
        ftdi.set_bitmode(0, Ftdi.BitMode.MCU)
        ftdi.purge_buffers()
        # mode entry releases I/O0 (WP#): drive it again, tWW ahead of the first command
        ftdi.write_data(bytes((CLK_DIV5_OFF,)) + self._compiler.wp_setup())

    def _release(self) -> None:
        for ftdi in self._ftdis:
            with contextlib.suppress(Exception):  # the device may be gone; closing must not fail
                ftdi.close()
        self._ftdis.clear()

    # ------------------------------------------------------------ interface

    @property
    def targets(self) -> int:
        return self.board.targets

    @property
    def profile(self) -> Profile | None:
        return self._profile

    @property
    def bus_mode(self) -> str:
        """"mcu" or "bitbang", from the board file."""
        return self.ctrl.bus_mode

    @property
    def stats(self) -> LinkStats:
        """USB round trips and bytes since the bench opened."""
        runner = self._mcu or self._bitbang
        assert runner is not None
        return runner.stats

    @property
    def busy_source(self) -> str:
        """Where BUSY records come from, for the dataset's run.json."""
        if self.busy_timer is not None:
            return f"instrument:{self.busy_timer.name}"
        if self.ctrl.bus_mode == "bitbang":
            return "stream:host-poll (R/B# polled over USB; resolution one USB round trip)"
        if self.options.busy == "wait" or self.ctrl.rb_max_samples == 0:
            return ("stream:not measured (R/B# waited on the chip with 88h alone; each busy "
                    "time is the tWB gap, a lower bound)")
        return (f"stream:in-stream R/B# samples (resolution >= {self.ctrl.rb_sample_ns:g} ns, "
                f"board-calibrated)")

    @property
    def roles(self) -> Roles:
        return Roles(power=self.power, thermal=self.temperature)

    def describe(self) -> dict[str, Any]:
        ftdi = self._ftdis[0] if self._ftdis else None
        return {
            "board": board_record(self.board, self.options.board),
            "device_url": self.options.device_url,
            "bus_mode": self.ctrl.bus_mode,
            "ftdi": None if ftdi is None else {
                "ic": ftdi.ic_name,
                "serial": _usb_serial(ftdi),
            },
        }

    def supports(self, capability: str) -> bool:
        if capability == "power":
            return self.power is not None
        return super().supports(capability)

    def run(self, program: Program) -> Results:
        if self._closed:
            raise TransportError(f"bench {self.url} is closed")
        start = time.monotonic_ns()
        instructions = list(program)
        if self._mcu is not None:
            steps = self._compiler.compile(instructions)
            records = self._mcu.run(steps, start)
        else:
            assert self._bitbang is not None
            records = self._bitbang.run(instructions, start)
        if self.busy_timer is not None:
            records = [BusyRecord(r.index, self.busy_timer.last_busy_ns())
                       if isinstance(r, BusyRecord) else r for r in records]
        results = Results(records)
        results.append(EndRecord(time.monotonic_ns() - start))
        return results

    def close(self) -> None:
        """Put the channels back in reset mode and release the USB device; idempotent."""
        if self._closed:
            return
        self._closed = True
        self._release()

    # ------------------------------------------------------------ power windows

    def _power_step(self, step: Step, t0_ns: int) -> Record | None:
        return self._power_instruction(step.ins, step.index, t0_ns)

    def _power_instruction(self, ins: Instruction, index: int, t0_ns: int) -> Record | None:
        assert isinstance(ins, Power)
        if self.power is None:
            return ErrorRecord(ErrorCode.BAD_ARG, index)
        if ins.start:
            self.power.start()
            return None
        period_ns, samples = self.power.stop()
        return PowerRecord(period_ns, samples)

