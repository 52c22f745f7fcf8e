"""The socket side of a virtual bench: virtual dies on the ONFI pins.

`NandBus` takes pin levels from a controller model (the virtual FT2232H's MCU
host bus or bit-bang pins), plays the die the way a real die sees the bus,
and sends every edge to the ONFI SDR timing checker in the die's current
timing mode:

- WE# rising with CE# low: CLE=1 latches a command, ALE=1 an address byte,
  else a data byte, with the levels held just before the edge.
- RE# falling: the die's next byte; it is valid on DQ from tREA after the
  fall. A controller that samples earlier reads the byte inverted (and the
  checker records tREA).
- R/B#: low from the latch that starts a busy period until the die is ready.
- WP#: drives the die's WP#.

Time is in integer picoseconds. The die's clock follows bus time: before a
cycle the die is advanced so that its own cycle (tWC / tRC) ends at the
latching edge. `stuck_busy` models a board fault: R/B# held low for ever.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nandlab.vchip.die import VirtualDie
from nandlab.vchip.pin_timing import SdrTimingChecker, TimingViolation

PS = 1000  # ps per ns
NEVER_PS = 1 << 62


@dataclass
class BusStats:
    """Counts of what crossed the pins."""

    cmd_cycles: int = 0
    addr_cycles: int = 0
    din_bytes: int = 0
    dout_bytes: int = 0
    rb_samples: int = 0


@dataclass
class NandBus:
    """One socket: a virtual die on CE#0 of the ONFI pins.

    Args:
        die: the virtual die answering the bus.
        record: keep every (t_ps, pin, level) edge in `edges` (tests only: memory grows).
        stuck_busy: board fault: R/B# never returns high.
    """

    die: VirtualDie
    record: bool = False
    stuck_busy: bool = False
    edges: list[tuple[int, str, int]] = field(default_factory=list)
    stats: BusStats = field(default_factory=BusStats)

    def __post_init__(self) -> None:
        self.checker = SdrTimingChecker(self.die.timing_mode,
                                        t_ccs_ns=self.die.profile.timing.t_ccs_ns)
        self.level: dict[str, int] = {"ce_n": 1, "cle": 0, "ale": 0, "we_n": 1, "re_n": 1,
                                      "dq": 0, "dq_oe": 0, "rb_n": 1, "wp_n": 0}
        self.die.set_wp(True)
        self.checker.level["wp_n"] = 0  # the socket powers up write-protected (no edge)
        self._out_byte = 0xFF
        self._out_valid_ps = 0
        self._busy_start_ns: int | None = None

    @property
    def violations(self) -> list[TimingViolation]:
        return self.checker.violations

    # ------------------------------------------------------------ pins

    def drive(self, t_ps: int, **levels: int) -> None:
        """Set controller-driven pins at `t_ps` (edges in argument order)."""
        for pin, level in levels.items():
            level = int(level)
            if self.level[pin] == level:
                continue
            self._edge(t_ps, pin, level)  # WP# too: the checker holds tWW from its edges
            if pin == "wp_n":
                self.die.set_wp(not level)
                continue
            if pin == "we_n" and level == 1:
                self._latch(t_ps)
            elif pin == "re_n" and level == 0 and self.level["ce_n"] == 0:
                self._data_out(t_ps)

    def _edge(self, t_ps: int, pin: str, level: int) -> None:
        self.checker.edge(t_ps, pin, level)
        self.level[pin] = level
        if self.record:
            self.edges.append((t_ps, pin, level))

    def _sync(self, t_ns: int) -> None:
        if self.die.now_ns < t_ns:
            self.die.advance(t_ns - self.die.now_ns)

    def _latch(self, t_ps: int) -> None:
        lv = self.level
        if lv["ce_n"]:
            return
        die = self.die
        self._sync(t_ps // PS - die.timing.tWC)
        was_ready = die.ready
        if lv["cle"]:
            die.cmd(lv["dq"])
            self.stats.cmd_cycles += 1
        elif lv["ale"]:
            die.addr(lv["dq"])
            self.stats.addr_cycles += 1
        else:
            die.write(bytes((lv["dq"],)))
            self.stats.din_bytes += 1
        self._after_cycle(t_ps, was_ready)

    def _after_cycle(self, t_ps: int, was_ready: bool) -> None:
        die = self.die
        if was_ready and not die.ready:
            self._busy_start_ns = die.now_ns
            self._edge(t_ps, "rb_n", 0)
        self.checker.set_mode(die.timing_mode)

    def _data_out(self, t_ps: int) -> None:
        die = self.die
        self._sync(t_ps // PS)
        self._out_byte = die.read(1)[0]
        self._out_valid_ps = t_ps + die.timing.tREA * PS
        self.stats.dout_bytes += 1

    def sample_dq(self, t_ps: int) -> int:
        """The controller latches DQ at `t_ps` (RE# low): the die's byte if tREA has passed."""
        self.checker.sample_dq(t_ps)
        if t_ps < self._out_valid_ps:
            return self._out_byte ^ 0xFF
        return self._out_byte

    # ------------------------------------------------------------ bulk cycles

    def read_run(self, t_ps: int, n: int, period_ps: int, low_ps: int, setup_ps: int) -> bytes:
        """`n` identical read cycles from `t_ps`, one every `period_ps`.

        Each cycle: CE# low `setup_ps` before RE# falls, RE# low `low_ps`,
        DQ sampled just before RE# rises, CE# high right after. The first
        cycle runs edge by edge through the checker; the other n-1 repeat the
        same edges at the same spacing, so only the spacing to the first one
        is checked again (tRC), and the die serves them in one call.
        """
        out = bytearray()
        first = self._read_cycle(t_ps, low_ps, setup_ps)
        out.append(first)
        if n > 1:
            self._read_cycle(t_ps + period_ps, low_ps, setup_ps, check_only=True)
            die = self.die
            self._sync((t_ps + period_ps + setup_ps) // PS)
            data = die.read(n - 1)
            self.stats.dout_bytes += n - 1
            out += data
            if n > 2:
                self._replay(t_ps + (n - 1) * period_ps, low_ps, setup_ps)
        return bytes(out)

    def _read_cycle(self, t_ps: int, low_ps: int, setup_ps: int, check_only: bool = False) -> int:
        if check_only:
            # the edges of a repeated cycle, for the checker only
            for dt, pin, level in self._read_edges(low_ps, setup_ps):
                self.checker.edge(t_ps + dt, pin, level)
            self.checker.sample_dq(t_ps + setup_ps + low_ps)
            return 0
        self.drive(t_ps, ce_n=0)
        self.drive(t_ps + setup_ps, re_n=0)
        value = self.sample_dq(t_ps + setup_ps + low_ps)
        self.drive(t_ps + setup_ps + low_ps, re_n=1)
        self.drive(t_ps + setup_ps + low_ps + PS, ce_n=1)
        return value

    @staticmethod
    def _read_edges(low_ps: int, setup_ps: int) -> list[tuple[int, str, int]]:
        return [(0, "ce_n", 0), (setup_ps, "re_n", 0), (setup_ps + low_ps, "re_n", 1),
                (setup_ps + low_ps + PS, "ce_n", 1)]

    def _replay(self, t_ps: int, low_ps: int, setup_ps: int) -> None:
        # the last cycle of a run: leaves checker state (RE# rise time...) where it would be
        for dt, pin, level in self._read_edges(low_ps, setup_ps):
            self.checker.edge(t_ps + dt, pin, level)
            self.level[pin] = level
            if self.record:
                self.edges.append((t_ps + dt, pin, level))

    def write_run(self, t_ps: int, data: bytes, period_ps: int, edges: list[tuple[int, str, int]],
                  latch_dt_ps: int) -> None:
        """Data-in cycles, one byte every `period_ps` from `t_ps`.

        `edges` are one cycle's (dt_ps, pin, level) controller edges, with the
        byte on DQ given as level -1; the WE# rise at `latch_dt_ps` latches it.
        The first cycle runs edge by edge; the checker also sees the second
        cycle (spacing) and the last; the die takes the bytes after the first
        in one call that ends at the last byte's latch, so a busy period the
        bytes start (SET FEATURES' P4, say) begins at that WE# rise.
        """
        for dt, pin, level in edges:
            self.drive(t_ps + dt, **{pin: data[0] if level < 0 else level})
        if len(data) == 1:
            return
        last = t_ps + (len(data) - 1) * period_ps
        if len(data) > 2:
            for dt, pin, level in edges:
                self.checker.edge(t_ps + period_ps + dt, pin, data[1] if level < 0 else level)
        head = [e for e in edges if e[0] <= latch_dt_ps]
        tail = [e for e in edges if e[0] > latch_dt_ps]
        die = self.die
        self._sync((last + latch_dt_ps) // PS - die.timing.tWC * (len(data) - 1))
        was_ready = die.ready
        if self.level["ale"]:
            for byte in data[1:]:
                die.addr(byte)
            self.stats.addr_cycles += len(data) - 1
        elif self.level["cle"]:
            for byte in data[1:]:
                die.cmd(byte)
            self.stats.cmd_cycles += len(data) - 1
        else:
            die.write(bytes(data[1:]))
            self.stats.din_bytes += len(data) - 1
        self._last_cycle(last, head, data[-1])
        self._after_cycle(last + latch_dt_ps, was_ready)
        self._last_cycle(last, tail, data[-1])

    def _last_cycle(self, t_ps: int, edges: list[tuple[int, str, int]], byte: int) -> None:
        for dt, pin, level in edges:
            value = byte if level < 0 else level
            self.checker.edge(t_ps + dt, pin, value)
            self.level[pin] = value
            if self.record:
                self.edges.append((t_ps + dt, pin, value))

    # ------------------------------------------------------------ R/B#

    def ready_at(self, t_ps: int) -> bool:
        """R/B# as the controller samples it at `t_ps`."""
        self.checker.sample_rb(t_ps)
        self.stats.rb_samples += 1
        self._sync(t_ps // PS)
        return self._rb_level(t_ps)

    def _rb_level(self, t_ps: int) -> bool:
        if self.stuck_busy:
            if self.level["rb_n"]:
                self._edge(t_ps, "rb_n", 0)
            return False
        if self.level["rb_n"] == 0 and self.die.ready:
            rise = self._rise_ps()
            self._edge(min(t_ps, rise) if rise else t_ps, "rb_n", 1)
        return bool(self.level["rb_n"])

    def _rise_ps(self) -> int:
        if self._busy_start_ns is None:
            return 0
        return (self._busy_start_ns + self.die.last_busy_ns) * PS

    def wait_ready(self, t_ps: int, horizon_ps: int) -> int | None:
        """Time (ps) R/B# is high at or after `t_ps`, or None if not within `horizon_ps`."""
        self.checker.sample_rb(t_ps)
        if self.stuck_busy:
            self._rb_level(t_ps)
            return None
        self._sync(t_ps // PS)
        if self.die.ready:
            self._rb_level(t_ps)
            return t_ps
        if self.die.wait_ready(horizon_ps // PS) is None:
            return None
        rise = max(t_ps, self.die.now_ns * PS)
        self._rb_level(rise + PS)
        return rise
