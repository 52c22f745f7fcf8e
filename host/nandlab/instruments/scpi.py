"""A SCPI temperature controller or chamber through pyvisa (pyvisa-sim in tests).

`ScpiTemperature.read_C()` queries the board file's `read_command`;
`set_C()` checks the board's range and writes `setpoint_command`;
`settle(target)` polls until the reading stays within the settle band, with
a timeout (never waits for ever). The measured temperature goes into the
dataset (`temperature_C` of the bench).
"""

from __future__ import annotations

import time
from typing import Any

from nandlab.boards.model import TemperatureControl
from nandlab.errors import RangeError
from nandlab.instruments.ina2xx import InstrumentError


def sim_resource_manager() -> Any:
    """A pyvisa ResourceManager on pyvisa-sim's simulated chamber (sim/chamber.yaml)."""
    from importlib import resources

    import pyvisa

    definition = resources.files("nandlab.instruments.sim").joinpath("chamber.yaml")
    return pyvisa.ResourceManager(f"{definition}@sim")


class ScpiTemperature:
    """The temperature controller a board file declares.

    Args:
        settings: the board's `temperature` section.
        resource_manager: a pyvisa ResourceManager ("@sim" one in tests); the default
            backend otherwise.
        timeout_ms: VISA I/O timeout of each query.
    """

    def __init__(self, settings: TemperatureControl, resource_manager: Any = None,
                 timeout_ms: int = 2000) -> None:
        import pyvisa

        self.settings = settings
        try:
            rm = resource_manager if resource_manager is not None else pyvisa.ResourceManager()
            self.inst: Any = rm.open_resource(
                settings.resource, read_termination=settings.read_termination,
                write_termination=settings.write_termination, timeout=timeout_ms,
            )
        except Exception as exc:  # noqa: BLE001 - pyvisa errors
            raise InstrumentError(f"cannot open temperature controller {settings.resource}: "
                                  f"{exc}") from None

    def identify(self) -> str:
        return str(self.inst.query("*IDN?")).strip()

    def describe(self) -> dict[str, Any]:
        """For the run's snapshot: the VISA resource, its *IDN? answer and the settle band."""
        try:
            idn: str | None = self.identify()
        except Exception:  # noqa: BLE001 - a controller without *IDN? still runs
            idn = None
        return {
            "kind": "scpi",
            "resource": self.settings.resource,
            "idn": idn,
            "settle_band_C": self.settings.settle_band_C,
        }

    def read_C(self) -> float:
        """The measured temperature (°C)."""
        try:
            text = str(self.inst.query(self.settings.read_command)).strip()
        except Exception as exc:  # noqa: BLE001 - pyvisa errors (timeouts included)
            raise InstrumentError(f"temperature read failed ({self.settings.read_command}): "
                                  f"{exc}") from None
        try:
            return float(text)
        except ValueError:
            raise InstrumentError(f"temperature controller answered '{text}' to "
                                  f"{self.settings.read_command}, not a number") from None

    def set_C(self, value: float) -> None:
        """Set the setpoint (°C), within the board file's min_C..max_C."""
        s = self.settings
        if not s.min_C <= value <= s.max_C:
            raise RangeError(f"temperature setpoint {value} °C is outside {s.min_C}..{s.max_C} °C "
                             f"(board file temperature.min_C / max_C)")
        self.inst.write(s.setpoint_command.format(value=value))

    def settle(self, target: float, *, poll_s: float | None = None, stable_reads: int = 3,
               timeout_s: float | None = None) -> float:
        """Set `target` and wait until `stable_reads` readings in a row are within the band.

        Readings come every `poll_s` (default: the board's settle_poll_s). Returns the
        last reading; InstrumentError after `timeout_s` (default: settle_timeout_s).
        """
        poll_s = self.settings.settle_poll_s if poll_s is None else poll_s
        self.set_C(target)
        limit = self.settings.settle_timeout_s if timeout_s is None else timeout_s
        deadline = time.monotonic() + limit
        inside = 0
        while True:
            reading = self.read_C()
            inside = inside + 1 if abs(reading - target) <= self.settings.settle_band_C else 0
            if inside >= stable_reads:
                return reading
            if time.monotonic() > deadline:
                raise InstrumentError(f"temperature did not settle at {target} °C within "
                                      f"{limit} s (last reading {reading} °C)")
            time.sleep(poll_s)

    def close(self) -> None:
        self.inst.close()
