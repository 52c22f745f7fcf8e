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
from typing import Any, Generic, TypeVar, cast

from nandlab.errors import UnsupportedCapability
from nandlab.transport import open_bench
from nandlab.transport.base import Closing, Transport
from nandlab.transport.roles import (
    ChipClock,
    EyeScanner,
    FaultInjector,
    FirmwareLoops,
    Oven,
    PowerMonitor,
    ReadStreamMatcher,
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
    "firmware": "the board CPU runs them: an xdma:// board whose bitstream has the CPU "
    "(the KCU105 build; this one answers no CPU_CTRL.CPU_ID), rtl://...?firmware=ELF, or a "
    "bench wrapped in nandlab.transport.firmware_native.FirmwareBoard",
    "matcher": "only rtl:// benches run the CoX-PM kernel (hw/hls/coxpm) on the read stream; "
    "on other benches use a part with the CoX-PM commands (sim://tlc-coxpm)",
    "eye": "this bench has no capture-delay control: a data-eye scan needs the FPGA DDR PHY's "
    "per-lane DQS delay taps (rtl:// or an FPGA board running NV-DDR2 / NV-DDR3)",
}
WHAT = {
    "power": "power monitor",
    "thermal": "temperature controller",
    "clock": "chip clock",
    "faults": "fault injector",
    "wear": "wear fast-forward",
    "oven": "virtual oven",
    "firmware": "firmware loops",
    "matcher": "read-stream matcher",
    "eye": "capture-delay control",
}


class MissingRole(UnsupportedCapability):
    """The bench lacks a role some code asked for."""

    def __init__(self, role: str, url: str) -> None:
        super().__init__(f"bench {url} has no {WHAT[role]} (role {role}): {HOW_TO_GET[role]}")
        self.role = role
        self.url = url


class _Role(Generic[_R]):
    """A role as a typed attribute of Bench: the declared value, or MissingRole."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, bench: Bench, owner: type | None = None) -> _R:
        value = bench.declared.of(self.name)
        if value is None:
            raise MissingRole(self.name, bench.url)
        return cast(_R, value)


class Bench(Closing):
    """A transport and its declared roles. Close it (or use `with`) to release the transport."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self.declared = transport.roles

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
        return role in self.declared.declared()

    power = _Role[PowerMonitor]()
    thermal = _Role[ThermalController]()
    clock = _Role[ChipClock]()
    faults = _Role[FaultInjector]()
    wear = _Role[WearFastForward]()
    oven = _Role[Oven]()
    firmware = _Role[FirmwareLoops]()
    matcher = _Role[ReadStreamMatcher]()
    eye = _Role[EyeScanner]()

    def chip_time_ns(self) -> int:
        """The bench's chip time (virtual benches); 0 where no clock is declared."""
        clock = self.declared.clock
        return clock.now_ns if clock is not None else 0

    def snapshot(self) -> dict[str, Any]:
        """What a run records about the bench: URL, transport, board, bitstream, dies,
        instruments (with serial numbers / *IDN?), temperatures, profile."""
        t = self.transport
        profile = t.profile
        thermal = self.declared.thermal
        instruments = {
            role: value.describe()
            for role, value in (("power", self.declared.power), ("thermal", thermal))
            if value is not None
        }
        return {
            "url": self.url,
            "transport": self.kind,
            "targets": t.targets,
            "profile": profile.name if profile is not None else None,
            "roles": list(self.declared.declared()),
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

    def abandon(self) -> None:
        """Close, keeping no local state this session changed (`Transport.abandon`)."""
        self.transport.abandon()

    def __repr__(self) -> str:
        return f"<Bench {self.url} roles={','.join(self.declared.declared())}>"
