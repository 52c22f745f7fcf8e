"""Feature registers of a virtual die (SET / GET FEATURES), volatile until RESET.

Each feature address holds 4 parameter bytes (P1..P4), zeros until written.
The read-offset registers hold signed DAC codes (two's complement), clamped to
the profile's code range and scaled by its step. Test-mode registers (ESP,
sensing time, MWS override) ignore writes outside the test mode; the timing
mode (01h) takes only the SDR modes the profile lists.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from nandlab.onfi_spec.opcodes import Feature
from nandlab.profiles.model import Profile, ReadReference

FEATURE_BYTES = 4


def signed_code(raw: int) -> int:
    """A feature byte read as a two's complement DAC code."""
    return raw - 256 if raw & 0x80 else raw


def testmode_registers(profile: Profile) -> frozenset[int]:
    """The test-mode SET FEATURES addresses the profile declares."""
    v = profile.vendor
    out = set()
    if v.esp is not None:
        out.add(v.esp.feature)
    if v.sense_time is not None:
        out.add(v.sense_time.feature)
    if v.mws is not None:
        out.add(v.mws.override_feature)
    return frozenset(out)


class FeatureRegisters:
    def __init__(self, profile: Profile) -> None:
        self._ro = profile.read_offsets
        self._sdr_modes = profile.timing.sdr_modes
        self._test_registers = testmode_registers(profile)
        self._params: dict[int, bytes] = {}

    def get(self, fa: int) -> bytes:
        """P1..P4 of feature address `fa` (zeros if never written)."""
        return self._params.get(fa, bytes(FEATURE_BYTES))

    def set(self, fa: int, params: bytes, test_mode: bool) -> bool:
        """SET FEATURES `fa`; False when the die ignores the write."""
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
