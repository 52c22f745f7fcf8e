"""A virtual FT2232H: the vendor requests, FIFOs and modes pyftdi drives.

Two channels (interface 1 = A, 2 = B), each with bulk endpoints (IN 81h /
83h, OUT 02h / 04h, 512-byte packets), a 4 KiB TX and a 4 KiB RX FIFO, a
latency timer and a bit mode (SET_BITMODE). What each mode does:

- MCU host bus emulation: OUT bytes go to the MPSSE command processor
  (`McuEngine`) which drives the socket; its replies fill the RX FIFO. When
  the RX FIFO is full the processor stalls; when the TX FIFO then fills too,
  a bulk OUT transfer times out (a host that writes too much before reading
  deadlocks, as on the real chip).
- Asynchronous bit-bang: each OUT byte drives the channel's output pins (the
  direction mask of SET_BITMODE) for one bit-bang period; READ_PINS (0Ch)
  answers the pin levels at once.
- MPSSE serial mode: the whole AN_108 command set (`MpsseEngine`) on the
  channel's pins; on a channel other than the host bus one, ADBUS0..2 carry
  the board's I2C bus (`I2cBus`) whose slaves are `i2c_slaves` (address ->
  register device, e.g. a VirtualIna226 on the power-monitor channel B).
- UART (reset) mode: OUT bytes are accepted and dropped.

Every bulk IN answer carries the two modem-status bytes at the start of each
512-byte packet; an empty FIFO answers the status bytes alone after the
latency timer. USB time: each transfer lets 125 µs of bus time pass.

Faults for tests: `unplug()` (every later call fails with ENODEV, like a
cable pulled), `unplug_after_transfers` (pull it after that many bulk
transfers), `permission_denied` (opening fails with EACCES), `kernel_driver`
(ftdi_sio bound to the interfaces; `detach_denied` makes detaching fail).
"""

from __future__ import annotations

import errno
from dataclasses import dataclass, field
from typing import Any

from nandlab.boards.model import Board, FtdiController
from nandlab.vchip.die import VirtualDie
from nandlab.vusb.mcu import McuEngine
from nandlab.vusb.mpsse import MpsseEngine
from nandlab.vusb.mpsse_i2c import I2cBus
from nandlab.vusb.nand_bus import NandBus

FTDI_VID = 0x0403
FT2232H_PID = 0x6010
FT2232H_BCD = 0x0700
PACKET = 512
FIFO_BYTES = 4096
MODEM_STATUS = bytes((0x32, 0x60))
USB_TURNAROUND_PS = 125_000_000
BITBANG_PERIOD_PS = 1_000_000

# FTDI vendor requests (bRequest)
REQ_RESET, REQ_SET_MODEM_CTRL, REQ_SET_FLOW_CTRL, REQ_SET_BAUDRATE = 0x00, 0x01, 0x02, 0x03
REQ_SET_DATA, REQ_POLL_MODEM_STATUS, REQ_SET_EVENT_CHAR, REQ_SET_ERROR_CHAR = 0x04, 0x05, 0x06, 0x07
REQ_SET_LATENCY, REQ_GET_LATENCY, REQ_SET_BITMODE, REQ_READ_PINS = 0x09, 0x0A, 0x0B, 0x0C
REQ_READ_EEPROM = 0x90
RESET_SIO, PURGE_RX, PURGE_TX = 0, 1, 2
MODE_RESET, MODE_BITBANG, MODE_MPSSE, MODE_MCU = 0x00, 0x01, 0x02, 0x08


class UsbFault(Exception):
    """A USB-level failure, raised as pyusb's USBError by the backend."""

    def __init__(self, err: int, text: str) -> None:
        super().__init__(text)
        self.errno = err
        self.text = text


@dataclass
class Channel:
    """One FT2232H channel's state."""

    index: int  # 1 = A, 2 = B
    mode: int = MODE_RESET
    direction: int = 0
    latency_ms: int = 16
    rx: bytearray = field(default_factory=bytearray)
    pins_out: int = 0xFF
    mpsse: MpsseEngine | None = None

    @property
    def ep_in(self) -> int:
        return 0x81 + 2 * (self.index - 1)

    @property
    def ep_out(self) -> int:
        return 0x02 + 2 * (self.index - 1)


