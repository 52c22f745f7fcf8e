"""MPSSE command processor of the virtual FT2232H in MCU host bus emulation mode.

The commands (FTDI AN_108 and the FT2232H datasheet's MCU host bus section):
READ_SHORT 90h addr, READ_EXTENDED 91h ahi alo, WRITE_SHORT 92h addr data,
WRITE_EXTENDED 93h ahi alo data (short commands keep A[15:8] from the last
extended one); SET BITS HIGH 82h value direction and GET BITS HIGH 83h on the
two I/O pins (bit 0 = I/O0, bit 1 = I/O1; an input, or I/O1 released, reads
the pin: I/O0 is WP#, pulled down on the board, I/O1 is R/B#, wired-AND with
an I/O1 driven low);
SET BITS LOW 80h / GET BITS LOW 81h on AD[7:0] between bus cycles (nothing
latches them; the die drives DQ only in a read cycle, so inputs read high);
SEND_IMMEDIATE 87h; WAIT_ON_HIGH 88h / WAIT_ON_LOW 89h (I/O1); divide-by-5
off / on 8Ah / 8Bh (60 or 12 MHz master clock; on at mode entry, for FT2232D
compatibility); and the settings the processor keeps in either mode, which
change nothing on the host bus: loopback 84h / 85h, clock divisor 86h (2
bytes), 3-phase 8Ch / 8Dh, adaptive 96h / 97h. With divide-by-5 on, every
byte a read cycle returns comes back twice (FT2232H datasheet, MCU host bus
timing; DumpFlash's slow mode keeps every other byte): one RD# pulse, two
reply bytes. Everything else (the serial data shifting and clock-only
commands: the AD pins are the bus here) answers FAh followed by the opcode;
the next byte is read as a new opcode, so the stream stays in step.

On the socket, as the board file wires it: AD[7:0] = DQ, CS# = CE#, WR# =
WE#, RD# = RE#, A[15:8] bits = CLE / ALE, I/O0 = WP# (a pull-down keeps the
chip write-protected while I/O0 is an input, as after mode entry), I/O1 = R/B#.

Timing model (one master clock = 16.667 ns, 83.333 ns with divide-by-5).
These are the model's assumptions, chosen conservative; a real board
calibrates `rb_sample_ns` and `nop_ns` in its board file:

- every command byte takes one clock to fetch;
- a bus cycle: address phase (A[15:8], AD = low address, ALE pulse) 2 clocks,
  CS# low with AD driven (write) or released (read) 1 clock, WR# / RD# low
  4 / 5 clocks, then WR# high and 2 clocks of hold (write) or RD# high and
  1 clock (read), then CS# high; DQ is sampled at the RD# rise;
- GET_BITS_HIGH samples I/O1 five clocks after its fetch (6 clocks in all);
- a wait ends one clock after I/O1 reaches the level.
"""

from __future__ import annotations

from dataclasses import dataclass

from nandlab.boards.model import McuWiring
from nandlab.vusb.nand_bus import NandBus

CLOCK_PS = 16_667
WAIT_HORIZON_PS = 10_000_000_000  # a wait gives up after 10 s of virtual time per slice

READ_SHORT, READ_EXTENDED, WRITE_SHORT, WRITE_EXTENDED = 0x90, 0x91, 0x92, 0x93
SET_BITS_LOW, GET_BITS_LOW, SET_BITS_HIGH, GET_BITS_HIGH = 0x80, 0x81, 0x82, 0x83
SEND_IMMEDIATE, WAIT_ON_HIGH, WAIT_ON_LOW = 0x87, 0x88, 0x89
CLK_DIV5_OFF, CLK_DIV5_ON = 0x8A, 0x8B
SETTINGS = {0x84: 1, 0x85: 1, 0x86: 3, 0x8C: 1, 0x8D: 1, 0x96: 1, 0x97: 1}
IO0, IO1 = 0x01, 0x02
BAD_COMMAND = 0xFA
_LENGTH = {READ_SHORT: 2, READ_EXTENDED: 3, WRITE_SHORT: 3, WRITE_EXTENDED: 4,
           SET_BITS_LOW: 3, GET_BITS_LOW: 1, SET_BITS_HIGH: 3, GET_BITS_HIGH: 1,
           SEND_IMMEDIATE: 1, WAIT_ON_HIGH: 1, WAIT_ON_LOW: 1,
           CLK_DIV5_OFF: 1, CLK_DIV5_ON: 1, **SETTINGS}


