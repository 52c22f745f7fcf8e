"""A bench: a transport plus declared roles (power monitor, thermal chamber, time source,
fault injector, wear fast-forward, oven, firmware loops) as typing Protocols, and the
snapshot every run records about it. See docs/benches.md.
"""

from nandlab.bench.bench import Bench, MissingRole
from nandlab.transport.roles import (
    ROLE_NAMES,
    ChipClock,
    FaultInjector,
    FirmwareLoops,
    Instrument,
    Oven,
    PowerMonitor,
    Roles,
    ThermalController,
    WearFastForward,
)

__all__ = [
    "ROLE_NAMES",
    "Bench",
    "ChipClock",
    "FaultInjector",
    "FirmwareLoops",
    "Instrument",
    "MissingRole",
    "Oven",
    "PowerMonitor",
    "Roles",
    "ThermalController",
    "WearFastForward",
]
