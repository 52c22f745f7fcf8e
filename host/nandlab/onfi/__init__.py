"""The chip layer: one ONFI target behind a transport (`Chip`), its test mode (`TestMode`).

Runs the op programs of the sequence library (`nandlab.sequences`) for
identification, features, status, read / program / erase, cache, multi-plane,
copyback and the profile's vendor and test-mode operations; it never touches
a die or a wire itself. By concern: `target` (running programs, identify,
status, features, read offsets), `array` (page operations, bad-block and
blank checks), `chip` (cache, multi-plane), `testmode`, `power` (energy
through the POWER window), `identify` (parameter page and unique ID choice).
"""

from nandlab.onfi.address import ChipGeometry
from nandlab.onfi.chip import Chip
from nandlab.onfi.errors import NotOnfiChip, ProfileMismatch, UniqueIdError
from nandlab.onfi.results import Identification, OpResult, PageRead
from nandlab.onfi.testmode import LatchRun, TestMode

__all__ = [
    "Chip",
    "ChipGeometry",
    "Identification",
    "LatchRun",
    "NotOnfiChip",
    "OpResult",
    "PageRead",
    "ProfileMismatch",
    "TestMode",
    "UniqueIdError",
]
