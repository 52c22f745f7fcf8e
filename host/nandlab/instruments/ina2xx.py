"""TI INA226 / INA228 shunt monitors on the bench's I2C bus.

The drivers talk to an I2C register port with pyftdi's `I2cPort` methods
(`read_from(regaddr, readlen)`, `write_to(regaddr, out)`): on an FT2232H
bench that is channel B in MPSSE I2C mode (`open_ina_monitor`). In tests a
`VirtualIna226` / `VirtualIna228` register model is an I2C slave of the
virtual FT2232H (`nandlab.vusb`), or stands in for the port directly.

Register facts (TI datasheets; the addresses, IDs and settings are
`nandlab.instruments.ina2xx_map`'s, which the firmware's driver shares):
- INA226: CONFIG 00h, SHUNT 01h (2.5 µV/LSB), BUS 02h (1.25 mV/LSB), POWER
  03h (25 x current LSB), CURRENT 04h (signed), CALIBRATION 05h =
  0.00512 / (current LSB x R_shunt); IDs FEh = 5449h ("TI"), FFh = 2260h.
- INA228: CONFIG 00h, ADC_CONFIG 01h, SHUNT_CAL 02h = 13107.2e6 x current
  LSB x R_shunt, VBUS 05h (20 bits in [23:4], 195.3125 µV/LSB), CURRENT 07h
  (signed 20 bits in [23:4]), POWER 08h (24 bits, 3.2 x current LSB); IDs
  3Eh = 5449h, 3Fh[15:4] = 228h. Current LSB = max current / 2^19 (2^15 on
  the INA226).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from nandlab.boards.model import Board, MonitorChannel
from nandlab.errors import NandlabError
from nandlab.instruments.ina2xx_map import (
    INA226,
    INA226_CAL_NUM,
    INA228,
    INA228_CAL_NUM,
    RESET,
    TI_ID,
)
from nandlab.instruments.power import PowerTrace, SamplingThread


class InstrumentError(NandlabError):
    """An instrument is missing, answers wrongly or cannot be reached."""


class RegisterPort(Protocol):
    """pyftdi I2cPort's register access."""

    def read_from(self, regaddr: int, readlen: int = 0, relax: bool = True,
                  start: bool = True) -> bytes: ...

    def write_to(self, regaddr: int, out: bytes, relax: bool = True,
                 start: bool = True) -> None: ...


@dataclass
class Ina226:
    """One INA226 on a rail: `current_uA()`, `bus_mV()`, `power_uW()`.

    Args:
        port: its I2C register port.
        shunt_mOhm: shunt resistance (mΩ).
        max_current_mA: the largest current to measure; sets the current LSB.
    """

    port: RegisterPort
    shunt_mOhm: float
    max_current_mA: float
    name: str = "INA226"

    CONFIG, SHUNT, BUS, POWER, CURRENT, CALIBRATION = (
        INA226.regs[r] for r in ("CONFIG", "SHUNT", "BUS", "POWER", "CURRENT", "CALIBRATION"))
    MANUFACTURER_ID, DIE_ID = INA226.regs["MANUFACTURER_ID"], INA226.regs["DIE_ID"]
    DIE = INA226.die
    # no averaging, bus and shunt conversions 588 µs each, both continuous: a new
    # current every ~1.2 ms (the board's sample_period_us)
    CONFIG_VALUE = INA226.config

    def __post_init__(self) -> None:
        self.current_lsb_A = self.max_current_mA / 1000 / 2 ** (INA226.current_bits - 1)

    def _r16(self, reg: int) -> int:
        return int.from_bytes(bytes(self.port.read_from(reg, 2)), "big")

    def _w16(self, reg: int, value: int) -> None:
        self.port.write_to(reg, value.to_bytes(2, "big"))

    def configure(self) -> None:
        """Check the IDs, reset, set averaging / conversion and the calibration."""
        maker, die = self._r16(self.MANUFACTURER_ID), self._r16(self.DIE_ID)
        if maker != TI_ID or die != self.DIE:
            raise InstrumentError(
                f"{self.name}: IDs {maker:04X}h/{die:04X}h, expected {TI_ID:04X}h/{self.DIE:04X}h"
            )
        self._w16(self.CONFIG, RESET)
        self._w16(self.CONFIG, self.CONFIG_VALUE)
        cal = round(INA226_CAL_NUM / (self.current_lsb_A * self.shunt_mOhm / 1000))
        if not 0 < cal < 0x8000:
            raise InstrumentError(f"{self.name}: calibration {cal} out of range: check shunt and "
                                  "max current in the board file")
        self._w16(self.CALIBRATION, cal)

    def current_uA(self) -> float:
        raw = self._r16(self.CURRENT)
        raw -= (raw & 0x8000) << 1
        return raw * self.current_lsb_A * 1e6

    def bus_mV(self) -> float:
        return self._r16(self.BUS) * 1.25

    def power_uW(self) -> float:
        return self._r16(self.POWER) * 25 * self.current_lsb_A * 1e6


