"""The asynchronous bit-bang fallback: DQ on one FT2232H channel, control on the other.

For boards not wired for MCU host bus emulation. Each bus cycle is a few USB
transfers (so every ONFI timing is met many times over, and throughput is a
few kB/s):

- write cycle: DQ byte on the data channel, then on the control channel one
  transfer of three pin states: (CLE/ALE, WE# low), (WE# high), (CLE/ALE low);
- read cycle: RE# low, READ_PINS on the data channel (inputs), RE# high;
- WAIT_RDY: READ_PINS of the control channel until R/B# is high or the
  timeout passes; the busy time is host time between the first and the
  ready sample (resolution: one USB round trip, ~0.1-1 ms).

DELAYs sleep on the host; a USB transfer already lasts longer than any SDR
delay.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from pyftdi.ftdi import Ftdi

from nandlab import ops
from nandlab.analysis import chunk_error_counts
from nandlab.boards.model import BitbangWiring
from nandlab.errors import TransportError
from nandlab.transport.ftdi.mcu_runner import LinkStats, describe, usb_errno

U32_MAX = 0xFFFFFFFF
POLL_MARGIN_S = 0.25


class _Stop(Exception):
    def __init__(self, code: ops.ErrorCode) -> None:
        self.code = code


class BitbangRunner:
    """Runs op programs instruction by instruction on two bit-bang channels.

    Args:
        data, control: the two channels, opened in asynchronous bit-bang mode.
        wiring: the board's bit-bang section.
        targets: chip enables on the board.
        url: the bench URL (for messages).
        host_action: runs POWER instructions; returns a record or None.
    """

    def __init__(self, data: Ftdi, control: Ftdi, wiring: BitbangWiring, targets: int, url: str,
                 host_action: Callable[[ops.Instruction, int, int], ops.Record | None]) -> None:
        self.data = data
        self.control = control
        self.pins = wiring.pins
        self.targets = targets
        self.url = url
        self.host_action = host_action
        self.stats = LinkStats()
        self.outputs = 0xFF & ~(1 << self.pins.rb_n)
        self.dq_out = False
        self.wp_n = True
        self.selected: int | None = None

    def _ctl(self, *, cle: int = 0, ale: int = 0, we_n: int = 1, re_n: int = 1) -> int:
        p = self.pins
        value = (cle << p.cle) | (ale << p.ale) | (we_n << p.we_n) | (re_n << p.re_n)
        value |= (int(self.wp_n) << p.wp_n) | (int(self.selected is None) << p.ce_n)
        return value | (1 << p.rb_n)

    def run(self, program: list[ops.Instruction], t0_ns: int) -> list[ops.Record]:
        records: list[ops.Record] = []
        for index, ins in enumerate(program):
            try:
                record = self._step(ins, index, t0_ns)
            except _Stop as stop:
                records.append(ops.ErrorRecord(stop.code, index))
                break
            except TransportError:
                raise
            except Exception as exc:  # noqa: BLE001 - pyftdi / pyusb errors
                raise TransportError(
                    f"{self.url}: the device is gone or failed during instruction {index} "
                    f"({describe(ins)}): {exc} (errno {usb_errno(exc)})"
                ) from None
            if record is not None:
                records.append(record)
        return records

    def _step(self, ins: ops.Instruction, index: int, t0_ns: int) -> ops.Record | None:
        if isinstance(ins, ops.Ce):
            if ins.target >= self.targets:
                raise _Stop(ops.ErrorCode.NO_TARGET)
            self.selected = ins.target
            self._write_control(bytes((self._ctl(),)))
            return None
        if isinstance(ins, ops.Delay):
            time.sleep(ins.ns / 1e9)
            return None
        if isinstance(ins, ops.Mark):
            return ops.MarkRecord(ins.id, time.monotonic_ns() - t0_ns)
        if isinstance(ins, ops.Power):
            record = self.host_action(ins, index, t0_ns)
            if isinstance(record, ops.ErrorRecord):
                raise _Stop(record.code)
            return record
        if isinstance(ins, ops.Timing):
            if ins.interface != ops.Interface.SDR or ins.mode > ops.MAX_SDR_MODE:
                raise _Stop(ops.ErrorCode.BAD_ARG)
            return None
        if isinstance(ins, ops.Gpio):
            if ins.mask & ~0x01:
                raise _Stop(ops.ErrorCode.BAD_ARG)
            if ins.mask & 0x01:
                self.wp_n = bool(ins.value & 0x01)
                if self.selected is not None:
                    self._write_control(bytes((self._ctl(),)))
            return None
        if self.selected is None:
            raise _Stop(ops.ErrorCode.NO_TARGET)
        if isinstance(ins, ops.Cmd):
            self._writes(bytes((ins.byte,)), cle=1)
        elif isinstance(ins, ops.Addr):
            self._writes(ins.data, ale=1)
        elif isinstance(ins, ops.Din):
            self._writes(ins.data)
        elif isinstance(ins, ops.DinPattern):
            self._writes(ops.pattern_bytes(ins.pattern, ins.seed, ins.n))
        elif isinstance(ins, (ops.Dout, ops.DoutCompare)):
            data = self._reads(ins.n)
            if isinstance(ins, ops.DoutCompare):
                expected = ops.pattern_bytes(ins.pattern, ins.seed, ins.n)
                counts = chunk_error_counts(expected, data, ins.chunk)
                return ops.ErrCountRecord(ins.chunk, counts.tolist())
            return ops.DataRecord(data)
        elif isinstance(ins, ops.WaitRdy):
            return self._wait(ins, index)
        return None

    def _write_control(self, states: bytes) -> None:
        self.control.write_data(states)
        self.stats.round_trips += 1
        self.stats.bytes_sent += len(states)

    def _writes(self, data: bytes, cle: int = 0, ale: int = 0) -> None:
        if not self.dq_out:
            self.data.set_bitmode(0xFF, Ftdi.BitMode.BITBANG)
            self.dq_out = True
        for byte in data:
            self.data.write_data(bytes((byte,)))
            self._write_control(bytes((self._ctl(cle=cle, ale=ale, we_n=0),
                                       self._ctl(cle=cle, ale=ale, we_n=1), self._ctl())))
            self.stats.round_trips += 1
            self.stats.bytes_sent += 1

    def _reads(self, n: int) -> bytes:
        if self.dq_out:
            self.data.set_bitmode(0x00, Ftdi.BitMode.BITBANG)
            self.dq_out = False
        out = bytearray()
        for _ in range(n):
            self._write_control(bytes((self._ctl(re_n=0),)))
            out.append(self.data.read_pins())
            self._write_control(bytes((self._ctl(),)))
            self.stats.round_trips += 1
            self.stats.bytes_received += 1
        self.stats.data_bytes += n
        return bytes(out)

    def _wait(self, ins: ops.WaitRdy, index: int) -> ops.Record:
        rb = 1 << self.pins.rb_n
        start = time.monotonic_ns()
        deadline = start + ins.timeout_ns + int(POLL_MARGIN_S * 1e9)
        while True:
            now = time.monotonic_ns()
            level = self.control.read_pins()
            self.stats.round_trips += 1
            if level & rb:
                busy = now - start
                if busy > ins.timeout_ns:
                    raise _Stop(ops.ErrorCode.TIMEOUT)
                return ops.BusyRecord(index, min(busy, U32_MAX))
            if now > deadline:
                raise _Stop(ops.ErrorCode.TIMEOUT)
