"""What the collaborating parts of one virtual die share (see `die`)."""

from __future__ import annotations

from dataclasses import dataclass

from nandlab.profiles.model import Profile
from nandlab.vchip.address import AddressMap
from nandlab.vchip.array import CellArray
from nandlab.vchip.clock import DieClock
from nandlab.vchip.features import FeatureRegisters
from nandlab.vchip.latches import PageBuffer


@dataclass(frozen=True)
class DieParts:
    """The profile, the cells, the clock, the feature registers, the address map (with
    the cell mode) and the page buffer of one die."""

    profile: Profile
    array: CellArray
    clock: DieClock
    features: FeatureRegisters
    addresses: AddressMap
    buffer: PageBuffer


class DiePart:
    """Base of a part of one die (array operations, test-mode engine): its handles on
    what the parts share."""

    def __init__(self, parts: DieParts) -> None:
        self._profile = parts.profile
        self._array = parts.array
        self._clock = parts.clock
        self._features = parts.features
        self._addresses = parts.addresses
        self._buffer = parts.buffer
