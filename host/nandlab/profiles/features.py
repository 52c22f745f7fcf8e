"""The SET / GET FEATURES addresses a profile's part implements, and what each is for.

The virtual die answers only these (a real part ignores a write elsewhere),
and the chip layer refuses a write to any other address before it reaches
the wire. Test-mode addresses take effect only inside the test mode, so the
host asks for `allow_test_mode` before writing them, as for every other
test-mode operation.
"""

from __future__ import annotations

from enum import Enum

from nandlab.profiles.model import Profile

TIMING_MODE_ADDRESS = 0x01  # ONFI feature 01h: bits 3:0 timing mode, bits 5:4 interface
DDR_CONFIG_ADDRESS = 0x02  # ONFI feature 02h: NV-DDR2 / NV-DDR3 configuration


class FeatureRole(Enum):
    TIMING_MODE = "timing mode"
    DDR_CONFIG = "NV-DDR2/3 configuration"
    READ_OFFSET = "read offset"
    SOFT_BIT_DELTA = "soft-bit read delta"
    TEST_MODE = "test mode"


def declared_features(profile: Profile) -> dict[int, FeatureRole]:
    """Feature address -> role, for every address the profile's part implements."""
    out = {TIMING_MODE_ADDRESS: FeatureRole.TIMING_MODE}
    if profile.interfaces.ddr:
        out[DDR_CONFIG_ADDRESS] = FeatureRole.DDR_CONFIG
    offsets = profile.read_offsets
    for ref in [*offsets.references, offsets.slc_reference]:
        out[ref.feature] = FeatureRole.READ_OFFSET
    v = profile.vendor
    if v.soft_bit_read is not None:
        out[v.soft_bit_read.delta_feature] = FeatureRole.SOFT_BIT_DELTA
    for test_fa in (
        v.esp.feature if v.esp is not None else None,
        v.sense_time.feature if v.sense_time is not None else None,
        v.mws.override_feature if v.mws is not None else None,
    ):
        if test_fa is not None:
            out[test_fa] = FeatureRole.TEST_MODE
    return out


def testmode_features(profile: Profile) -> frozenset[int]:
    """The addresses that act only inside the test mode (ESP, sensing time, MWS override)."""
    roles = declared_features(profile)
    return frozenset(fa for fa, role in roles.items() if role is FeatureRole.TEST_MODE)
