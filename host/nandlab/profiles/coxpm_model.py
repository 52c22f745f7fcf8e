"""Profile section of the CoX-PM commands (`vendor.coxpm`).

The byte protocol and the page format are in `nandlab.onfi_spec.coxpm`; the
bytes are the part's (here: the virtual CoX-PM part's, see docs/cox-pm.md).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class CoxPm(BaseModel):
    """CoX-PM commands: set_pattern CMD pattern_cmd, DIN patterns, CMD pattern_confirm;
    read_when_matched CMD match_cmd, ADDR row, CMD match_confirm (sense, decode, match) or
    match_cache_confirm (sense this page while the previous one is decoded and matched);
    match_last_cmd decodes and matches the last page a cache form sensed. The outcome is in
    status bits 3-4."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)  # as model._Strict

    pattern_cmd: int = Field(ge=0, le=0xFF)
    pattern_confirm: int = Field(ge=0, le=0xFF)
    match_cmd: int = Field(ge=0, le=0xFF)
    match_confirm: int = Field(ge=0, le=0xFF)
    match_cache_confirm: int = Field(ge=0, le=0xFF)
    match_last_cmd: int = Field(ge=0, le=0xFF)
    t_decode_match_us: float = Field(
        gt=0, description="in-chip decode + pattern match of one page (sub-page pipeline)"
    )
    t_set_pattern_us: float = Field(gt=0, description="busy of set_pattern (automaton tables)")
    decoder_MHz: float = Field(
        gt=0, description="clock of the in-chip decoder: one block column (Z bits) per cycle"
    )
    logic_mW: float = Field(ge=0, description="extra power of the decoder and matcher running")
