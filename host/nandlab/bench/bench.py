"""A bench: the transport that runs op programs, plus the roles it declares.

    with Bench.open("sim://mlc-64l?seed=7") as bench:
        bench.oven.bake(85.0, 13.6)          # a virtual bench's oven
        bench.thermal                        # MissingRole: this bench has no temperature controller

Code asks for a role by name and gets it typed as its Protocol
(`nandlab.transport.roles`), or a `MissingRole` naming the role, the bench URL
and how to get one. `snapshot()` is what every run records about the bench.
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from typing import Any, TypeVar

from nandlab.errors import UnsupportedCapability
from nandlab.transport import open_bench
from nandlab.transport.base import Transport
from nandlab.transport.roles import (
    ChipClock,
    FaultInjector,
    FirmwareLoops,
    Oven,
    PowerMonitor,
    ThermalController,
    WearFastForward,
)

_R = TypeVar("_R")

HOW_TO_GET = {
    "power": "declare the board's power_monitor (board file) and open an ftdi:// bench with "
    "instruments=1; sim:// and xdma:// benches sample power themselves",
    "thermal": "declare the board's temperature controller (board file section temperature:) "
    "and open the bench with instruments=1",
    "clock": "only virtual benches (sim://) keep chip time",
    "faults": "only virtual benches (sim://) inject faults",
    "wear": "only virtual dies (sim://) fast-forward wear; cycle the block on a real chip",
    "oven": "only virtual benches (sim://) bake without wall time; on a real bench a bake "
    "holds the temperature controller (role thermal) for the real hours",
    "firmware": "no bench runs firmware loops yet",
}
WHAT = {
    "power": "power monitor",
    "thermal": "temperature controller",
    "clock": "chip clock",
    "faults": "fault injector",
    "wear": "wear fast-forward",
    "oven": "virtual oven",
    "firmware": "firmware loops",
}


class MissingRole(UnsupportedCapability):
    """The bench lacks a role some code asked for."""

    def __init__(self, role: str, url: str) -> None:
        super().__init__(f"bench {url} has no {WHAT[role]} (role {role}): {HOW_TO_GET[role]}")
        self.role = role
        self.url = url


class Bench:
    """A transport and its declared roles. Close it (or use `with`) to release the transport."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self._roles = transport.roles

    @classmethod
    def open(cls, url: str, opener: Callable[[str], Transport] = open_bench) -> Bench:
        """Open the bench a URL names (`opener` swaps the transport, e.g. in tests)."""
        return cls(opener(url))

    @property
    def url(self) -> str:
        return self.transport.url

    @property
    def kind(self) -> str:
        """The transport: sim, rtl, ftdi or xdma (the URL's scheme)."""
        return self.url.split("://", 1)[0].lower()

    def has(self, role: str) -> bool:
        """Whether the bench declares `role` (one of nandlab.transport.roles.ROLE_NAMES)."""
        return role in self._roles.declared()

    def _need(self, role: str, value: _R | None) -> _R:
        if value is None:
            raise MissingRole(role, self.url)
        return value

    @property
    def power(self) -> PowerMonitor:
        return self._need("power", self._roles.power)

    @property
    def thermal(self) -> ThermalController:
        return self._need("thermal", self._roles.thermal)

    @property
    def clock(self) -> ChipClock:
        return self._need("clock", self._roles.clock)

    @property
    def faults(self) -> FaultInjector:
        return self._need("faults", self._roles.faults)

    @property
    def wear(self) -> WearFastForward:
        return self._need("wear", self._roles.wear)

    @property
    def oven(self) -> Oven:
        return self._need("oven", self._roles.oven)

    @property
    def firmware(self) -> FirmwareLoops:
        return self._need("firmware", self._roles.firmware)

    def chip_time_ns(self) -> int:
        """The bench's chip time (virtual benches); 0 where no clock is declared."""
        clock = self._roles.clock
        return clock.now_ns if clock is not None else 0

    def snapshot(self) -> dict[str, Any]:
        """What a run records about the bench: URL, transport, board, bitstream, dies,
        instruments (with serial numbers / *IDN?), temperatures, profile."""
        t = self.transport
        profile = t.profile
        thermal = self._roles.thermal
        instruments = {
            role: value.describe()
            for role, value in (("power", self._roles.power), ("thermal", thermal))
            if value is not None
        }
        return {
            "url": self.url,
            "transport": self.kind,
            "targets": t.targets,
            "profile": profile.name if profile is not None else None,
            "roles": list(self._roles.declared()),
            "busy_source": t.busy_source,
            **t.describe(),
            "instruments": instruments,
            "temperatures_C": {
                "ambient": profile.environment.ambient_temp_C if profile is not None else None,
                "measured": thermal.read_C() if thermal is not None else None,
            },
        }

    def close(self) -> None:
        self.transport.close()

    def __enter__(self) -> Bench:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Bench {self.url} roles={','.join(self._roles.declared())}>"