@dataclass
class McuCounters:
    """What the engine did (for benchmarks and tests)."""

    commands: int = 0
    bytes_in: int = 0
    waits: int = 0


class McuEngine:
    """Runs MCU host bus commands against a `NandBus` and produces reply bytes.

    `feed()` takes command bytes, `run()` executes as many complete commands
    as the reply FIFO space allows and returns the reply bytes. A wait on
    I/O1 that does not end within the slice leaves the engine blocked; the
    next `run()` tries again. `wp_on_io0` is False on a board whose WP# is
    wired elsewhere (the bit-bang board): I/O0 then drives nothing.
    """

    def __init__(self, bus: NandBus, wiring: McuWiring, *, wp_on_io0: bool = True) -> None:
        self.bus = bus
        self.wiring = wiring
        self.wp_on_io0 = wp_on_io0
        self.now_ps = 0
        self.pending = bytearray()
        self.counters = McuCounters()
        self.enter_mode()

    def enter_mode(self) -> None:
        """SET_BITMODE: the processor starts from its reset state."""
        self.purge()
        self.div5 = True
        self.addr_hi = 0
        self.io_value = self.io_dir = 0
        self.ad_value = self.ad_dir = 0
        self._drive_wp()

    def purge(self) -> None:
        """Purge TX: queued commands and a blocked wait are dropped; settings stay."""
        self.pending.clear()
        self.blocked = False

    @property
    def clock_ps(self) -> int:
        """One master clock (ps)."""
        return CLOCK_PS * (5 if self.div5 else 1)

    @property
    def reply_per_read(self) -> int:
        """Reply bytes of one read cycle: 2 with divide-by-5 on."""
        return 2 if self.div5 else 1

    def feed(self, data: bytes) -> None:
        self.pending += data
        self.counters.bytes_in += len(data)

    def idle(self, ps: int) -> None:
        """Time passes with no command (USB turnaround, host think time)."""
        self.now_ps += ps

    def run(self, room: int) -> bytes:
        """Execute queued commands while at most `room` reply bytes are produced."""
        out = bytearray()
        buf = self.pending
        pos = 0
        while pos < len(buf):
            op = buf[pos]
            size = _LENGTH.get(op, 1)
            if pos + size > len(buf):
                break
            if op in (READ_SHORT, READ_EXTENDED):
                run = self._read_run_length(buf, pos, size,
                                            (room - len(out)) // self.reply_per_read)
                if run == 0:
                    break
                out += self._reads(buf, pos, size, run)
                pos += size + 2 * (run - 1)
                self.counters.commands += run
                continue
            if op == WRITE_SHORT:
                run = self._write_run_length(buf, pos)
                self._writes(buf, pos, run)
                pos += 3 * run
                self.counters.commands += run
                continue
            if op in (GET_BITS_HIGH, GET_BITS_LOW) and len(out) >= room:
                break
            if op not in _LENGTH and len(out) + 2 > room:
                break
            done, reply = self._single(buf, pos, op)
            if not done:
                self.blocked = True
                break
            self.blocked = False
            out += reply
            pos += size
            self.counters.commands += 1
        del buf[:pos]
        return bytes(out)

    # ------------------------------------------------------------ commands

    def _tick(self, clocks: int) -> int:
        self.now_ps += clocks * self.clock_ps
        return self.now_ps

    def _single(self, buf: bytearray, pos: int, op: int) -> tuple[bool, bytes]:
        if op == WRITE_EXTENDED:
            self._tick(3)
            self.addr_hi = buf[pos + 1]
            self._write_cycle(buf[pos + 2], buf[pos + 3])
            return True, b""
        if op == GET_BITS_HIGH:
            t = self._tick(6)
            rb = self.bus.ready_at(t)
            return True, bytes((self._io_pins(rb),))
        if op in (WAIT_ON_HIGH, WAIT_ON_LOW):
            return self._wait(op == WAIT_ON_HIGH), b""
        self._tick(_LENGTH.get(op, 1))
        if op == SET_BITS_HIGH:
            self.io_value, self.io_dir = buf[pos + 1] & (IO0 | IO1), buf[pos + 2] & (IO0 | IO1)
            self._drive_wp()
        elif op == SET_BITS_LOW:
            self.ad_value, self.ad_dir = buf[pos + 1], buf[pos + 2]
        elif op == GET_BITS_LOW:
            return True, bytes(((self.ad_value & self.ad_dir) | (~self.ad_dir & 0xFF),))
        elif op in (CLK_DIV5_OFF, CLK_DIV5_ON):
            self.div5 = op == CLK_DIV5_ON
        elif op not in _LENGTH:
            return True, bytes((BAD_COMMAND, op))
        return True, b""

    def _wp_level(self) -> int:
        """WP# on I/O0: the driven level, or the board's pull-down when I/O0 is an input."""
        return int(bool(self.io_value & self.io_dir & IO0))

    def _drive_wp(self) -> None:
        if self.wp_on_io0:
            self.bus.drive(self.now_ps, wp_n=self._wp_level())

    def _io_pins(self, rb: bool) -> int:
        """I/O0 and I/O1 as GET BITS HIGH reads them (the other bits read 0)."""
        io1 = (self.io_value & self.io_dir) | (~self.io_dir & IO1)  # a released I/O1 reads R/B#
        return self._wp_level() | (io1 & IO1 if rb else 0)

    def _wait(self, high: bool) -> bool:
        if not self.blocked:
            self._tick(1)
            self.counters.waits += 1
        if not high:
            ok = not self.bus.ready_at(self.now_ps)
            if ok:
                self._tick(1)
            return ok
        ready = self.bus.wait_ready(self.now_ps, WAIT_HORIZON_PS)
        if ready is None:
            self.now_ps += WAIT_HORIZON_PS
            return False
        self.now_ps = max(self.now_ps, ready)
        self._tick(1)
        return True

    def _hi_levels(self) -> dict[str, int]:
        w, hi = self.wiring, self.addr_hi
        return {"cle": int(bool(hi & w.cle)), "ale": int(bool(hi & w.ale))}

    def _write_cycle(self, addr_lo: int, data: int) -> None:
        bus = self.bus
        t = self.now_ps
        bus.drive(t, dq_oe=1, dq=addr_lo, **self._hi_levels())
        t = self._tick(2)
        bus.drive(t, ce_n=0, dq=data)
        t = self._tick(1)
        bus.drive(t, we_n=0)
        t = self._tick(4)
        bus.drive(t, we_n=1)
        t = self._tick(2)
        bus.drive(t, ce_n=1, dq_oe=0)

    # ------------------------------------------------------------ runs

    @staticmethod
    def _read_run_length(buf: bytearray, pos: int, size: int, room: int) -> int:
        if room <= 0:
            return 0
        n = 1
        addr = buf[pos + size - 1]
        p = pos + size
        while n < room and p + 1 < len(buf) and buf[p] == READ_SHORT and buf[p + 1] == addr:
            n += 1
            p += 2
        return n

    def _reads(self, buf: bytearray, pos: int, size: int, n: int) -> bytes:
        if buf[pos] == READ_EXTENDED:
            self.addr_hi = buf[pos + 1]
        bus = self.bus
        fetch = size  # clocks to fetch the first command
        t = self._tick(fetch)
        bus.drive(t, dq_oe=1, dq=buf[pos + size - 1], **self._hi_levels())
        t = self._tick(2)
        bus.drive(t, dq_oe=0)
        # every read: 2 fetch (short) + 2 address + 1 setup + 5 RD# low + 1 = 11 clocks
        period = 11 * self.clock_ps
        data = bus.read_run(t, n, period, 5 * self.clock_ps, self.clock_ps)
        self.now_ps = t + (n - 1) * period + 7 * self.clock_ps
        if self.div5:
            return bytes(b for byte in data for b in (byte, byte))
        return data

    @staticmethod
    def _write_run_length(buf: bytearray, pos: int) -> int:
        n = 1
        addr = buf[pos + 1]
        p = pos + 3
        while p + 2 < len(buf) and buf[p] == WRITE_SHORT and buf[p + 1] == addr:
            n += 1
            p += 3
        return n

    def _writes(self, buf: bytearray, pos: int, n: int) -> None:
        data = bytes(buf[pos + 2 : pos + 3 * n : 3])
        c = self.clock_ps
        t = self._tick(3)
        levels = self._hi_levels()
        # one cycle: address phase, CS# + data, WR# low, WR# high, hold, CS# high
        edges = [(0, "dq_oe", 1), (0, "dq", buf[pos + 1])]
        edges += [(0, pin, level) for pin, level in levels.items()]
        edges += [(2 * c, "ce_n", 0), (2 * c, "dq", -1), (3 * c, "we_n", 0), (7 * c, "we_n", 1),
                  (9 * c, "ce_n", 1), (9 * c, "dq_oe", 0)]
        period = 12 * c  # 3 fetch + 9 cycle
        self.bus.write_run(t, data, period, edges, 7 * c)
        self.now_ps = t + (n - 1) * period + 9 * c
