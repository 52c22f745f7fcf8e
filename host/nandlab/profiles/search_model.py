"""Profile section of the Search-in-Memory commands (`vendor.search`).

The byte protocol is in `nandlab.onfi_spec.search`; the bytes are the part's
(here: the virtual SiM part's, see docs/sim-search.md).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Search(BaseModel):
    """Search-in-Memory commands: page-open CMD open_cmd, ADDR row, CMD open_confirm (or
    open_cache_confirm: load while the active page stays active); page-close CMD close_cmd;
    search CMD search_cmd, DIN key + mask + threshold, CMD search_confirm, DOUT bitmap;
    gather CMD gather_cmd, DIN chunk bitmap, CMD gather_confirm, DOUT chunks with their ECC."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)  # as model._Strict

    open_cmd: int = Field(ge=0, le=0xFF)
    open_confirm: int = Field(ge=0, le=0xFF)
    open_cache_confirm: int = Field(ge=0, le=0xFF)
    close_cmd: int = Field(ge=0, le=0xFF)
    search_cmd: int = Field(ge=0, le=0xFF)
    search_confirm: int = Field(ge=0, le=0xFF)
    gather_cmd: int = Field(ge=0, le=0xFF)
    gather_confirm: int = Field(ge=0, le=0xFF)
    t_search_us: float = Field(gt=0, description="busy of one search (XOR + failed-bit count)")
    match_bus_MTps: float = Field(gt=0, description="I/O rate in match mode (MT/s)")
    storage_bus_MTps: float = Field(gt=0, description="I/O rate in storage mode (MT/s)")
