"""Runs compiled MCU host bus steps on an FT2232H through pyftdi, one USB round trip
for each stretch of the program between host steps (long DELAY, MARK, POWER).

The stretch's command bytes go out as a pipeline of chunks, each one `write_data`
followed by SEND_IMMEDIATE (so its replies come back without waiting for the latency
timer). A chunk holds at most half the board's `reply_chunk_bytes` of replies (the
chip's 4 KiB TX FIFO less a packet of margin), and at most two chunks are in flight:
the host writes chunk k+1 before it reads chunk k's replies, so the replies it has
not read always fit the TX FIFO, the MPSSE never stalls on it, and the chip never
waits for the host between chunks. The host waits once, at the end of the stretch,
for its last replies: the stretch ends with a tWB gap and a GET_BITS_HIGH "fence" so
the host knows everything before it ran. A DOUT longer than a chunk is split across
chunks; a WAIT_RDY's 88h waits for R/B# on the chip, with the next chunk already
queued behind it.

Every wait has a deadline: a round trip's replies must arrive within its
estimated bus time, plus the WAIT_RDY timeouts it holds, plus a USB margin.
When they stop right after a WAIT_RDY's R/B# samples, the chip never
raised R/B#: the program ends with ERROR TIMEOUT at that instruction and the
MPSSE is reset (its 88h would otherwise wait for ever). Any other failure is
a TransportError naming the instruction and the USB error.
"""

from __future__ import annotations

import errno
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from pyftdi.ftdi import Ftdi
from usb.core import USBError

from nandlab.analysis import chunk_error_counts
from nandlab.boards.model import FtdiController
from nandlab.errors import TransportError
from nandlab.ops import (
    BusyRecord,
    DataRecord,
    Delay,
    DoutCompare,
    ErrCountRecord,
    ErrorCode,
    ErrorRecord,
    Instruction,
    Mark,
    MarkRecord,
    Power,
    Record,
    WaitRdy,
    pattern_bytes,
)
from nandlab.transport.ftdi.mcu_stream import GET_BITS_HIGH, SEND_IMMEDIATE, Step

U32_MAX = 0xFFFFFFFF
USB_MARGIN_S = 0.25
FENCE_GAP_NS = 200  # tWB of SDR mode 0, the longest
GONE_ERRNOS = frozenset({errno.ENODEV, errno.EIO, errno.EPIPE, errno.ENOENT, errno.ESHUTDOWN})


@dataclass
class LinkStats:
    """USB traffic of a bench since it was opened (or since `reset()`)."""

    round_trips: int = 0  # times the host waited for the chip to finish what it was sent
    usb_writes: int = 0  # bulk writes (chunks) those round trips took
    bytes_sent: int = 0
    bytes_received: int = 0
    data_bytes: int = 0  # DOUT / DOUT_CMP payload
    busy_saturated: int = 0  # WAIT_RDYs whose busy outlasted the sample window (lower bound)
    busy_unmeasured: int = 0  # WAIT_RDYs without samples (busy=wait): the tWB gap reported

    def reset(self) -> None:
        self.round_trips = self.usb_writes = self.bytes_sent = self.bytes_received = 0
        self.data_bytes = self.busy_saturated = self.busy_unmeasured = 0


class _Timeout(Exception):
    def __init__(self, index: int) -> None:
        self.index = index


@dataclass
class _Segment:
    step: Step
    first: int  # first reply byte of the step carried here
    count: int


@dataclass
class _Trip:
    cmd: bytearray = field(default_factory=bytearray)
    segments: list[_Segment] = field(default_factory=list)
    reply: int = 0
    est_ns: float = 0.0
    wait_ns: float = 0.0
    host_ns: float = 0.0  # host time from the end of the write to the last reply byte
    written_ns: int = 0  # when its write ended (monotonic ns)
    expected: int = 0  # reply bytes it was sent for (its fence included)


