"""Bench instruments: power monitors (INA226 / INA228 over I2C, Nordic PPK2) and
SCPI temperature control, as a board file declares them.

- `Ina226`, `Ina228`, `Ina2xxMonitor`, `open_ina_monitor(board)`; test doubles
  `VirtualIna226`, `VirtualIna228` (I2C register models).
- `Ppk2Monitor` (ppk2-api).
- `ScpiTemperature` (pyvisa; pyvisa-sim definition in `nandlab/instruments/sim/chamber.yaml`).
- `PowerTrace`, `window_energy_nJ`: energy of an operation from samples aligned to its window.
- `open_instruments(board)`: the board's power monitor and temperature controller.
"""

from __future__ import annotations

from nandlab.boards.model import Board
from nandlab.instruments.ina2xx import (
    Ina2xxMonitor,
    Ina226,
    Ina228,
    InstrumentError,
    make_monitor,
    open_ina_monitor,
)
from nandlab.instruments.power import PowerTrace, SamplingThread, window_energy_nJ
from nandlab.instruments.ppk2 import Ppk2Monitor
from nandlab.instruments.scpi import ScpiTemperature
from nandlab.instruments.virtual_ina import VirtualIna226, VirtualIna228


def open_instruments(
    board: Board,
) -> tuple[Ina2xxMonitor | Ppk2Monitor | None, ScpiTemperature | None]:
    """(power monitor or None, temperature controller or None) the board file declares."""
    power: Ina2xxMonitor | Ppk2Monitor | None = None
    pm = board.power_monitor
    if pm is not None and pm.kind in ("ina226", "ina228"):
        power = open_ina_monitor(board)
    elif pm is not None and pm.kind == "ppk2":
        if pm.serial_port is None:
            raise InstrumentError(f"board {board.name}: the PPK2 needs serial_port")
        rail = next(r for r in board.rails if r.name == pm.rail)
        power = Ppk2Monitor(pm.serial_port, rail.nominal_mV)
    temperature = ScpiTemperature(board.temperature) if board.temperature is not None else None
    return power, temperature


__all__ = [
    "Ina226",
    "Ina228",
    "Ina2xxMonitor",
    "InstrumentError",
    "PowerTrace",
    "Ppk2Monitor",
    "SamplingThread",
    "ScpiTemperature",
    "VirtualIna226",
    "VirtualIna228",
    "make_monitor",
    "open_ina_monitor",
    "open_instruments",
    "window_energy_nJ",
]
