"""The virtual die's side of the test-mode mechanisms (vocabulary in `nandlab.onfi_spec.testmode`).

How the die decodes the ESP feature into an ISPP tuning (against its own
ISPP physics), which feature addresses are test-mode ones, and the MWS supply
current.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from nandlab.onfi_spec.testmode import ESP_START_UNIT_MV, ESP_STEP_UNIT_MV, ESP_VERIFY_UNIT_MV
from nandlab.profiles.model import Profile

DEFAULT_STEP_US = 0.5


@dataclass(frozen=True)
class IsppTune:
    """Tuned SLC ISPP (ESP). A regular SLC ISPP phase from start_mV to the SLC verify, then,
    if esp_step_mV > 0, an ESP phase from there to verify_mV in steps of esp_step_mV, then
    extra_steps verify-pulse loops that tighten the static program spread."""

    start_mV: float
    esp_step_mV: float
    verify_mV: float
    extra_steps: int


def feature_addresses(profile: Profile) -> frozenset[int]:
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


def esp_tune(profile: Profile, feature: Callable[[int], bytes]) -> IsppTune | None:
    """The ISPP tuning the ESP feature holds (None when it is all zero or undeclared)."""
    esp = profile.vendor.esp
    if esp is None:
        return None
    p = feature(esp.feature)
    if not any(p):
        return None
    phys = profile.physics
    ispp = phys.slc_ispp or phys.ispp
    start = ispp.start_mV + (p[0] - 256 if p[0] & 0x80 else p[0]) * ESP_START_UNIT_MV
    return IsppTune(
        start_mV=start,
        esp_step_mV=p[1] * ESP_STEP_UNIT_MV,
        verify_mV=phys.slc_verify_mV + p[2] * ESP_VERIFY_UNIT_MV,
        extra_steps=p[3],
    )


def mws_current_mA(profile: Profile, blocks: int) -> float:
    """Read current of an MWS activating `blocks` blocks: each further block charges its WLs
    from the same pump, whose output saturates at mws_pump_limit_mA above a page read."""
    pw = profile.power
    extra_demand = pw.mws_block_mA * max(blocks - 1, 0)
    if pw.mws_pump_limit_mA > 0:
        extra = pw.mws_pump_limit_mA * (1.0 - math.exp(-extra_demand / pw.mws_pump_limit_mA))
    else:
        extra = extra_demand
    return pw.read_mA + extra
