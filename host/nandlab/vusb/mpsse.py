"""MPSSE command processor of the virtual FT2232H in MPSSE mode (FTDI AN_108).

Pins (AN_108 section 2.1): ADBUS0 TCK/SK, ADBUS1 TDI/DO, ADBUS2 TDO/DI,
ADBUS3 TMS/CS, ADBUS4..7 GPIOL0..3 (GPIOL1 = ADBUS5 is what the "wait" and
"clock until" commands watch), ACBUS0..7 GPIOH0..7. A pin drives its value
only while SET BITS made it an output; an input, or an output the target
pulls low, reads as the wired AND with the board's pull-ups (a target on the
pins is an object with `update(pins)` and `pulls()`, e.g. `I2cBus`; with none
the pins float high, as the chip's internal pull-ups make them).

Commands:
- data shifting (opcode bit 7 = 0): bit 0 write on -ve edge, 1 bits (else
  bytes), 2 read on -ve edge, 3 LSB first, 4 write TDI/DO, 5 read TDO/DI,
  6 write TMS/CS. Bytes: opcode, length-1 (16 bit LE), data. Bits: opcode,
  length-1 (0..7), data. TMS (bit mode, LSB first, no TDI write): opcode,
  length-1 (0..6), data whose bit 7 holds TDI during the clocks. A bit read
  shifts into the MPSSE's shift register (MSB first: in at bit 0 shifting
  up; LSB first and TMS: in at bit 7 shifting down) and answers the register;
- 80h / 82h SET BITS LOW / HIGH (value, direction), 81h / 83h GET BITS LOW
  / HIGH (the pin levels), 84h / 85h loopback TDI->TDO on / off, 86h clock
  divisor (16 bit LE), 87h SEND IMMEDIATE, 88h / 89h wait until GPIOL1 high /
  low, 8Ah / 8Bh divide-by-5 off / on (60 or 12 MHz master clock), 8Ch / 8Dh
  3-phase clocking on / off, 8Eh clock n bits (length-1, 0..7), 8Fh clock
  n x 8 bits (length-1, 16 bit), 94h / 95h clock until GPIOL1 high / low,
  96h / 97h adaptive clocking on / off, 9Ch / 9Dh clock n x 8 bits or until
  GPIOL1 high / low;
- anything else, the MCU host bus commands 90h-93h included, and 9Eh (drive
  only zero: FT232H only per AN_108 section 7; this is an FT2232H) answers FAh
  then the opcode; the next byte is read as a new opcode, so the stream stays
  in step as silicon keeps it.

Timing: TCK = master / ((1 + divisor) x 2); fetching a command byte takes one
master clock; 3-phase clocking makes a bit 1.5 TCK periods. A wait or
"clock until" whose pin never reaches its level blocks the processor (as
silicon does, until a purge or a mode change). Adaptive clocking waits for
RTCK (GPIOL3) to follow each TCK edge: with nothing on the pins to echo it,
the first clock blocks.
"""

from __future__ import annotations

from typing import Protocol

MASTER_HZ = 60_000_000
PS_PER_S = 10**12
BAD_COMMAND = 0xFA
TCK, TDI, TDO, TMS, GPIOL1, GPIOL3 = 0x01, 0x02, 0x04, 0x08, 0x20, 0x80

SET_BITS_LOW, GET_BITS_LOW, SET_BITS_HIGH, GET_BITS_HIGH = 0x80, 0x81, 0x82, 0x83
LOOPBACK_ON, LOOPBACK_OFF, SET_DIVISOR, SEND_IMMEDIATE = 0x84, 0x85, 0x86, 0x87
WAIT_ON_HIGH, WAIT_ON_LOW, DIV5_OFF, DIV5_ON = 0x88, 0x89, 0x8A, 0x8B
THREE_PHASE_ON, THREE_PHASE_OFF, CLOCK_BITS, CLOCK_BYTES = 0x8C, 0x8D, 0x8E, 0x8F
CLOCK_UNTIL_HIGH, CLOCK_UNTIL_LOW, ADAPTIVE_ON, ADAPTIVE_OFF = 0x94, 0x95, 0x96, 0x97
CLOCK_BYTES_UNTIL_HIGH, CLOCK_BYTES_UNTIL_LOW = 0x9C, 0x9D

