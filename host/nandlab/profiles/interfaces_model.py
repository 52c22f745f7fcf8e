"""Profile section `interfaces`: the DDR data interfaces and modes a part supports.

Every ONFI part supports SDR (its modes are `timing.sdr_modes`); this section
adds what the parameter page advertises beyond it (bytes 6-7 bits 10 / 13,
142, 158-162; see `onfi_spec.parampage`) and what the die then accepts in
SET FEATURES 01h / 02h. A Toggle part (identity `standard: jedec`) lists its
Toggle DDR speed grades instead, advertised in the JEDEC parameter page
(bytes 146-147, `onfi_spec.jedec_parampage`). The mode tables are
`onfi_spec.nvddr_timing`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from nandlab.onfi_spec.nvddr_timing import MODES_PER_INTERFACE, DdrInterface

WARMUP_CODES = {0: 0, 1: 1, 2: 2, 4: 3}
"""Warm-up cycles -> the 2-bit code of feature 02h P2 and parameter page byte 159."""


_FIELD_INTERFACE = {
    "nv_ddr2_modes": DdrInterface.NV_DDR2,
    "nv_ddr3_modes": DdrInterface.NV_DDR3,
    "toggle_modes": DdrInterface.TOGGLE2,
}


class Interfaces(BaseModel):
    """NV-DDR2 / NV-DDR3 / Toggle DDR support of a part (none: SDR only)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)  # as model._Strict

    nv_ddr2_modes: list[int] = Field(default=[], description="NV-DDR2 timing modes (0..7)")
    nv_ddr3_modes: list[int] = Field(default=[], description="NV-DDR3 timing modes (0..15)")
    toggle_modes: list[int] = Field(
        default=[], description="Toggle DDR 2.0 speed grades (0..7, the cycle times of NV-DDR2's)"
    )
    odt: bool = Field(default=False, description="self-termination ODT (feature 02h P1 7:4)")
    differential_re: bool = Field(default=False, description="complementary RE_c")
    differential_dqs: bool = Field(default=False, description="complementary DQS_c")
    warmup_cycles: Literal[0, 1, 2, 4] = Field(
        default=0, description="most warm-up cycles settable per direction (feature 02h P2)"
    )
    source: str = Field(default="", description="where the interface figures come from")

    @field_validator("nv_ddr2_modes", "nv_ddr3_modes", "toggle_modes")
    @classmethod
    def _modes_exist(cls, modes: list[int], info: object) -> list[int]:
        iface = _FIELD_INTERFACE[getattr(info, "field_name", "")]
        top = MODES_PER_INTERFACE[iface] - 1
        bad = [m for m in modes if not 0 <= m <= top]
        if bad:
            raise ValueError(f"{iface.value} has modes 0..{top}, not {bad}")
        return sorted(set(modes))

    def modes(self, interface: DdrInterface | str) -> list[int]:
        """The supported modes of one DDR interface ([] when unsupported)."""
        iface = DdrInterface(interface)
        if iface is DdrInterface.NV_DDR2:
            return list(self.nv_ddr2_modes)
        if iface is DdrInterface.NV_DDR3:
            return list(self.nv_ddr3_modes)
        return list(self.toggle_modes)

    @property
    def ddr(self) -> bool:
        """The part has an ONFI DDR interface (the NV-DDR2 / NV-DDR3 parameter page bytes)."""
        return bool(self.nv_ddr2_modes or self.nv_ddr3_modes)

    @property
    def warmup_code(self) -> int:
        return WARMUP_CODES[self.warmup_cycles]
