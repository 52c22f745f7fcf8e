"""The board's I2C devices and thermal plant on the pins of the firmware-in-the-loop
harness (nandlab_fw_soc.sv), as cocotb coroutines.

- `I2cTargets`: the target side of the bus, bit by bit from SCL / SDA (START,
  address and acknowledge, pointer-register writes and reads as the INA226 and
  TMP117 datasheets describe them), with the fast-mode timing checked (NXP UM10204
  table 10: SCL low >= 1.3 us, high >= 0.6 us, data setup >= 100 ns).
- `Tmp117`: TI TMP117 from its datasheet (SNOSD82D section 7.6): Temp_Result
  (7.8125 m°C a bit, 8000h until the first conversion), Configuration (reset 0220h,
  conversion cycle from CONV / AVG, Data_Ready), Device_ID 0117h.
- `TimedIna226`: `nandlab.instruments.virtual_ina.VirtualIna226` whose results
  change only at the end of each conversion (SBOS547 CONFIG: AVG x (VBUSCT + VSHCT)
  in shunt-and-bus mode), and read 0 until the first one after a reset.
- `ThermalPlant`: a socket as first-order-plus-dead-time, heated (or cooled, with
  the TEC direction pin) by the PWM pin's duty cycle.

`time_scale` runs a device's conversions (and a plant's time constants) faster
than the datasheet's by that factor, so a loop tuned for seconds fits a
simulation of milliseconds; the firmware's own clock is never scaled.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

import cocotb
from cocotb.simtime import get_sim_time
from cocotb.triggers import First, Timer

from nandlab.instruments.virtual_ina import VirtualIna226

T_LOW_NS, T_HIGH_NS, T_SU_DAT_NS = 1300, 600, 100


class I2cRegisterDevice(Protocol):
    """A pointer-register device as pyftdi's I2cPort sees it (the virtual INA models)."""

    def read_from(self, regaddr: int, readlen: int = 0, relax: bool = True,
                  start: bool = True) -> bytes: ...

    def write_to(self, regaddr: int, out: bytes, relax: bool = True,
                 start: bool = True) -> None: ...


def _now_ns() -> float:
    return float(get_sim_time("ns"))


def _now_ps() -> int:
    """Simulation time in whole ps: the bus timing checks compare exact widths (a
    width of exactly the limit passes; float ns differences near 1e8 ns do not
    round-trip)."""
    return int(get_sim_time("ps"))


class I2cTargets:
    """Every target on the bus: `devices` by 7-bit address. Started with `start()`;
    `errors` lists broken bus timings, `transfers` counts acknowledged addresses."""

    def __init__(self, dut: Any, devices: dict[int, I2cRegisterDevice]) -> None:
        self.dut = dut
        self.devices = devices
        self.errors: list[str] = []
        self.transfers = 0
        self._sda_low = False
        self._reset()

    def _reset(self) -> None:
        self.state = "idle"   # idle, rx (address / data in), ack_out, tx, ack_in
        self.bits = 0
        self.shift = 0
        self.is_addr = True
        self.dev: I2cRegisterDevice | None = None
        self.read = False
        self.pointer = 0
        self.written: list[int] = []
        self.out: deque[int] = deque()
        self.byte = 0xFF
        self.read_nacked = True

    def start(self) -> None:
        self.dut.i2c_scl_pull.value = 0
        self.dut.i2c_sda_pull.value = 0
        cocotb.start_soon(self._run())

    def _pull_sda(self, low: bool) -> None:
        self._sda_low = low
        self.dut.i2c_sda_pull.value = int(low)

    def _commit_write(self) -> None:
        if self.dev is not None and not self.read and self.written:
            self.pointer = self.written[0]
            if len(self.written) > 1:
                self.dev.write_to(self.pointer, bytes(self.written[1:]))
        self.written = []

    async def _run(self) -> None:
        scl, sda = int(self.dut.i2c_scl.value), int(self.dut.i2c_sda.value)
        scl_t = sda_t = _now_ps()
        while True:
            await First(self.dut.i2c_scl.value_change, self.dut.i2c_sda.value_change)
            new_scl, new_sda = int(self.dut.i2c_scl.value), int(self.dut.i2c_sda.value)
            now = _now_ps()
            if new_sda != sda:
                if scl and new_scl:
                    self._start_or_stop(start=new_sda == 0)
                sda, sda_t = new_sda, now
            if new_scl != scl:
                width = now - scl_t
                if scl == 0 and self.state != "idle" and width < T_LOW_NS * 1000:
                    self.errors.append(f"SCL low {width} ps < {T_LOW_NS} ns at {now} ps")
                if scl == 1 and width < T_HIGH_NS * 1000:
                    self.errors.append(f"SCL high {width} ps < {T_HIGH_NS} ns at {now} ps")
                if new_scl and now - sda_t < T_SU_DAT_NS * 1000 and self.state in ("rx", "ack_in"):
                    self.errors.append(f"SDA setup {now - sda_t} ps at {now} ps")
                scl, scl_t = new_scl, now
                if new_scl:
                    self._rise(new_sda)
                else:
                    self._fall()

    def _start_or_stop(self, start: bool) -> None:
        self._commit_write()
        self._pull_sda(False)
        if start:
            self.state, self.bits, self.shift, self.is_addr = "rx", 0, 0, True
        else:
            self._reset()

    def _rise(self, sda: int) -> None:
        if self.state == "rx":
            self.shift = (self.shift << 1 | sda) & 0xFF
            self.bits += 1
        elif self.state == "ack_in":
            self.read_nacked = sda == 1

    def _fall(self) -> None:
        if self.state == "rx" and self.bits == 8:
            if self.is_addr:
                self.dev = self.devices.get(self.shift >> 1)
                self.read = bool(self.shift & 1)
                if self.dev is None:
                    self.state = "idle"   # not ours: no acknowledge, wait for a START
                    return
                self.transfers += 1
            else:
                self.written.append(self.shift)
            self._pull_sda(True)
            self.state = "ack_out"
        elif self.state == "ack_out":
            self._pull_sda(False)
            if self.read and self.is_addr:
                assert self.dev is not None
                self.out = deque(self.dev.read_from(self.pointer, 8))
                self._send_next()
            else:
                self.state, self.bits, self.shift, self.is_addr = "rx", 0, 0, False
        elif self.state == "tx":
            self.bits += 1
            if self.bits < 8:
                self._pull_sda(not (self.byte >> (7 - self.bits)) & 1)
            else:
                self._pull_sda(False)
                self.state, self.read_nacked = "ack_in", True
        elif self.state == "ack_in":
            if self.read_nacked:
                self.state = "idle"
            else:
                self._send_next()

    def _send_next(self) -> None:
        self.byte = self.out.popleft() if self.out else 0xFF
        self.state, self.bits, self.is_addr = "tx", 0, False
        self._pull_sda(not (self.byte >> 7) & 1)


