"""The roles a bench can play besides running op programs, as typing Protocols.

Each transport declares the roles its bench has (`Transport.roles`); nothing asks
a transport object what attributes it happens to carry. `nandlab.bench.Bench`
hands the roles out by name and raises a typed error naming the role and the
bench URL when a bench lacks one.

- `power`: the supply-current instrument POWER windows are sampled by.
- `thermal`: a temperature controller or chamber the host sets and reads (°C).
- `clock`: the chip-time source of a virtual bench (ns of bus and busy time).
- `faults`: injects bench faults on purpose (tests of the stop / resume paths).
- `wear`: adds P/E wear to a block without cycling it (virtual dies only).
- `oven`: ages the cells by a bake that takes no wall time (virtual dies only).
- `firmware`: campaign loops run by the board's own CPU (`nandlab.firmware.loops`).
- `matcher`: an FPGA kernel on the read stream that decodes and pattern-matches pages
  (CoX-PM on an ordinary chip; capability `fpga_coxpm`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, Protocol

from nandlab.ops import Program, Results


class Instrument(Protocol):
    """Anything a run's snapshot describes."""

    def describe(self) -> dict[str, Any]:
        """What the run records about it: kind, model, serial number or *IDN?, settings."""
        ...


class PowerMonitor(Instrument, Protocol):
    """The instrument the bench samples supply current with inside POWER windows.

    The transport runs the windows (an FT2232H bench through the monitor's
    start / stop, the FPGA and the virtual dies in their own sequencer).
    """


class ThermalController(Instrument, Protocol):
    """A temperature controller or chamber (°C)."""

    def read_C(self) -> float:
        """The measured temperature (°C)."""
        ...

    def settle(self, target: float) -> float:
        """Set `target` (°C), wait until the reading settles there, return the last reading."""
        ...


class ChipClock(Protocol):
    """The virtual chip time of a bench: every bus cycle, busy time and delay moves it."""

    @property
    def now_ns(self) -> int:
        """Chip time since the dies were made (ns)."""
        ...


class FaultInjector(Protocol):
    """Injects a bench fault on purpose, to exercise the stop and resume paths."""

    @property
    def faults(self) -> tuple[str, ...]:
        """The faults `inject` knows."""
        ...

    def inject(self, fault: str, *, after_programs: int = 0) -> None:
        """Arm `fault`: it happens on the program run after `after_programs` more programs."""
        ...


class WearFastForward(Protocol):
    """Adds P/E cycles to a block without running them (a virtual die's wear model)."""

    def fast_forward_wear(self, ce: int, block: int, cycles: int, *, slc: bool = False) -> int:
        """Add `cycles` to `block` of target `ce`; returns the chip time they stand for (ns)."""
        ...


class Oven(Protocol):
    """A virtual oven: ages every die's cells by Arrhenius, with no wall time passing."""

    def bake(self, temp_C: float, hours: float) -> None:
        """Hold the dies at `temp_C` (°C) for `hours` (>= 0)."""
        ...


class FirmwareLoops(Protocol):
    """Campaign loops the board's CPU runs on its own (`nandlab.firmware.loops.MailboxLoops`)."""

    def run_loop(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        """Run loop `name` with `params`; returns its rows."""
        ...


@dataclass(frozen=True)
class MatchedRead:
    """A page read whose data went through the read-stream matcher instead of to the host.

    `results`: the program's records but the page's DATA (BUSY, STATUS, errors);
    `outcome`: 0 not matched, 1 matched, 2 decoding failure (onfi_spec.coxpm.Outcome);
    `match`: bit p set when pattern p occurs (0 on a failure); `data`: what the board
    hands the host (a matched page's plain data area, nothing when not matched, the
    page as read on a failure); `kernel_ns`: the kernel's decode + match time for the
    page at the board clock; `passes`: decoder passes per sub-page.
    """

    results: Results
    outcome: int
    match: int
    data: bytes
    kernel_ns: int
    passes: tuple[int, ...]


class ReadStreamMatcher(Protocol):
    """CoX-PM's decode + multi-pattern match, run by the board on the pages it reads."""

    def set_patterns(self, patterns: Sequence[bytes]) -> None:
        """Load 1..8 patterns of 1..32 bytes (RangeError otherwise)."""
        ...

    def run_matched(self, program: Program, block: int, page: int, page_bytes: int) -> MatchedRead:
        """Run `program` (a full page read: one DOUT of page_bytes + the spare) with its
        data into the matcher, page (`block`, `page`) in the CoX-PM format."""
        ...


class EyeScanner(Protocol):
    """A per-byte-lane DQS capture delay the controller can move (an IDELAY tap chain):
    what a data-eye scan sweeps. Agreed between the RTL PHY and campaign.steps.eye."""

    @property
    def lanes(self) -> int:
        """Byte lanes of the data bus (x8: 1)."""
        ...

    @property
    def taps(self) -> int:
        """Capture-delay taps per lane: 0..taps-1."""
        ...

    @property
    def tap_ps(self) -> float:
        """Delay of one tap (ps)."""
        ...

    def set_capture_delay(self, lane: int, tap: int) -> None:
        """Capture lane `lane` `tap` taps after its DQS edge (RangeError outside)."""
        ...

    def lane_bit_errors(self, program: Program, expected: bytes) -> tuple[int, ...]:
        """Run `program` (one DATA record of len(expected) bytes) at the current delays:
        bit errors per lane (byte i is on lane i % lanes)."""
        ...


@dataclass(frozen=True)
class Roles:
    """The roles a bench declares; None where it has none."""

    power: PowerMonitor | None = None
    thermal: ThermalController | None = None
    clock: ChipClock | None = None
    faults: FaultInjector | None = None
    wear: WearFastForward | None = None
    oven: Oven | None = None
    firmware: FirmwareLoops | None = None
    matcher: ReadStreamMatcher | None = None
    eye: EyeScanner | None = None

    def of(self, role: str) -> object | None:
        """The value of role `role` (one of ROLE_NAMES), None when undeclared."""
        return asdict_shallow(self)[role]

    def declared(self) -> tuple[str, ...]:
        """Names of the roles this bench has."""
        return tuple(name for name, value in asdict_shallow(self).items() if value is not None)


def asdict_shallow(roles: Roles) -> dict[str, object | None]:
    """Role name -> value, without copying the values (dataclasses.asdict deep-copies)."""
    return {f.name: roles.__dict__[f.name] for f in fields(roles)}


ROLE_NAMES = tuple(f.name for f in fields(Roles))
