"""Errors particular to the chip layer, refining the shared ones in `nandlab.errors`."""

from __future__ import annotations

from nandlab.errors import NandlabError, ProfileError


class NotOnfiChip(NandlabError):
    """READ ID 20h did not return the "ONFI" signature: no (working) ONFI target there."""


class UniqueIdError(NandlabError):
    """No copy of the READ UNIQUE ID data matched its complement."""


class ProfileMismatch(ProfileError):
    """The chip's parameter page disagrees with the profile the bench declares."""


class FeatureNotAccepted(NandlabError):
    """SET FEATURES went out but reading the feature back shows the target ignored it."""


class ParameterPageInvalid(NandlabError):
    """The parameter page breaks an ONFI rule a controller cannot work past (see onfi_rules)."""