def _two_bytes(value: int, readlen: int) -> bytes:
    return (value & 0xFFFF).to_bytes(2, "big")[:readlen]


class Tmp117:
    """TMP117 measuring `temp_C()` (a callable: a plant's temperature)."""

    TEMP_RESULT, CONFIGURATION, DEVICE_ID = 0x00, 0x01, 0x0F
    # Table 7-7: conversion cycle (ms) by CONV[2:0] (rows) and AVG[1:0] (columns);
    # with averaging the cycle is at least the averaged conversion (8 x 15.5 ms...)
    CYCLE_MS: list[list[float]] = [
        [15.5, 125, 500, 1000], [125, 125, 500, 1000], [250, 250, 500, 1000],
        [500, 500, 500, 1000], [1000, 1000, 1000, 1000], [4000, 4000, 4000, 4000],
        [8000, 8000, 8000, 8000], [16000, 16000, 16000, 16000],
    ]

    def __init__(self, temp_C: Callable[[], float], *, time_scale: float = 1.0,
                 now_ns: Callable[[], float] = _now_ns) -> None:
        self.temp_C = temp_C
        self.time_scale = time_scale
        self.now_ns = now_ns
        self.writes: list[tuple[int, bytes]] = []
        self.result_reads = 0
        self._reset()

    def _reset(self) -> None:
        self.regs = {0x00: 0x8000, 0x01: 0x0220, 0x02: 0x6000, 0x03: 0x8000, 0x07: 0x0000,
                     0x0F: 0x0117}
        self.t0 = self.now_ns()
        self.done = 0  # conversions finished since t0

    def cycle_ns(self) -> float:
        cfg = self.regs[0x01]
        return self.CYCLE_MS[cfg >> 7 & 7][cfg >> 5 & 3] * 1e6 * self.time_scale

    def _convert(self) -> None:
        mode = self.regs[0x01] >> 10 & 3
        if mode == 1:   # shutdown: the last result stays
            return
        n = int((self.now_ns() - self.t0) // self.cycle_ns())
        if n > self.done:
            self.done = n
            raw = round(self.temp_C() / 0.0078125) + _signed16(self.regs[0x07])
            self.regs[0x00] = max(-0x8000, min(0x7FFF, raw)) & 0xFFFF
            self.regs[0x01] |= 1 << 13  # Data_Ready

    def read_from(self, regaddr: int, readlen: int = 0, relax: bool = True,
                  start: bool = True) -> bytes:
        self._convert()
        value = self.regs.get(regaddr, 0)
        self.result_reads += regaddr == self.TEMP_RESULT
        if regaddr in (self.TEMP_RESULT, self.CONFIGURATION):
            self.regs[0x01] &= ~(1 << 13)  # reading either clears Data_Ready
        return _two_bytes(value, readlen)

    def write_to(self, regaddr: int, out: bytes, relax: bool = True, start: bool = True) -> None:
        self.writes.append((regaddr, bytes(out)))
        value = int.from_bytes(bytes(out[:2]), "big")
        if regaddr == self.CONFIGURATION:
            if value & 0x0002:  # Soft_Reset
                self._reset()
                return
            # a new mode restarts the conversion cycle (7.4.1)
            self.regs[0x01] = (self.regs[0x01] & 0xF000) | (value & 0x0FFC)
            self.t0, self.done = self.now_ns(), 0
        elif regaddr in (0x02, 0x03, 0x07):
            self.regs[regaddr] = value


def _signed16(v: int) -> int:
    return v - 0x10000 if v & 0x8000 else v


class TimedIna226(VirtualIna226):
    """An INA226 whose shunt / bus / current / power results come from the last
    finished conversion (0 before the first after a reset or a CONFIG write)."""

    CT_US = (140, 204, 332, 588, 1100, 2116, 4156, 8244)
    AVG = (1, 4, 16, 64, 128, 256, 512, 1024)

    def __init__(self, current_uA: Callable[[], float], shunt_mOhm: float,
                 bus_mV: float = 3300.0, *, time_scale: float = 1.0,
                 now_ns: Callable[[], float] = _now_ns) -> None:
        self.now_ns = now_ns
        self.time_scale = time_scale
        self._t0 = now_ns()
        self._done = 0
        self._last: dict[int, int] = {0x01: 0, 0x02: 0, 0x03: 0, 0x04: 0}
        super().__init__(current_uA, shunt_mOhm, bus_mV)

    def conversion_ns(self) -> float | None:
        """One conversion's time from CONFIG (MODE[2:0]: 0 and 4 power-down, 1-3
        triggered, 5-7 continuous; bit 0 shunt, bit 1 bus), None when powered down."""
        cfg = self.regs.get(0x00, 0x4127)
        mode, vsh, vbus, avg = cfg & 7, cfg >> 3 & 7, cfg >> 6 & 7, cfg >> 9 & 7
        if mode & 3 == 0:
            return None
        us = (self.CT_US[vsh] if mode & 1 else 0) + (self.CT_US[vbus] if mode & 2 else 0)
        return self.AVG[avg] * us * 1e3 * self.time_scale

    def _results(self) -> dict[int, int]:
        period = self.conversion_ns()
        if period is not None:
            n = int((self.now_ns() - self._t0) // period)
            if not self.regs.get(0x00, 0x4127) & 4:   # triggered: one conversion a write
                n = min(n, 1)
            if n > self._done:
                self._done = n
                self._last = super()._results()
        return self._last

    def write_to(self, regaddr: int, out: bytes, relax: bool = True, start: bool = True) -> None:
        super().write_to(regaddr, out, relax, start)
        if regaddr == 0x00:   # a new configuration (or a reset) restarts the conversions
            self._t0, self._done = self.now_ns(), 0
            self._last = {0x01: 0, 0x02: 0, 0x03: 0, 0x04: 0}


class ThermalPlant:
    """dT/dt = (ambient + gain_K x duty - T) / tau, the duty (‰, negative with the
    TEC's cooling pin) reaching the socket `dead_ns` late. Stepped every `step_ns`
    from the PWM pin's high time; `trace` holds (ns, °C) at each step."""

    def __init__(self, dut: Any, *, temp_C: float, ambient_C: float, gain_K: float,
                 tau_ns: float, dead_ns: float, step_ns: float) -> None:
        self.dut = dut
        self.temp = temp_C
        self.ambient_C, self.gain_K, self.tau_ns, self.step_ns = ambient_C, gain_K, tau_ns, step_ns
        self.pending: deque[float] = deque([0.0] * max(1, round(dead_ns / step_ns)))
        self.trace: list[tuple[float, float]] = []
        self._high_ns = 0.0
        self._edge_ns = _now_ns()
        self._level = 0

    def start(self) -> None:
        cocotb.start_soon(self._watch())
        cocotb.start_soon(self._steps())

    def temp_C(self) -> float:
        return self.temp

    def _account(self) -> None:
        now = _now_ns()
        if self._level:
            self._high_ns += now - self._edge_ns
        self._edge_ns = now

    async def _watch(self) -> None:
        while True:
            await self.dut.pwm.value_change
            self._account()
            self._level = int(self.dut.pwm.value)

    async def _steps(self) -> None:
        while True:
            await Timer(self.step_ns, unit="ns")
            self._account()
            duty = 1000.0 * self._high_ns / self.step_ns
            self._high_ns = 0.0
            self.pending.append(-duty if int(self.dut.pwm_cool.value) else duty)
            applied = self.pending.popleft()
            target = self.ambient_C + self.gain_K * applied / 1000.0
            self.temp += (target - self.temp) * self.step_ns / self.tau_ns
            self.trace.append((_now_ns(), self.temp))
