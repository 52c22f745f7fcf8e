"""Supply current of a virtual die, from a log of activity phases.

The die records what it does as phases on its virtual clock: I/O transfer
(command, address and data cycles), read sensing, program and erase. Each
phase kind draws the current the profile gives for it (`profile.power`,
mA); when nothing runs the die draws `idle_mA`. Phases that overlap (a cache
read streams data while the array senses the next page, a multi-plane
program runs one phase per plane) add their increments above idle:

    I(t) = idle_mA + sum over active phases of (phase_mA - idle_mA)

Data out is the one phase whose current follows the bus rate: the die's output
drivers charge the load of every line they drive, C x VccQ per rising edge, so
on top of the static `io_mA` a byte stream at `r` bytes/s draws

    I_out = io_mA + io_load_pF x VccQ x io_rises_per_byte x r

(`io_out_mA`; with `io_load_pF` 0 every I/O phase draws the flat `io_mA`).
Command, address and data-in cycles are driven by the controller, whose
drivers charge the lines: the die draws its static `io_mA` for them.

`trace` integrates I(t) exactly over each sample period (like an
integrating power monitor), so the samples sum to the true charge. Energy
uses VCCQ for I/O phases and VCC for everything else.

The log is bounded: contiguous phases of one kind merge into one, at most
`max_phases` are kept (oldest dropped first), and `discard_before` drops
what a consumer has already read.
"""

from __future__ import annotations

from collections import deque
from enum import Enum

import numpy as np

from nandlab.profiles.model import Power


class Phase(Enum):
    IO = "io"
    READ = "read"
    PROGRAM = "program"
    ERASE = "erase"


class PowerLog:
    """Activity phases of one die and the supply current they draw."""

    def __init__(self, power: Power, max_phases: int = 100_000) -> None:
        self._power = power
        self._mA = {
            Phase.IO: power.io_mA,
            Phase.READ: power.read_mA,
            Phase.PROGRAM: power.program_mA,
            Phase.ERASE: power.erase_mA,
        }
        # (start_ns, end_ns, kind, mA), in the order they were recorded
        self._phases: deque[tuple[int, int, Phase, float]] = deque(maxlen=max_phases)

    def io_out_mA(self, byte_ps: int) -> float:
        """VCCQ current of data out at one byte every `byte_ps` ps: the static `io_mA` plus
        the switching current C x VccQ x rising edges per second (pF x V / ps = A)."""
        p = self._power
        return p.io_mA + 1000.0 * p.io_load_pF * p.vccq_V * p.io_rises_per_byte / byte_ps

    def __len__(self) -> int:
        return len(self._phases)

    def add(self, start_ns: int, end_ns: int, kind: Phase, mA: float | None = None) -> None:
        """Record `kind` running over [start_ns, end_ns), drawing `mA` (default: the
        profile's current for the kind; a multi-block MWS draws more than a read)."""
        if end_ns <= start_ns:
            return
        cur = self._mA[kind] if mA is None else float(mA)
        if self._phases:
            s, e, k, m = self._phases[-1]
            if k is kind and e == start_ns and m == cur:
                self._phases[-1] = (s, end_ns, k, m)
                return
        self._phases.append((start_ns, end_ns, kind, cur))

    def add_read(self, start_ns: int, end_ns: int, setup_ns: int) -> None:
        """Record a read over [start_ns, end_ns). With `power.read_setup_mA` set, its first
        `setup_ns` (charge-pump ramp, WL and bitline precharge) draw that current and the
        sensings after it `read_mA`; else the whole read draws `read_mA`."""
        t = start_ns
        for dur, mA in self._power.read_current(end_ns - start_ns, setup_ns):
            self.add(t, t + dur, Phase.READ, mA)
            t += dur

    def truncate_after(self, t_ns: int) -> None:
        """Cut every phase at `t_ns` (RESET aborts what the array was doing)."""
        kept = deque(
            ((s, min(e, t_ns), k, m) for s, e, k, m in self._phases if s < t_ns),
            maxlen=self._phases.maxlen,
        )
        self._phases = kept

    def discard_before(self, t_ns: int) -> None:
        """Forget phases that ended at or before `t_ns` (already consumed)."""
        self._phases = deque((p for p in self._phases if p[1] > t_ns), maxlen=self._phases.maxlen)

    def _charge_curve(self, t0: int, t1: int) -> tuple[np.ndarray, np.ndarray]:
        """Breakpoints and cumulative extra charge (mA*ns above idle) from t0, exact at them."""
        idle = self._power.idle_mA
        events: list[tuple[int, float]] = []
        for s, e, _k, m in self._phases:
            if e <= t0 or s >= t1:
                continue
            extra = m - idle
            events.append((max(s, t0), extra))
            events.append((min(e, t1), -extra))
        if not events:
            return np.array([t0, t1], dtype=np.float64), np.zeros(2)
        events.sort()
        times = np.array([t0] + [t for t, _ in events] + [t1], dtype=np.float64)
        rates = np.concatenate(([0.0], np.cumsum([d for _, d in events]), [0.0]))
        # rate on [times[i], times[i+1]) is rates[i]
        charge = np.concatenate(([0.0], np.cumsum(rates[:-1] * np.diff(times))))
        return times, charge

    def trace(self, t0_ns: int, t1_ns: int, period_ns: int) -> np.ndarray:
        """Mean supply current (µA, int64) over each period in [t0_ns, t1_ns)."""
        if period_ns <= 0:
            raise ValueError(f"period_ns must be > 0, got {period_ns}")
        n = max(0, (t1_ns - t0_ns) // period_ns)
        if n == 0:
            return np.zeros(0, dtype=np.int64)
        end = t0_ns + n * period_ns
        times, charge = self._charge_curve(t0_ns, end)
        edges = t0_ns + period_ns * np.arange(n + 1, dtype=np.float64)
        q = np.interp(edges, times, charge)
        mean_mA = self._power.idle_mA + np.diff(q) / period_ns
        return np.rint(mean_mA * 1000.0).astype(np.int64)

    def energy_nJ(self, t0_ns: int, t1_ns: int) -> float:
        """Energy drawn over [t0_ns, t1_ns) in nJ (mA x V x ns = pJ)."""
        if t1_ns <= t0_ns:
            return 0.0
        p = self._power
        pj = p.idle_mA * p.vcc_V * (t1_ns - t0_ns)
        for s, e, k, m in self._phases:
            lo, hi = max(s, t0_ns), min(e, t1_ns)
            if hi > lo:
                volts = p.vccq_V if k is Phase.IO else p.vcc_V
                pj += (m - p.idle_mA) * volts * (hi - lo)
        return pj / 1000.0
