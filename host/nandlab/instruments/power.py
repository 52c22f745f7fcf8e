"""Supply-current traces and the energy of an operation window.

A `PowerTrace` is what a power monitor records between `start()` and
`stop()`: samples (µA) every `period_ns`, the first one starting at
`start_ns` on the host's monotonic clock, at supply voltage `voltage_mV`.
`window_energy_nJ` integrates the samples that overlap an operation's window
[t0, t1) (same clock), weighting partly covered samples by their overlap, so
energy per operation comes from samples aligned to the operation.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class PowerTrace:
    """Current samples (µA) of one window; sample i covers start + [i, i+1) * period."""

    start_ns: int
    period_ns: int
    samples_uA: tuple[float, ...]
    voltage_mV: float

    @property
    def end_ns(self) -> int:
        return self.start_ns + self.period_ns * len(self.samples_uA)


def window_energy_nJ(trace: PowerTrace, t0_ns: int, t1_ns: int) -> float:
    """Energy (nJ) drawn in [t0_ns, t1_ns) according to the trace (0 outside it)."""
    if t1_ns <= t0_ns or not trace.samples_uA:
        return 0.0
    p = trace.period_ns
    first = max(0, (t0_ns - trace.start_ns) // p)
    last = min(len(trace.samples_uA), -(-(t1_ns - trace.start_ns) // p))
    total = 0.0
    for i in range(int(first), int(last)):
        s0 = trace.start_ns + i * p
        overlap = min(t1_ns, s0 + p) - max(t0_ns, s0)
        if overlap > 0:
            total += overlap * trace.samples_uA[i]
    return total * trace.voltage_mV * 1e-9  # ns * µA * mV = 1e-18 J = 1e-9 nJ


@dataclass
class SamplingThread:
    """Calls `read_uA()` every `period_ns` on a background thread between start() and stop().

    Used by monitors that are polled (INA226 / INA228). The timestamps are
    the host's monotonic clock; a read that takes longer than the period
    delays the next one (the trace keeps the nominal period: its samples are
    the monitor's averages over its own conversion time).
    """

    read_uA: Callable[[], float]
    period_ns: int
    voltage_mV: float
    max_samples: int = 1_000_000
    _samples: list[float] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _start_ns: int = 0
    error: BaseException | None = None

    def start(self) -> None:
        self._samples = []
        self._stop.clear()
        self.error = None
        self._start_ns = time.monotonic_ns()
        self._thread = threading.Thread(target=self._loop, name="power-sampler", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        next_t = self._start_ns
        while not self._stop.is_set() and len(self._samples) < self.max_samples:
            try:
                self._samples.append(self.read_uA())
            except Exception as exc:  # noqa: BLE001 - reported by stop()
                self.error = exc
                return
            next_t += self.period_ns
            delay = (next_t - time.monotonic_ns()) / 1e9
            if delay > 0:
                self._stop.wait(delay)

    def stop(self) -> PowerTrace:
        """Stop sampling (waits at most 1 s for the thread) and return the trace."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
        if self.error is not None:
            raise self.error
        return PowerTrace(self._start_ns, self.period_ns, tuple(self._samples), self.voltage_mV)