@dataclass
class Ina228(Ina226):
    """INA228: 20-bit current and bus voltage, same use as `Ina226`."""

    name: str = "INA228"

    ADC_CONFIG, SHUNT_CAL, VBUS, CURRENT228, POWER228 = (
        INA228.regs[r] for r in ("ADC_CONFIG", "SHUNT_CAL", "VBUS", "CURRENT", "POWER"))
    MANUFACTURER_ID, DIE_ID = INA228.regs["MANUFACTURER_ID"], INA228.regs["DIE_ID"]
    DIE = INA228.die

    def __post_init__(self) -> None:
        self.current_lsb_A = self.max_current_mA / 1000 / 2 ** (INA228.current_bits - 1)

    def _r24(self, reg: int) -> int:
        return int.from_bytes(bytes(self.port.read_from(reg, 3)), "big")

    def configure(self) -> None:
        maker, die = self._r16(self.MANUFACTURER_ID), self._r16(self.DIE_ID) >> INA228.die_shift
        if maker != TI_ID or die != self.DIE:
            raise InstrumentError(
                f"{self.name}: IDs {maker:04X}h/{die:03X}h, expected {TI_ID:04X}h/{self.DIE:03X}h"
            )
        self._w16(self.CONFIG, RESET)
        # continuous bus + shunt, 540 µs conversions, no averaging: ~1.1 ms per result
        self._w16(self.ADC_CONFIG, INA228.config)
        cal = round(INA228_CAL_NUM * self.current_lsb_A * self.shunt_mOhm / 1000)
        if not 0 < cal < 0x8000:
            raise InstrumentError(f"{self.name}: SHUNT_CAL {cal} out of range: check shunt and "
                                  "max current in the board file")
        self._w16(self.SHUNT_CAL, cal)

    def current_uA(self) -> float:
        raw = self._r24(self.CURRENT228) >> 4
        raw -= (raw & 0x80000) << 1
        return raw * self.current_lsb_A * 1e6

    def bus_mV(self) -> float:
        return (self._r24(self.VBUS) >> 4) * 0.1953125

    def power_uW(self) -> float:
        return self._r24(self.POWER228) * 3.2 * self.current_lsb_A * 1e6


class Ina2xxMonitor:
    """Power windows from INA226 / INA228 monitors on the board's rails.

    `start()` samples every monitor every `sample_period_us` on a background
    thread; `stop()` returns (period ns, summed supply current µA per sample)
    for a POWER record and keeps the full `last_trace` (host clock) for
    `window_energy_nJ`. The trace's voltage is the first rail's bus voltage
    at start.
    """

    def __init__(self, monitors: list[Ina226], sample_period_us: float) -> None:
        if not monitors:
            raise InstrumentError("an INA power monitor needs at least one channel")
        self.monitors = monitors
        self.period_ns = round(sample_period_us * 1000)
        self.last_trace: PowerTrace | None = None
        self._sampler: SamplingThread | None = None
        for m in monitors:
            m.configure()

    def current_uA(self) -> float:
        return sum(m.current_uA() for m in self.monitors)

    def describe(self) -> dict[str, Any]:
        """For the run's snapshot: each channel's chip, rail and shunt, and the sample period."""
        return {
            "kind": "ina2xx",
            "channels": [{"name": m.name, "shunt_mOhm": m.shunt_mOhm} for m in self.monitors],
            "period_ns": self.period_ns,
        }

    def start(self) -> None:
        self._sampler = SamplingThread(self.current_uA, self.period_ns, self.monitors[0].bus_mV())
        self._sampler.start()

    def stop(self) -> tuple[int, list[int]]:
        if self._sampler is None:
            raise InstrumentError("power window stopped before it was started")
        self.last_trace = self._sampler.stop()
        self._sampler = None
        return self.period_ns, [max(0, round(s)) for s in self.last_trace.samples_uA]


def make_monitor(kind: str, port: RegisterPort, channel: MonitorChannel) -> Ina226:
    """The driver for `kind` ("ina226" / "ina228") on `port`."""
    cls = Ina228 if kind == "ina228" else Ina226
    return cls(port, channel.shunt_mOhm, channel.max_current_mA, name=f"{kind} {channel.rail}")


def open_ina_monitor(board: Board) -> Ina2xxMonitor:
    """The board's INA monitors over pyftdi's MPSSE I2C master at `power_monitor.i2c_url`."""
    from pyftdi.i2c import I2cController

    pm = board.power_monitor
    if pm is None or pm.kind not in ("ina226", "ina228") or pm.i2c_url is None:
        raise InstrumentError(f"board {board.name} declares no INA226 / INA228 power monitor")
    i2c = I2cController()
    try:
        i2c.configure(pm.i2c_url, frequency=pm.i2c_frequency_hz)
    except Exception as exc:  # noqa: BLE001 - pyftdi / pyusb errors
        raise InstrumentError(f"cannot open the I2C master {pm.i2c_url}: {exc}") from None
    monitors = [make_monitor(pm.kind, i2c.get_port(c.i2c_address), c) for c in pm.channels]
    for monitor, channel in zip(monitors, pm.channels, strict=True):
        try:
            monitor.configure()
        except InstrumentError:
            raise
        except Exception as exc:  # noqa: BLE001 - pyftdi I2cNackError / I2cIOError
            raise InstrumentError(
                f"no answer from the {pm.kind} of rail {channel.rail} at I2C address "
                f"0x{channel.i2c_address:02X} on {pm.i2c_url}: {exc}; check the address and "
                "the wiring in the board file") from None
    return Ina2xxMonitor(monitors, pm.sample_period_us)
