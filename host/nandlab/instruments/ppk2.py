"""Nordic Power Profiler Kit II through its published Python API (`ppk2-api`).

`Ppk2Monitor` uses the PPK2 in source-meter mode: it powers the rail at
`source_mV`, and between `start()` and `stop()` streams samples (100 kS/s,
one every 10 µs) that a background thread drains from the serial port with
host timestamps. `stop()` returns (period ns, samples µA) for a POWER record
and keeps `last_trace` for `window_energy_nJ`. Tests replace the serial port
(`serial.Serial` as ppk2-api opens it) with a fake that speaks the PPK2's
metadata and sample format.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from nandlab.instruments.ina2xx import InstrumentError
from nandlab.instruments.power import PowerTrace

PPK2_PERIOD_NS = 10_000  # 100 kS/s
DRAIN_PERIOD_S = 0.01


class Ppk2Monitor:
    """A PPK2 on `port` (e.g. /dev/ttyACM0) sourcing `source_mV` to the socket's rail."""

    def __init__(self, port: str, source_mV: int, *, api: Any = None) -> None:
        self.port = port
        if api is None:
            from ppk2_api.ppk2_api import PPK2_API

            try:
                api = PPK2_API(port, timeout=1, write_timeout=1)
            except Exception as exc:  # noqa: BLE001 - pyserial errors
                raise InstrumentError(f"cannot open the PPK2 on {port}: {exc}") from None
        self.api = api
        self.source_mV = source_mV
        if not api.get_modifiers():
            raise InstrumentError(f"the PPK2 on {port} sent no calibration metadata")
        api.use_source_meter()
        api.set_source_voltage(source_mV)
        api.toggle_DUT_power("ON")
        self.last_trace: PowerTrace | None = None
        self._chunks: list[bytes] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._start_ns = 0

    def describe(self) -> dict[str, Any]:
        """For the run's snapshot: the serial port and the source voltage."""
        return {"kind": "ppk2", "port": self.port, "source_mV": self.source_mV,
                "period_ns": PPK2_PERIOD_NS}

    def start(self) -> None:
        self._chunks = []
        self._stop.clear()
        self.api.start_measuring()
        self._start_ns = time.monotonic_ns()
        self._thread = threading.Thread(target=self._drain, name="ppk2-drain", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while not self._stop.is_set():
            self._chunks.append(bytes(self.api.get_data()))
            self._stop.wait(DRAIN_PERIOD_S)

    def stop(self) -> tuple[int, list[int]]:
        if self._thread is None:
            raise InstrumentError("power window stopped before it was started")
        self._stop.set()
        self._thread.join(timeout=1.0)
        self._thread = None
        self.api.stop_measuring()
        self._chunks.append(bytes(self.api.get_data()))
        samples: list[float] = []
        for chunk in self._chunks:
            if chunk:
                got, _digital = self.api.get_samples(chunk)
                samples += got
        self.last_trace = PowerTrace(self._start_ns, PPK2_PERIOD_NS, tuple(samples),
                                     float(self.source_mV))
        return PPK2_PERIOD_NS, [max(0, round(s)) for s in samples]

    def close(self) -> None:
        self.api.toggle_DUT_power("OFF")