# total command length (opcode included) of every non-shifting command
LENGTH = {
    SET_BITS_LOW: 3, GET_BITS_LOW: 1, SET_BITS_HIGH: 3, GET_BITS_HIGH: 1,
    LOOPBACK_ON: 1, LOOPBACK_OFF: 1, SET_DIVISOR: 3, SEND_IMMEDIATE: 1,
    WAIT_ON_HIGH: 1, WAIT_ON_LOW: 1, DIV5_OFF: 1, DIV5_ON: 1,
    THREE_PHASE_ON: 1, THREE_PHASE_OFF: 1, CLOCK_BITS: 2, CLOCK_BYTES: 3,
    CLOCK_UNTIL_HIGH: 1, CLOCK_UNTIL_LOW: 1, ADAPTIVE_ON: 1, ADAPTIVE_OFF: 1,
    CLOCK_BYTES_UNTIL_HIGH: 3, CLOCK_BYTES_UNTIL_LOW: 3,
}
UNTIL_SLICE_CLOCKS = 4096  # a "clock until" short of its level blocks after this many clocks


class PinTarget(Protocol):
    """What the board connects to ADBUS (an I2C bus, say)."""

    def update(self, pins: int) -> None: ...

    def pulls(self) -> int: ...


class _Floating:
    """Nothing on the pins: every line floats high."""

    def update(self, pins: int) -> None:
        return None

    def pulls(self) -> int:
        return 0xFF


def shift_kind(op: int) -> tuple[bool, bool, bool] | None:
    """(write, read, tms) of a data shifting opcode, or None if `op` is not one."""
    if op & 0x80:
        return None
    write, read, tms, bits, lsb = bool(op & 0x10), bool(op & 0x20), bool(op & 0x40), \
        bool(op & 0x02), bool(op & 0x08)
    if tms:
        return (False, read, True) if bits and lsb and not write else None
    return (write, read, False) if write or read else None


