"""The chip layer: one ONFI target behind a transport (`Chip`).

Builds op programs for identification, features, status, read / program /
erase, cache, multi-plane, copyback and the profile's vendor operations; it
never touches a die or a wire itself.
"""

from nandlab.onfi.address import ChipGeometry
from nandlab.onfi.chip import Chip
from nandlab.onfi.errors import NotOnfiChip, ProfileMismatch, UniqueIdError
from nandlab.onfi.results import Identification, OpResult, PageRead

__all__ = [
    "Chip",
    "ChipGeometry",
    "Identification",
    "NotOnfiChip",
    "OpResult",
    "PageRead",
    "ProfileMismatch",
    "UniqueIdError",
]
