"""An I2C bus on a virtual FT2232H channel's ADBUS0..2, seen pin by pin.

The board wires SCL to ADBUS0 and SDA to both ADBUS1 (the MPSSE's data out)
and ADBUS2 (its data in), with pull-ups: every line is the wired AND of what
the MPSSE drives (an input pin or a released output reads high) and what the
slaves pull low. The bus follows the I2C protocol edge by edge, whoever the
master is: START / STOP are SDA edges while SCL is high, a bit is sampled on
SCL rising, the slave changes SDA only while SCL is low, an addressed slave
ACKs on the ninth clock.

Slaves are register devices with pyftdi I2cPort-style `read_from(reg, n)` /
`write_to(reg, data)` (e.g. `VirtualIna226`): a write transaction's first
data byte is the register pointer, the rest is written to it; a read
transaction returns bytes from the pointer. An address nobody answers is
NACKed.
"""

from __future__ import annotations

from typing import Any

SCL, SDA_O, SDA_I = 0x01, 0x02, 0x04
READ_AHEAD = 4  # bytes a read transaction fetches from the register device


class I2cBus:
    """The slaves' side of the bus: feed it the MPSSE's pin levels, read back what they pull."""

    def __init__(self, slaves: dict[int, Any]) -> None:
        self.slaves = slaves
        self.scl = 1
        self.sda = 1
        self.slave_sda = 1
        self.pointer = 0
        self.transactions: list[tuple[int, str, bytes]] = []
        self._idle()

    def _idle(self) -> None:
        self.phase = "idle"  # idle, byte_in, ack_out, byte_out, ack_in, done
        self.bits = 0
        self.count = 0
        self.address: int | None = None
        self.reading = False
        self.written = bytearray()
        self.out_bytes = b""
        self.acked = False

    def pulls(self) -> int:
        """ADBUS lines the slaves pull low (0 bits), as a mask to AND with the pins."""
        return 0xFF if self.slave_sda else 0xFF & ~(SDA_O | SDA_I)

    def update(self, pins: int) -> None:
        """The MPSSE's ADBUS levels changed (undriven pins at 1): play the protocol."""
        scl = pins & SCL
        sda = int(bool(pins & SDA_O) and bool(pins & SDA_I) and self.slave_sda)
        was_scl, was_sda = self.scl, self.sda
        self.scl, self.sda = scl, sda
        if scl and was_scl:
            if was_sda and not sda:
                self._start()
            elif sda and not was_sda:
                self._stop()
        elif scl and not was_scl:
            self._rising(sda)
        elif was_scl and not scl:
            self._falling()

    # ------------------------------------------------------------ protocol

    def _start(self) -> None:
        self._finish()
        self._idle()
        self.slave_sda = 1
        self.phase = "byte_in"

    def _stop(self) -> None:
        self._finish()
        self._idle()
        self.slave_sda = 1

    def _rising(self, sda: int) -> None:
        if self.phase == "byte_in":
            self.bits = (self.bits << 1 | sda) & 0xFF
            self.count += 1
        elif self.phase == "ack_in":
            self.acked = not sda  # the master's ACK (0) asks for another byte

    def _falling(self) -> None:
        if self.phase == "byte_in" and self.count == 8:
            self._byte_received(self.bits)
        elif self.phase == "ack_out":
            self.slave_sda = 1
            if self.acked and self.reading:
                self._next_out_byte()
            else:
                self.phase = "byte_in" if self.acked else "done"
                self.count = 0
        elif self.phase == "byte_out":
            self.count += 1
            if self.count == 8:
                self.slave_sda = 1
                self.phase = "ack_in"
            else:
                self.slave_sda = (self.out_bytes[0] >> (7 - self.count)) & 1
        elif self.phase == "ack_in":
            self.out_bytes = self.out_bytes[1:]
            if self.acked:
                self._next_out_byte()
            else:
                self.phase = "done"

    def _byte_received(self, byte: int) -> None:
        if self.address is None:
            self.address, self.reading = byte >> 1, bool(byte & 1)
            self.acked = self.address in self.slaves
            if self.acked and self.reading:
                device = self.slaves[self.address]
                self.out_bytes = bytes(device.read_from(self.pointer, READ_AHEAD))
                self.transactions.append((self.address, "read", bytes((self.pointer,))))
        else:
            self.acked = self.address in self.slaves and not self.reading
            if self.acked:
                self.written.append(byte)
        self.phase = "ack_out"
        self.slave_sda = 0 if self.acked else 1

    def _next_out_byte(self) -> None:
        if not self.out_bytes:
            self.out_bytes = b"\xff"  # past the fetched bytes the bus floats high
        self.phase = "byte_out"
        self.count = 0
        self.slave_sda = self.out_bytes[0] >> 7

    def _finish(self) -> None:
        if self.address is None or self.address not in self.slaves:
            return
        if not self.reading and self.written:
            self.pointer = self.written[0]
            if len(self.written) > 1:
                self.slaves[self.address].write_to(self.pointer, bytes(self.written[1:]))
            self.transactions.append((self.address, "write", bytes(self.written)))
