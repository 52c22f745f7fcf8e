"""Register models of the INA226 and INA228 that stand in for an I2C port in tests.

They answer pyftdi `I2cPort` calls (`read_from`, `write_to`) like the chips:
ID registers, reset through CONFIG bit 15, the calibration register, and
current / bus / power results computed from `current_uA()` (a callable, so
a test can feed a virtual die's supply current) and a fixed bus voltage.
"""

from __future__ import annotations

from collections.abc import Callable

TI_ID = 0x5449


class VirtualIna226:
    """An INA226 on a shunt of `shunt_mOhm`, measuring `current_uA()` at `bus_mV`."""

    def __init__(self, current_uA: Callable[[], float], shunt_mOhm: float,
                 bus_mV: float = 3300.0) -> None:
        self.current_uA = current_uA
        self.shunt_mOhm = shunt_mOhm
        self.bus_mV = bus_mV
        self.regs: dict[int, int] = {}
        self.writes: list[tuple[int, bytes]] = []
        self._reset()

    def _reset(self) -> None:
        self.regs = {0x00: 0x4127, 0x05: 0, 0xFE: TI_ID, 0xFF: 0x2260}

    def _results(self) -> dict[int, int]:
        shunt_uV = self.current_uA() * self.shunt_mOhm / 1000
        shunt = round(shunt_uV / 2.5)
        cal = self.regs.get(0x05, 0)
        current = round(shunt * cal / 2048)
        bus = round(self.bus_mV / 1.25)
        power = round(abs(current) * bus / 20000)
        return {0x01: shunt & 0xFFFF, 0x02: bus, 0x03: power, 0x04: current & 0xFFFF}

    def read_from(self, regaddr: int, readlen: int = 0, relax: bool = True,
                  start: bool = True) -> bytes:
        value = self._results().get(regaddr, self.regs.get(regaddr, 0))
        return value.to_bytes(2, "big")[:readlen]

    def write_to(self, regaddr: int, out: bytes, relax: bool = True, start: bool = True) -> None:
        self.writes.append((regaddr, bytes(out)))
        value = int.from_bytes(bytes(out), "big")
        if regaddr == 0x00 and value & 0x8000:
            self._reset()
            return
        self.regs[regaddr] = value


class VirtualIna228(VirtualIna226):
    """An INA228: 20-bit results in 24-bit registers; current LSB from SHUNT_CAL."""

    def _reset(self) -> None:
        self.regs = {0x00: 0, 0x01: 0xFB68, 0x02: 0x1000, 0x3E: TI_ID, 0x3F: 0x2281}

    def _results24(self) -> dict[int, int]:
        cal = self.regs.get(0x02, 0)
        r = self.shunt_mOhm / 1000
        lsb_A = cal / (13107.2e6 * r) if cal else 1.0
        current = round(self.current_uA() * 1e-6 / lsb_A)
        bus = round(self.bus_mV / 0.1953125)
        power = round(abs(current * lsb_A) * self.bus_mV / 1000 / (3.2 * lsb_A))
        return {0x05: bus << 4, 0x07: (current & 0xFFFFF) << 4, 0x08: power & 0xFFFFFF}

    def read_from(self, regaddr: int, readlen: int = 0, relax: bool = True,
                  start: bool = True) -> bytes:
        wide = self._results24()
        if regaddr in wide:
            return wide[regaddr].to_bytes(3, "big")[:readlen]
        return self.regs.get(regaddr, 0).to_bytes(2, "big")[:readlen]
