"""The transport interface: something that runs op programs on a bench.

Every transport (sim, rtl, ftdi, xdma) runs the same op programs (contract 1)
and answers, without running anything, whether it supports a capability, so
the chip layer can refuse an operation before it touches a chip.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import TYPE_CHECKING, Any, ClassVar, Self

from nandlab.ops import Program, Results
from nandlab.profiles import Profile
from nandlab.transport.roles import Roles

if TYPE_CHECKING:
    from nandlab.boards import Board


class Closing:
    """A context manager that calls `close()` on exit."""

    def close(self) -> None:
        """Release what the object holds; idempotent."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class Transport(Closing, ABC):
    """Runs op programs on the chip enables (targets) of one bench channel.

    Use as a context manager, or call `close()` when done.
    """

    url: str
    """The bench URL this transport was opened with."""

    board: Board | None = None
    """The board file the bench names (ftdi://, xdma://): its wiring limits the interface modes
    and sets the warm-up cycles negotiation uses (`onfi.interface`); None when it names none."""

    @property
    @abstractmethod
    def targets(self) -> int:
        """Number of chip enables (targets 0..targets-1)."""

    @property
    @abstractmethod
    def profile(self) -> Profile | None:
        """The chip profile the bench declares for its chips (None if it declares none)."""

    @abstractmethod
    def run(self, program: Program) -> Results:
        """Run one op program to its end (or its first error) and return its results."""

    def abandon(self) -> None:
        """Close without keeping what this session changed in state the bench keeps
        locally (a virtual die's saved image): a refused command leaves it as it was. A
        real chip cannot be un-changed; for it this is `close()`."""
        self.close()

    bench_capabilities: ClassVar[frozenset[str]] = frozenset()
    """What the bench itself can do ("power", "din_pattern", "cache_read"...)."""
    vendor_capabilities: ClassVar[tuple[str, ...]] = ()
    """Chip capabilities the bench can drive when the profile's vendor section declares them."""

    lacks: ClassVar[dict[str, str]] = {}
    """Capabilities the bench is known not to offer, each with why and what to use instead
    (what `cannot` tells a person)."""

    def cannot(self, capability: str) -> str:
        """For a message: that this bench does not offer `capability`, why, and what to use."""
        why = self.lacks.get(capability)
        profile = self.profile
        if why is None and capability in self.vendor_capabilities:
            why = f"profile {profile.name if profile else '(none)'} has no vendor.{capability}"
        return f"bench {self.url} cannot do '{capability}'" + (f": {why}" if why else "")

    def supports(self, capability: str) -> bool:
        """Whether the bench can do `capability` (no chip access).

        Chip capabilities come from the profile's vendor section
        ("slc_mode", "soft_bit_read"); bench capabilities from the bench
        ("power", "din_pattern", "cache_read"). Unknown names answer False. What a
        bench has besides its controller (oven, wear fast-forward...) are its `roles`.
        """
        if capability in self.vendor_capabilities:
            profile = self.profile
            return profile is not None and getattr(profile.vendor, capability) is not None
        return capability in self.bench_capabilities

    @property
    def roles(self) -> Roles:
        """The roles this bench declares besides running programs (none by default)."""
        return Roles()

    @property
    def busy_source(self) -> str:
        """Where BUSY records come from, for the run's snapshot."""
        return "stream:op program BUSY records"

    def describe(self) -> dict[str, Any]:
        """What a run records about this transport beyond its URL: board, bitstream, dies..."""
        return {}


    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.url}>"


def board_record(board: Board, named: str) -> dict[str, Any]:
    """A bench's board as a run records it: name and file (None when given as a model)."""
    # here, not at the top: the board models (pydantic) are not needed to open a sim bench
    from nandlab.boards import BoardError, board_path

    try:
        file: str | None = str(board_path(named).resolve())
    except BoardError:
        file = None
    return {"name": board.name, "file": file, "controller": board.controller.kind}
