"""Time and power of a virtual die: the virtual clock, R/B# and ARDY, the results of
completed operations (what READ STATUS reports) and the supply current log.

Every bus cycle advances the clock by the interface timing mode's cycle time and
logs an I/O phase; an array operation holds R/B# low until its modelled end and
queues behind an array still busy from a cache operation (start = max(now, ARDY)).
Status: FAIL is the last completed operation's result (reads pass); FAILC is the
result of the operation before it when that one was a cache program; READ STATUS
ENHANCED (78h) reports the addressed plane only.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from nandlab.onfi_spec.opcodes import Status
from nandlab.onfi_spec.sdr_timing import SdrTiming, sdr
from nandlab.profiles.model import Power
from nandlab.vchip.power import Phase, PowerLog

US = 1000  # ns per µs


@dataclass
class _OpRecord:
    done_ns: int
    fail: tuple[bool, ...]  # per plane
    cache: bool = False  # a cache operation: FAILC reports it once the next op is done
    flags: int = 0  # vendor status bits of the result (CoX-PM's outcome in bits 3-4)


class DieClock:
    """Virtual clock (ns), R/B# / ARDY and the operation results of one die.

    Args:
        power: the profile's supply currents (for the `PowerLog`).
        planes: planes of the die (status keeps a pass / fail per plane).
    """

    def __init__(self, power: Power, planes: int) -> None:
        self.now_ns = 0
        self.rdy_from = 0  # start of the current or last R/B# low period
        self.rdy_until = 0  # R/B# returns high here
        self.ardy_until = 0  # the array part of a cache operation ends here
        self.timing: SdrTiming = sdr(0)
        self.power = PowerLog(power)
        self._planes = planes
        self._all_pass = (False,) * planes
        self._ops: deque[_OpRecord] = deque(maxlen=4)

    @property
    def last_busy_ns(self) -> int:
        return self.rdy_until - self.rdy_from

    def advance(self, ns: int) -> None:
        if ns < 0:
            raise ValueError(f"time only moves forward: advance({ns})")
        self.now_ns += int(ns)

    def wait_ready(self, timeout_ns: int) -> int | None:
        if self.now_ns >= self.rdy_until:
            return self.last_busy_ns
        if self.rdy_until - self.now_ns <= timeout_ns:
            self.now_ns = self.rdy_until
            return self.last_busy_ns
        self.now_ns += int(timeout_ns)
        return None

    def bus(self, ns: int, mA: float | None = None) -> int:
        """Bus cycles of `ns` from now (an I/O phase drawing `mA`, default the profile's
        io_mA); returns their start."""
        start = self.now_ns
        self.now_ns += ns
        self.power.add(start, self.now_ns, Phase.IO, mA)
        return start

    def busy(self, until_ns: int, array_until_ns: int | None = None) -> None:
        """R/B# low from now until `until_ns`; ARDY low until `array_until_ns` if later."""
        self.rdy_from = self.now_ns
        self.rdy_until = max(until_ns, self.now_ns)
        self.ardy_until = max(self.rdy_until, array_until_ns or 0, self.ardy_until)

    def array_start(self) -> int:
        """When an array operation issued now starts (after any cache operation's array part)."""
        return max(self.now_ns, self.ardy_until)

    def record(
        self, done_ns: int, fail: dict[int, bool], cache: bool = False, flags: int = 0
    ) -> None:
        """An operation that completes at `done_ns`, failed on the planes `fail` marks; its
        status shows the vendor bits `flags` once it is done, until the next one is."""
        # most operations pass on every plane: no per-plane lookups for them
        fails = tuple(fail.get(p, False) for p in range(self._planes)) if fail else self._all_pass
        self._ops.append(_OpRecord(done_ns, fails, cache, flags))

    def complete(self, end_ns: int, fail: dict[int, bool] | None = None, flags: int = 0) -> None:
        """An operation that holds R/B# low until `end_ns` and then passes (or fails per plane)."""
        self.record(end_ns, fail or {}, flags=flags)
        self.busy(end_ns)

    def status(self, t_ns: int, write_protect: bool, plane: int | None) -> int:
        """Status byte at `t_ns`: RDY, ARDY, WP#, FAIL and FAILC (of `plane`, or any plane)."""
        s = 0 if write_protect else Status.WP_N
        if t_ns >= self.rdy_until:
            s |= Status.RDY
        if t_ns >= self.ardy_until:
            s |= Status.ARDY
        done = [op for op in self._ops if op.done_ns <= t_ns]

        def failed(op: _OpRecord) -> bool:
            return op.fail[plane] if plane is not None else any(op.fail)

        if done:
            s |= done[-1].flags
        if done and failed(done[-1]):
            s |= Status.FAIL
        if len(done) > 1 and done[-2].cache and failed(done[-2]):
            s |= Status.FAILC
        return int(s)

    def reset(self, t_rst_ns: int) -> None:
        """RESET: cut the aborted operation's power phases, forget results, busy tRST."""
        self.power.truncate_after(self.now_ns)
        self.timing = sdr(0)
        self._ops.clear()
        self.ardy_until = self.now_ns
        self.busy(self.now_ns + t_rst_ns)