class MpsseEngine:
    """Runs MPSSE commands on one channel's pins and produces reply bytes."""

    def __init__(self, target: PinTarget | None = None) -> None:
        self.target: PinTarget = target if target is not None else _Floating()
        self.now_ps = 0
        self.pending = bytearray()
        self.enter_mode()

    def enter_mode(self) -> None:
        """SET_BITMODE into MPSSE: the processor starts from its reset state."""
        self.pending.clear()
        self.blocked = False
        self.low_value = self.low_dir = 0
        self.high_value = self.high_dir = 0
        self.loopback = False
        self.div5 = True  # FT2232D-compatible 12 MHz until 8Ah
        self.divisor = 0
        self.three_phase = False
        self.adaptive = False
        self.shift_reg = 0
        self.target.update(self.low_pins())

    def purge(self) -> None:
        """Purge TX: queued commands and a blocked wait are dropped; settings stay."""
        self.pending.clear()
        self.blocked = False

    # ------------------------------------------------------------ clocks and pins

    @property
    def master_ps(self) -> int:
        return PS_PER_S * (5 if self.div5 else 1) // MASTER_HZ

    @property
    def tck_hz(self) -> float:
        return MASTER_HZ / (5 if self.div5 else 1) / ((1 + self.divisor) * 2)

    def _half_ps(self) -> int:
        return (1 + self.divisor) * self.master_ps

    def low_pins(self) -> int:
        driven = (self.low_value & self.low_dir) | (~self.low_dir & 0xFF)
        return driven & self.target.pulls()

    def high_pins(self) -> int:
        return (self.high_value & self.high_dir) | (~self.high_dir & 0xFF)

    def _set_low(self, value: int) -> None:
        self.low_value = value & 0xFF
        self.target.update(self.low_pins())

    # ------------------------------------------------------------ command loop

    def feed(self, data: bytes) -> bytes:
        """Take command bytes; execute every complete command; return the replies."""
        self.pending += data
        out = bytearray()
        buf = self.pending
        pos = 0
        while pos < len(buf):
            size = self._size(buf, pos)
            if size is None or pos + size > len(buf):
                break
            reply = self._execute(bytes(buf[pos : pos + size]))
            if reply is None:
                self.blocked = True
                break
            self.blocked = False
            out += reply
            pos += size
        del buf[:pos]
        return bytes(out)

    @staticmethod
    def _size(buf: bytearray, pos: int) -> int | None:
        op = buf[pos]
        kind = shift_kind(op)
        if kind is None:
            return LENGTH.get(op, 1)
        write, _read, tms = kind
        if op & 0x02 or tms:
            return 3 if write or tms else 2
        if pos + 3 > len(buf):
            return None
        n = (buf[pos + 1] | buf[pos + 2] << 8) + 1
        return 3 + (n if write else 0)

    def _execute(self, cmd: bytes) -> bytes | None:
        op = cmd[0]
        self.now_ps += len(cmd) * self.master_ps
        kind = shift_kind(op)
        if kind is not None:
            return self._shift(cmd, *kind)
        if op not in LENGTH:
            return bytes((BAD_COMMAND, op))
        if op == SET_BITS_LOW:
            self.low_dir = cmd[2]
            self._set_low(cmd[1])
        elif op == SET_BITS_HIGH:
            self.high_value, self.high_dir = cmd[1], cmd[2]
        elif op == GET_BITS_LOW:
            return bytes((self.low_pins(),))
        elif op == GET_BITS_HIGH:
            return bytes((self.high_pins(),))
        elif op in (LOOPBACK_ON, LOOPBACK_OFF):
            self.loopback = op == LOOPBACK_ON
        elif op == SET_DIVISOR:
            self.divisor = cmd[1] | cmd[2] << 8
        elif op in (DIV5_OFF, DIV5_ON):
            self.div5 = op == DIV5_ON
        elif op in (THREE_PHASE_ON, THREE_PHASE_OFF):
            self.three_phase = op == THREE_PHASE_ON
        elif op in (ADAPTIVE_ON, ADAPTIVE_OFF):
            self.adaptive = op == ADAPTIVE_ON
        elif op in (WAIT_ON_HIGH, WAIT_ON_LOW):
            if self._gpiol1() != (op == WAIT_ON_HIGH):
                return None
        elif op == CLOCK_BITS:
            return self._clock_only(cmd[1] + 1, until=None)
        elif op == CLOCK_BYTES:
            return self._clock_only(8 * ((cmd[1] | cmd[2] << 8) + 1), until=None)
        elif op in (CLOCK_UNTIL_HIGH, CLOCK_UNTIL_LOW):
            return self._clock_only(UNTIL_SLICE_CLOCKS, until=op == CLOCK_UNTIL_HIGH,
                                    give_up=False)
        elif op in (CLOCK_BYTES_UNTIL_HIGH, CLOCK_BYTES_UNTIL_LOW):
            return self._clock_only(8 * ((cmd[1] | cmd[2] << 8) + 1),
                                    until=op == CLOCK_BYTES_UNTIL_HIGH)
        return b""

    def _gpiol1(self) -> bool:
        return bool(self.low_pins() & GPIOL1)

    # ------------------------------------------------------------ clocking

    def _clock_only(self, clocks: int, until: bool | None, give_up: bool = True
                    ) -> bytes | None:
        """TCK pulses with no data; with `until`, stop once GPIOL1 reaches that level.

        With nothing on the pins no edge can change GPIOL1, so the pulses are
        counted in one step; a target sees every edge (SCL on an I2C bus).
        A "clock until" that is still short of its level after the slice blocks
        and goes on at the next call.
        """
        if until is not None and self._gpiol1() == until:
            return b""
        if self.adaptive:
            return None
        if isinstance(self.target, _Floating):
            if until is not None and not give_up:
                self.now_ps += UNTIL_SLICE_CLOCKS * self._period_ps()
                return None
            self.now_ps += clocks * self._period_ps()
            return b""
        for _ in range(min(clocks, UNTIL_SLICE_CLOCKS) if not give_up else clocks):
            self._pulse()
            if until is not None and self._gpiol1() == until:
                return b""
        return b"" if give_up else None

    def _period_ps(self) -> int:
        return self._half_ps() * (3 if self.three_phase else 2)

    def _pulse(self, out_bit: int | None = None, out_pin: int = TDI, wneg: bool = False,
               rneg: bool = False) -> int:
        """One TCK period (two edges from the idle level); returns the bit sampled on TDO.

        The data pin takes `out_bit` at the edge the opcode writes on (-ve or
        +ve), the sample is taken at the edge it reads on, before that edge
        changes anything.
        """
        idle = self.low_value & TCK
        sampled = 0
        for edge in (0, 1):
            rising = (idle == 0) == (edge == 0)
            if rneg != rising:
                sampled = self._sample()
            value = (self.low_value & ~TCK) | (TCK if rising else 0)
            if out_bit is not None and wneg != rising:
                value = (value & ~out_pin) | (out_pin if out_bit else 0)
            self._set_low(value)
            self.now_ps += self._period_ps() // 2
        return sampled

    def _sample(self) -> int:
        if self.loopback:
            return int(bool(self.low_value & TDI))
        return int(bool(self.low_pins() & TDO))

    def _shift(self, cmd: bytes, write: bool, read: bool, tms: bool) -> bytes | None:
        op = cmd[0]
        wneg, rneg, lsb = bool(op & 0x01), bool(op & 0x04), bool(op & 0x08)
        if tms:
            n = min(cmd[1], 6) + 1
            self._set_low((self.low_value & ~TDI) | (TDI if cmd[2] & 0x80 else 0))
            out = [(cmd[2] >> i) & 1 for i in range(n)]
            got = self._clock_bits(out, TMS, wneg, rneg)
            if got is None:
                return None
            return bytes((self._into_register(got, lsb=True),)) if read else b""
        if op & 0x02:
            n = cmd[1] % 8 + 1
            byte = cmd[2] if write else 0
            out = [(byte >> i) & 1 for i in range(n)] if lsb else \
                [(byte >> (7 - i)) & 1 for i in range(n)]
            got = self._clock_bits(out if write else None, TDI, wneg, rneg, n)
            if got is None:
                return None
            return bytes((self._into_register(got, lsb),)) if read else b""
        n = (cmd[1] | cmd[2] << 8) + 1
        data = cmd[3 : 3 + n] if write else bytes(n)
        bits = [(b >> i) & 1 if lsb else (b >> (7 - i)) & 1 for b in data for i in range(8)]
        got = self._clock_bits(bits if write else None, TDI, wneg, rneg, 8 * n)
        if got is None:
            return None
        if not read:
            return b""
        reply = bytearray()
        for i in range(n):
            reply.append(self._into_register(got[8 * i : 8 * i + 8], lsb))
        return bytes(reply)

    def _clock_bits(self, out: list[int] | None, pin: int, wneg: bool, rneg: bool,
                    n: int | None = None) -> list[int] | None:
        """Clock `n` bits (or len(out)), presenting `out` on `pin`; the TDO samples.

        None when adaptive clocking waits for an RTCK (GPIOL3) that nothing on
        the pins echoes.
        """
        if self.adaptive:
            return None
        count = len(out) if out is not None else (n or 0)
        if out:
            # the first bit is on the pin before the first edge (AN_108 3.3)
            self._set_low((self.low_value & ~pin) | (pin if out[0] else 0))
        got: list[int] = []
        for i in range(count):
            nxt = out[i + 1] if out is not None and i + 1 < count else None
            got.append(self._pulse(nxt, pin, wneg, rneg))
        return got

    def _into_register(self, bits: list[int], lsb: bool) -> int:
        for bit in bits:
            if lsb:
                self.shift_reg = (self.shift_reg >> 1) | (bit << 7)
            else:
                self.shift_reg = ((self.shift_reg << 1) | bit) & 0xFF
        return self.shift_reg