def usb_errno(exc: BaseException) -> int | None:
    """The errno of a pyusb error, directly or behind pyftdi's FtdiError."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, USBError) and seen.errno is not None:
            return int(seen.errno)
        seen = seen.__cause__ or seen.__context__
    text = str(exc)
    if "Errno" in text:
        try:
            return int(text.split("Errno", 1)[1].split("]", 1)[0])
        except ValueError:
            return None
    return None


def describe(ins: Instruction) -> str:
    """An instruction in a few words, for error messages."""
    name = ins.LAYOUT.name
    for attr in ("byte", "n", "target", "timeout_ns", "ns"):
        if hasattr(ins, attr):
            value = getattr(ins, attr)
            return f"{name} {value:02X}h" if attr == "byte" else f"{name} {value}"
    return name


class McuRunner:
    """Executes steps on an open pyftdi `Ftdi` in MCU host bus mode.

    Args:
        ftdi: the channel, already in MCU mode.
        ctrl: the board's controller section.
        url: the bench URL (for messages).
        host_action: runs "host" steps (long DELAY, MARK, POWER); returns a record or None.
        reinit: puts the channel back into MCU mode after a reset.
    """

    def __init__(self, ftdi: Ftdi, ctrl: FtdiController, url: str,
                 host_action: Callable[[Step, int], Record | None],
                 reinit: Callable[[], None]) -> None:
        self.ftdi = ftdi
        self.ctrl = ctrl
        self.url = url
        self.host_action = host_action
        self.reinit = reinit
        self.stats = LinkStats()
        # two chunks in flight share the TX FIFO; one byte kept for the fence
        self.chunk = ctrl.reply_chunk_bytes // 2 - 1
        self._inflight: list[_Trip] = []  # written, replies not read yet (oldest first)
        self._fence = bytes((SEND_IMMEDIATE,)) * math.ceil(FENCE_GAP_NS / ctrl.nop_ns) + bytes(
            (GET_BITS_HIGH, SEND_IMMEDIATE))

    # ------------------------------------------------------------ packing

    def run(self, steps: list[Step], t0_ns: int) -> list[Record]:
        """Run the steps; records in program order (an ERROR record ends them)."""
        records: list[Record] = []
        partial: dict[int, bytearray] = {}
        trip = _Trip()
        self._inflight = []  # a program that failed leaves nothing due to the next one
        try:
            for step in steps:
                if step.kind in ("host", "error"):
                    self._finish(trip, records, partial)
                    trip = _Trip()
                    if step.kind == "error":
                        assert step.code is not None
                        records.append(ErrorRecord(step.code, step.index))
                        return records
                    record = self._host(step, t0_ns)
                    if record is not None:
                        records.append(record)
                        if isinstance(record, ErrorRecord):
                            return records
                    continue
                if step.kind == "data":
                    trip = self._add_data(step, trip, records, partial)
                    continue
                if step.kind == "busy":
                    trip = self._add_busy(step, trip, records, partial)
                    continue
                trip.cmd += step.cmd
                trip.est_ns += step.est_ns
                trip.segments.append(_Segment(step, 0, 0))
            self._finish(trip, records, partial)
        except _Timeout as timeout:
            self._inflight.clear()  # the MPSSE was reset: their replies will never come
            records.append(ErrorRecord(ErrorCode.TIMEOUT, timeout.index))
        return records

    def _add_data(self, step: Step, trip: _Trip, records: list[Record],
                  partial: dict[int, bytearray]) -> _Trip:
        n = step.reply
        prefix = len(step.cmd) - 2 * (n - 1)
        done = 0
        while done < n:
            room = self.chunk - trip.reply
            if room <= 0:
                self._send(trip, records, partial)
                trip = _Trip()
                continue
            take = min(room, n - done)
            start = 0 if done == 0 else prefix + 2 * (done - 1)
            end = prefix + 2 * (done + take - 1)
            trip.cmd += step.cmd[start:end]
            trip.segments.append(_Segment(step, done, take))
            trip.reply += take
            trip.est_ns += step.est_ns * take / n
            done += take
        return trip

    def _add_busy(self, step: Step, trip: _Trip, records: list[Record],
                  partial: dict[int, bytearray]) -> _Trip:
        # pad, one 83h per sample, 88h: the samples may spread over round trips
        assert isinstance(step.ins, WaitRdy)
        n = step.reply
        prefix = len(step.cmd) - n - 1
        done = 0
        while True:
            room = self.chunk - trip.reply
            if room <= 0 and done < n:
                self._send(trip, records, partial)
                trip = _Trip()
                continue
            take = min(room, n - done)
            start = 0 if done == 0 else prefix + done
            last = done + take == n
            end = len(step.cmd) if last else prefix + done + take
            trip.cmd += step.cmd[start:end]
            trip.segments.append(_Segment(step, done, take))
            trip.reply += take
            done += take
            if last:
                trip.est_ns += step.est_ns
                trip.wait_ns += step.ins.timeout_ns
                return trip

    def _host(self, step: Step, t0_ns: int) -> Record | None:
        if isinstance(step.ins, Delay):
            time.sleep(step.ins.ns / 1e9)
            return None
        if isinstance(step.ins, Mark):
            return MarkRecord(step.ins.id, time.monotonic_ns() - t0_ns)
        if isinstance(step.ins, Power):
            return self.host_action(step, t0_ns)
        return None  # pragma: no cover - the compiler makes no other host step

    # ------------------------------------------------------------ the pipeline

    def _finish(self, trip: _Trip, records: list[Record], partial: dict[int, bytearray]
                ) -> None:
        """End the stretch: send `trip` with the fence, then read every reply still due
        (one round trip). Nothing is sent when the stretch ran nothing."""
        if not trip.segments and not self._inflight:
            return
        self._send(trip, records, partial, fence=True)
        while self._inflight:
            self._collect(self._inflight.pop(0), records, partial)
        self.stats.round_trips += 1

    def _send(self, trip: _Trip, records: list[Record], partial: dict[int, bytearray],
              fence: bool = False) -> None:
        """Write one chunk; with two in flight, read the older one's replies first."""
        if len(self._inflight) >= 2:
            self._collect(self._inflight.pop(0), records, partial)
        cmd = bytes(trip.cmd) + (self._fence if fence else bytes((SEND_IMMEDIATE,)))
        trip.expected = trip.reply + (1 if fence else 0)
        try:
            self.ftdi.write_data(cmd)
        except Exception as exc:  # noqa: BLE001 - pyftdi raises FtdiError, pyusb USBError, ValueError
            # a write stalls behind a wait that never ends: the oldest wait still in flight
            waiting = [*self._inflight, trip]
            busy = next((s.step for t in waiting for s in t.segments if s.step.kind == "busy"),
                        None)
            if usb_errno(exc) == errno.ETIMEDOUT and busy is not None:
                self._recover(busy)
                raise _Timeout(busy.index) from None
            raise self._lost(trip if trip.segments else None, exc,
                             None if trip.segments else self._last_step(trip)) from None
        trip.written_ns = time.monotonic_ns()
        self.stats.usb_writes += 1
        self.stats.bytes_sent += len(cmd)
        self._inflight.append(trip)

    def _last_step(self, trip: _Trip) -> Step | None:
        """The step a fence-only chunk follows (for messages)."""
        for t in reversed(self._inflight):
            if t.segments:
                return t.segments[-1].step
        return None

    def _collect(self, trip: _Trip, records: list[Record], partial: dict[int, bytearray]
                 ) -> None:
        """Read one chunk's replies (the chunks before it are read) and decode them."""
        expected = trip.expected
        # the chip starts this chunk once the one before it is done: now, at the latest
        deadline = time.monotonic() + (trip.est_ns + trip.wait_ns) / 1e9 + USB_MARGIN_S
        reply = bytearray()
        try:
            while len(reply) < expected:
                got = self.ftdi.read_data_bytes(expected - len(reply), attempt=1)
                reply += got
                if not got and time.monotonic() > deadline:
                    break
        except Exception as exc:  # noqa: BLE001
            at = self._at(trip, len(reply)) if trip.segments else self._last_step(trip)
            raise self._lost(trip if trip.segments else None, exc, at) from None
        trip.host_ns = time.monotonic_ns() - trip.written_ns
        self.stats.bytes_received += len(reply)
        if len(reply) < expected:
            self._short(trip, reply)
        self._decode(trip, bytes(reply), records, partial)

    def _at(self, trip: _Trip, received: int) -> Step:
        """The step whose reply byte number `received` is (the last step if all arrived)."""
        pos = 0
        for seg in trip.segments:
            if seg.count and received < pos + seg.count:
                return seg.step
            pos += seg.count
        return trip.segments[-1].step

    def _short(self, trip: _Trip, reply: bytearray) -> None:
        if not trip.segments:  # the fence alone: the chip stopped after the chunks before
            step = self._last_step(trip)
            assert step is not None
            raise TransportError(
                f"{self.url}: the FT2232H stopped answering after instruction {step.index} "
                f"({describe(step.ins)}): the closing fence never came back"
            )
        # where did the replies stop? right after a WAIT_RDY's samples = the wait never ended
        pos = 0
        for seg in trip.segments:
            pos += seg.count
            last_part = seg.first + seg.count == seg.step.reply
            if seg.step.kind == "busy" and last_part and pos == len(reply):
                self._recover(seg.step)
                raise _Timeout(seg.step.index)
        step = self._at(trip, len(reply))
        raise TransportError(
            f"{self.url}: the FT2232H stopped answering in instruction {step.index} "
            f"({describe(step.ins)}): {len(reply)} of {trip.expected} reply bytes arrived "
            f"before the deadline"
        )

    def _recover(self, step: Step) -> None:
        try:
            self.ftdi.set_bitmode(0, Ftdi.BitMode.RESET)
            self.ftdi.purge_buffers()
            self.reinit()
        except Exception as exc:  # noqa: BLE001
            raise self._lost(None, exc, step) from None

    def _lost(self, trip: _Trip | None, exc: BaseException, step: Step | None = None
              ) -> TransportError:
        code = usb_errno(exc)
        why = "the device is gone (unplugged?)" if code in GONE_ERRNOS else "USB failure"
        if step is not None:
            where = f"instruction {step.index} ({describe(step.ins)})"
        else:
            assert trip is not None
            first, last = trip.segments[0].step, trip.segments[-1].step
            where = (f"instructions {first.index}-{last.index} ({describe(first.ins)} ... "
                     f"{describe(last.ins)}), sent in one USB write")
            if first is last:
                where = f"instruction {first.index} ({describe(first.ins)})"
        return TransportError(f"{self.url}: {why} during {where}: {exc}")

    # ------------------------------------------------------------ replies

    def _decode(self, trip: _Trip, reply: bytes, records: list[Record],
                partial: dict[int, bytearray]) -> None:
        pos = 0
        for seg in trip.segments:
            step = seg.step
            chunk = reply[pos : pos + seg.count]
            pos += seg.count
            if step.kind == "busy":
                buf = partial.setdefault(step.index, bytearray())
                buf += chunk
                if seg.first + seg.count == step.reply and seg is self._last_part(trip, step):
                    records.append(self._busy(step, bytes(partial.pop(step.index)), trip))
            elif step.kind == "data":
                buf = partial.setdefault(step.index, bytearray())
                buf += chunk
                if len(buf) == step.reply:
                    records.append(self._data(step, bytes(partial.pop(step.index))))
            last = records[-1] if records else None
            if isinstance(last, ErrorRecord):
                records.pop()
                raise _Timeout(last.index)

    @staticmethod
    def _last_part(trip: _Trip, step: Step) -> _Segment:
        return [seg for seg in trip.segments if seg.step is step][-1]

    def _data(self, step: Step, data: bytes) -> Record:
        self.stats.data_bytes += len(data)
        if isinstance(step.ins, DoutCompare):
            ins = step.ins
            expected = pattern_bytes(ins.pattern, ins.seed, ins.n)
            return ErrCountRecord(ins.chunk, chunk_error_counts(expected, data, ins.chunk).tolist())
        return DataRecord(data)

    def _busy(self, step: Step, samples: bytes, trip: _Trip) -> Record:
        assert isinstance(step.ins, WaitRdy)
        if step.reply == 0:
            # 88h alone: the stream went on once R/B# was high, how long it was low is unknown
            self.stats.busy_unmeasured += 1
            return BusyRecord(step.index, round(step.busy_gap_ns))
        rb = self.ctrl.mcu.rb_bit
        high = next((i for i, s in enumerate(samples) if s & rb), None)
        if high is None:
            # R/B# outlasted the samples: at least the window, or the host-timed wait
            self.stats.busy_saturated += 1
            window = step.busy_gap_ns + len(samples) * step.busy_period_ns
            busy = max(window, trip.host_ns)
        else:
            busy = 0 if high == 0 else step.busy_gap_ns + high * step.busy_period_ns
        if busy > step.ins.timeout_ns:
            return ErrorRecord(ErrorCode.TIMEOUT, step.index)
        return BusyRecord(step.index, min(round(busy), U32_MAX))
