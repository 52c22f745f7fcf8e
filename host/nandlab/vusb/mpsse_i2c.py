"""MPSSE serial engine of the virtual FT2232H, as an I2C master on ADBUS0..2.

What pyftdi's `I2cController` sends (FTDI AN_108 opcodes): SET_BITS_LOW 80h
(SCL = bit 0, SDA out = bit 1, SDA in = bit 2: START / STOP are SDA edges
while SCL is high), WRITE_BYTES_NVE_MSB 11h (a byte to the bus),
READ_BITS_PVE_MSB 22h (the slave's ACK bit), READ_BYTES_PVE_MSB 20h (a
byte from the slave), WRITE_BITS_NVE_MSB 13h (the master's ACK / NACK),
GET_BITS_LOW / HIGH 81h / 83h, SEND_IMMEDIATE 87h and the clock and mode
setup commands (84h, 85h, 86h, 8Ah-8Dh, 96h, 97h), which it accepts. An
unknown opcode answers FAh + opcode.

Slaves are register devices with pyftdi I2cPort-style `read_from(reg, n)` /
`write_to(reg, data)` (e.g. `VirtualIna226`): a write transaction's first
data byte is the register pointer, the rest is written to it; a read
transaction returns bytes from the pointer. An address nobody answers is
NACKed.
"""

from __future__ import annotations

from typing import Any

SCL, SDA_O, SDA_I = 0x01, 0x02, 0x04
_ACCEPTED = {0x84: 1, 0x85: 1, 0x86: 3, 0x87: 1, 0x8A: 1, 0x8B: 1, 0x8C: 1, 0x8D: 1,
             0x96: 1, 0x97: 1, 0x82: 3, 0x80: 3, 0x81: 1, 0x83: 1, 0x13: 3, 0x22: 2}


class MpsseI2cEngine:
    """I2C transactions decoded from MPSSE commands, against register-device slaves."""

    def __init__(self, slaves: dict[int, Any]) -> None:
        self.slaves = slaves
        self.pending = bytearray()
        self.low_out = SCL | SDA_O
        self.low_dir = SCL | SDA_O
        self.high = 0
        self._reset_transaction()
        self.transactions: list[tuple[int, str, bytes]] = []

    def _reset_transaction(self) -> None:
        self.in_transaction = False
        self.address: int | None = None
        self.reading = False
        self.acked = False
        self.written = bytearray()
        self.pointer = 0
        self.read_buffer = b""

    @property
    def sda(self) -> int:
        driven = (self.low_out & SDA_O) if self.low_dir & SDA_O else SDA_O
        return 1 if driven else 0

    def feed(self, data: bytes) -> bytes:
        """Take command bytes; return the replies of every complete command."""
        self.pending += data
        out = bytearray()
        buf = self.pending
        pos = 0
        while pos < len(buf):
            op = buf[pos]
            if op in (0x11, 0x20):
                if pos + 3 > len(buf):
                    break
                n = buf[pos + 1] | buf[pos + 2] << 8
                n += 1
                if op == 0x11:
                    if pos + 3 + n > len(buf):
                        break
                    for byte in buf[pos + 3 : pos + 3 + n]:
                        self._master_byte(byte)
                    pos += 3 + n
                else:
                    out += bytes(self._slave_byte() for _ in range(n))
                    pos += 3
                continue
            size = _ACCEPTED.get(op)
            if size is None:
                out += bytes((0xFA, op))
                pos += 1
                continue
            if pos + size > len(buf):
                break
            out += self._simple(op, bytes(buf[pos + 1 : pos + size]))
            pos += size
        del buf[:pos]
        return bytes(out)

    def _simple(self, op: int, args: bytes) -> bytes:
        if op == 0x80:
            self._set_low(args[0], args[1])
        elif op == 0x82:
            self.high = args[0]
        elif op == 0x81:
            level = self.low_out & ~SDA_I
            return bytes((level | (SDA_I if self.sda else 0),))
        elif op == 0x83:
            return bytes((self.high,))
        elif op == 0x22:  # the ACK bit after a byte the master wrote
            return bytes((0 if self.acked else 1,))
        elif op == 0x13 and args[1] & 0x80:  # master NACK: the read ends
            self.read_buffer = b""
        return b""

    def _set_low(self, value: int, direction: int) -> None:
        before_sda, before_scl = self.sda, bool(self.low_out & SCL)
        self.low_out, self.low_dir = value, direction
        if before_scl and self.low_out & SCL:
            if before_sda and not self.sda:
                self._start()
            elif not before_sda and self.sda:
                self._stop()

    def _start(self) -> None:
        if self.in_transaction:
            self._finish()
        pointer = self.pointer
        self._reset_transaction()
        self.pointer = pointer
        self.in_transaction = True

    def _stop(self) -> None:
        if self.in_transaction:
            self._finish()
        self._reset_transaction()

    def _finish(self) -> None:
        if self.address is None or self.address not in self.slaves:
            return
        if not self.reading and self.written:
            self.pointer = self.written[0]
            if len(self.written) > 1:
                self.slaves[self.address].write_to(self.pointer, bytes(self.written[1:]))
            self.transactions.append((self.address, "write", bytes(self.written)))

    def _master_byte(self, byte: int) -> None:
        if self.address is None:
            self.address, self.reading = byte >> 1, bool(byte & 1)
            self.acked = self.address in self.slaves
            if self.acked and self.reading:
                self.read_buffer = bytes(self.slaves[self.address].read_from(self.pointer, 4))
                self.transactions.append((self.address, "read", bytes((self.pointer,))))
            return
        self.acked = self.address in self.slaves and not self.reading
        if self.acked:
            self.written.append(byte)

    def _slave_byte(self) -> int:
        if not self.read_buffer:
            return 0xFF
        byte, self.read_buffer = self.read_buffer[0], self.read_buffer[1:]
        return byte