class VirtualFt2232h:
    """An FT2232H mini-module on a socket board with a virtual die in the socket.

    Args:
        board: the board file; its controller section says how the bus is wired.
        die: the virtual die in the socket.
        serial: the USB serial number string.
        record_edges: keep every pin edge (`bus.edges`), for tests.
        stuck_busy: board fault: R/B# never returns high.
    """

    def __init__(self, board: Board, die: VirtualDie, *, serial: str = "NLV00001",
                 bus_number: int = 1, address: int = 7, record_edges: bool = False,
                 stuck_busy: bool = False) -> None:
        if not isinstance(board.controller, FtdiController):
            raise ValueError(f"board {board.name} is not an FT2232H board")
        self.board = board
        self.controller: FtdiController = board.controller
        self.serial = serial
        self.bus_number = bus_number
        self.address = address
        self.bus = NandBus(die, record=record_edges, stuck_busy=stuck_busy)
        self.engine = McuEngine(self.bus, self.controller.mcu,
                                wp_on_io0=self.controller.bus_mode == "mcu")
        self.channels = {1: Channel(1), 2: Channel(2)}
        self.plugged = True
        self.unplug_after_transfers: int | None = None
        self.transfers = 0
        self.permission_denied = False
        self.kernel_driver = {0: False, 1: False}
        self.detach_denied = False
        self.bulk_writes = 0
        self.bulk_reads = 0
        self.strings = {1: "FTDI", 2: "Dual RS232-HS", 3: serial}
        self.i2c_slaves: dict[int, Any] = {}

    @property
    def die(self) -> VirtualDie:
        return self.bus.die

    # ------------------------------------------------------------ faults

    def unplug(self) -> None:
        """Pull the cable: every later USB call fails with ENODEV."""
        self.plugged = False

    def check_present(self) -> None:
        if not self.plugged:
            raise UsbFault(errno.ENODEV, "No such device (it may have been disconnected)")

    def _count_transfer(self) -> None:
        self.check_present()
        self.transfers += 1
        if self.unplug_after_transfers is not None and self.transfers > self.unplug_after_transfers:
            self.unplug()
            self.check_present()

    # ------------------------------------------------------------ control

    def channel_of(self, w_index: int) -> Channel:
        ch = self.channels.get(w_index & 0xFF) or self.channels.get((w_index & 0xFF) + 1)
        if ch is None:
            raise UsbFault(errno.EPIPE, "Pipe error")
        return ch

    def vendor_out(self, request: int, value: int, index: int) -> None:
        self.check_present()
        ch = self.channel_of(index)
        if request == REQ_RESET:
            if value in (RESET_SIO, PURGE_RX):
                ch.rx.clear()
            if value in (RESET_SIO, PURGE_TX):
                if ch.index == self.controller.interface:
                    self.engine.purge()
                if ch.mpsse is not None:
                    ch.mpsse.purge()
        elif request == REQ_SET_LATENCY:
            ch.latency_ms = max(1, value & 0xFF)
        elif request == REQ_SET_BITMODE:
            ch.mode = (value >> 8) & 0xFF
            ch.direction = value & 0xFF
            if ch.index == self.controller.interface:
                self.engine.enter_mode()
            if ch.mode == MODE_BITBANG:
                self._bitbang_apply(ch, ch.pins_out)
            ch.mpsse = MpsseEngine(self._pin_target(ch)) if ch.mode == MODE_MPSSE else None

    def _pin_target(self, ch: Channel) -> I2cBus | None:
        """What the board puts on a channel's ADBUS pins in MPSSE mode."""
        return None if ch.index == self.controller.interface else I2cBus(self.i2c_slaves)

    def vendor_in(self, request: int, value: int, index: int, length: int) -> bytes:
        self.check_present()
        ch = self.channel_of(index)
        if request == REQ_GET_LATENCY:
            return bytes((ch.latency_ms,))
        if request == REQ_READ_PINS:
            self.engine.idle(USB_TURNAROUND_PS)
            return bytes((self._pins(ch),))
        if request == REQ_POLL_MODEM_STATUS:
            return MODEM_STATUS
        if request == REQ_READ_EEPROM:
            return bytes(2)[:length]
        return bytes(length)

    # ------------------------------------------------------------ bulk

    def _bulk(self, ep: int, out: bool) -> Channel:
        """The channel of endpoint `ep`, once a bulk transfer is counted and turned around."""
        self._count_transfer()
        if out:
            self.bulk_writes += 1
        else:
            self.bulk_reads += 1
        ch = next(c for c in self.channels.values() if ep == (c.ep_out if out else c.ep_in))
        self.engine.idle(USB_TURNAROUND_PS)
        return ch

    def _hosts_bus(self, ch: Channel) -> bool:
        """The channel runs the MCU host bus emulation on the controller's interface."""
        return ch.mode == MODE_MCU and ch.index == self.controller.interface

    def bulk_out(self, ep: int, data: bytes) -> int:
        ch = self._bulk(ep, out=True)
        if self._hosts_bus(ch):
            self.engine.feed(bytes(data))
            self._run_mcu(ch)
            if len(self.engine.pending) > FIFO_BYTES:
                raise UsbFault(errno.ETIMEDOUT, "Operation timed out")
        elif ch.mode == MODE_BITBANG:
            for byte in data:
                self._bitbang_apply(ch, byte)
                self.engine.idle(BITBANG_PERIOD_PS)
        elif ch.mode == MODE_MPSSE and ch.mpsse is not None:
            ch.rx += ch.mpsse.feed(bytes(data))
        return len(data)

    def bulk_in(self, ep: int, size: int) -> bytes:
        ch = self._bulk(ep, out=False)
        if self._hosts_bus(ch):
            self._run_mcu(ch)
        if not ch.rx:
            self.engine.idle(ch.latency_ms * 1_000_000_000)
            if ch.mode == MODE_MCU:
                self._run_mcu(ch)
        out = bytearray()
        while len(out) + 2 <= size:
            take = min(PACKET - 2, size - len(out) - 2, len(ch.rx))
            if take <= 0 and out:
                break
            out += MODEM_STATUS + ch.rx[:take]
            del ch.rx[:take]
            if not ch.rx:
                break
        if ch.mode == MODE_MCU:
            self._run_mcu(ch)
        return bytes(out)

    def _run_mcu(self, ch: Channel) -> None:
        room = FIFO_BYTES - len(ch.rx)
        if room > 0 and self.engine.pending:
            ch.rx += self.engine.run(room)

    # ------------------------------------------------------------ bit-bang

    def _bitbang_apply(self, ch: Channel, byte: int) -> None:
        ch.pins_out = byte
        wiring = self.controller.bitbang
        if wiring is None:
            return
        t = self.engine.now_ps
        if ch.index == wiring.data_interface:
            oe = int(ch.direction == 0xFF)
            if oe:
                self.bus.drive(t, dq_oe=1, dq=byte)
            else:
                self.bus.drive(t, dq_oe=0)
        elif ch.index == wiring.control_interface:
            p = wiring.pins
            def bit(n: int) -> int:
                return int(bool(byte & (1 << n)))
            # ordered so a latch edge (WE# rise) sees the levels set before it
            self.bus.drive(t, wp_n=bit(p.wp_n), ce_n=bit(p.ce_n), cle=bit(p.cle),
                           ale=bit(p.ale))
            self.bus.drive(t, re_n=bit(p.re_n))
            self.bus.drive(t, we_n=bit(p.we_n))

    def _pins(self, ch: Channel) -> int:
        wiring = self.controller.bitbang
        t = self.engine.now_ps
        if wiring is None:
            return ch.pins_out
        if ch.index == wiring.data_interface:
            if ch.direction == 0xFF:
                return ch.pins_out
            if self.bus.level["re_n"] == 0:
                return self.bus.sample_dq(t)
            return 0xFF
        rb_bit = 1 << wiring.pins.rb_n
        rb = self.bus.ready_at(t)
        return (ch.pins_out & ~rb_bit) | (rb_bit if rb else 0)
