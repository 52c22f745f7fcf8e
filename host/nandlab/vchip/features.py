"""Feature registers of a virtual die (SET / GET FEATURES), volatile until RESET.

Each implemented feature address (`profiles.features.declared_features`)
holds 4 parameter bytes (P1..P4), zeros until written. The read-offset
registers hold signed DAC codes (two's complement), clamped to the profile's
code range and scaled by its step.

Writes a real part ignores are ignored here too, and GET FEATURES then
returns what the register held before: an address the part does not
implement (reads back zeros), a test-mode register (ESP, sensing time, MWS
override) outside the test mode, and a timing mode (01h) the part does not
list or an NV-DDR interface it lacks. Datasheets specify no error for these:
SET FEATURES always ends with R/B# high after tFEAT and an unchanged status,
so a controller learns of it only by reading back (Linux does for 01h). The
host therefore checks the write before sending it (`onfi.target`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from nandlab.onfi_spec.opcodes import Feature
from nandlab.profiles.features import declared_features, testmode_features
from nandlab.profiles.model import Profile, ReadReference

FEATURE_BYTES = 4


def signed_code(raw: int) -> int:
    """A feature byte read as a two's complement DAC code."""
    return raw - 256 if raw & 0x80 else raw


class FeatureRegisters:
    def __init__(self, profile: Profile) -> None:
        self._ro = profile.read_offsets
        self._sdr_modes = profile.timing.sdr_modes
        self._implemented = frozenset(declared_features(profile))
        self._test_registers = testmode_features(profile)
        self._params: dict[int, bytes] = {}

    def get(self, fa: int) -> bytes:
        """P1..P4 of feature address `fa` (zeros if never written)."""
        return self._params.get(fa, bytes(FEATURE_BYTES))

    def set(self, fa: int, params: bytes, test_mode: bool) -> bool:
        """SET FEATURES `fa`; False when the die ignores the write."""
        if fa not in self._implemented:
            return False
        if fa in self._test_registers and not test_mode:
            return False
        if fa == Feature.TIMING_MODE and (
            params[0] & 0xF0 or (params[0] & 0x0F) not in self._sdr_modes
        ):
            return False  # NV-DDR or an unsupported mode: ignored, as silicon does
        self._params[fa] = params
        return True

    def clear(self) -> None:
        self._params = {}

    def offset_mV(self, fa: int, param: int) -> float:
        """Read offset (mV) that parameter `param` of feature `fa` sets."""
        ro = self._ro
        code = signed_code(self.get(fa)[param])
        return min(max(code, ro.code_min), ro.code_max) * ro.step_mV

    def reference_mV(self, ref: ReadReference) -> float:
        """A read reference with its offset register applied."""
        return ref.default_mV + self.offset_mV(ref.feature, ref.param)

    def state(self) -> dict[str, list[int]]:
        return {str(fa): list(v) for fa, v in sorted(self._params.items())}

    def load(self, saved: Mapping[str, Sequence[int]]) -> None:
        self._params = {int(fa): bytes(int(b) & 0xFF for b in v) for fa, v in saved.items()}
