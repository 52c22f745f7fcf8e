"""Identification of real parts: parameter pages built from public data sheet values.

Only values printed in the data sheets are set; a field a source does not
give is left 0 and named below, so the host's conformance notes list it
rather than a guess. Each page goes through the host's identification (3
copies, CRC, majority) and through the independent Linux-rule detector.

- Spansion S34ML08G2 (SLC, ONFI 1.0), the parameter page table of the
  S34ML04G2 / S34ML08G2 data sheet (Table 5): bytes 0-9, 32-64, 80-85;
  organisation from its features list (64 pages per block, 2 planes of 2048
  blocks per 4 Gb die, two dies), 4-bit ECC per 512 + 16 bytes (the G2
  family), 2 column + 3 row address cycles. Timing fields are not given: 0.
- Micron MT29F64G08CBABA (MLC, ONFI 2.3): features list of its data sheet:
  8192 + 744 byte pages, 256 pages per block, 2 planes x 2048 blocks, tR 100 us
  max, asynchronous and synchronous (NV-DDR) timing modes up to 5, 3000 P/E.
  ECC (byte 112) is in its "Error Management" section, not in the source: 0.
- Micron MT29F128G08CBECB (MLC, ONFI 3.2): 16384 + 1872 byte pages, 512 pages
  per block, 2 planes x 1048 blocks (2096: not a power of two), tR 115 us max,
  asynchronous mode 5, NV-DDR mode 4, NV-DDR2 mode 3, 3000 P/E. ECC: 0, as above.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from linux_onfi import NotOnfi, detect

from nandlab.errors import ParameterPageCRCError
from nandlab.onfi.identify import identify_target
from nandlab.onfi_spec import parampage as pp

SPANSION = {
    "revision": 0x0002,
    "features": 0x001E,
    "optional_commands": 0x003B,
    "manufacturer": "SPANSION",
    "model": "S34ML08G2",
    "jedec_id": 0x01,
    "page_bytes": 2048,
    "spare_bytes": 128,
    "pages_per_block": 64,
    "blocks_per_lun": 4096,
    "luns": 2,
    "address_cycles": 0x23,
    "bits_per_cell": 1,
    "endurance_value": 1,
    "endurance_multiplier": 5,
    "guaranteed_good_blocks": 1,
    "programs_per_page": 1,
    "ecc_bits": 4,
    "plane_address_bits": 1,
    "sdr_timing_modes": 0x0001,
}
MICRON_L85 = {
    "revision": pp.revisions_through("2.3"),
    "features": pp.PP_FEATURE_MULTIPLE_LUN_OPS
    | pp.PP_FEATURE_MULTIPLANE_PROGRAM_ERASE
    | pp.PP_FEATURE_NV_DDR
    | pp.PP_FEATURE_MULTIPLANE_READ,
    "optional_commands": 0x003F,
    "param_pages": 3,
    "manufacturer": "MICRON",
    "model": "MT29F64G08CBABA",
    "jedec_id": 0x2C,
    "page_bytes": 8192,
    "spare_bytes": 744,
    "pages_per_block": 256,
    "blocks_per_lun": 4096,
    "luns": 1,
    "address_cycles": 0x23,
    "bits_per_cell": 2,
    "endurance_value": 3,
    "endurance_multiplier": 3,
    "guaranteed_good_blocks": 1,
    "programs_per_page": 1,
    "plane_address_bits": 1,
    "sdr_timing_modes": 0x003F,
    "nv_ddr_timing_modes": 0x3F,
    "t_r_us": 100,
}
MICRON_L95 = {
    **MICRON_L85,
    "revision": pp.revisions_through("3.2"),
    "features": MICRON_L85["features"] | pp.PP_FEATURE_NV_DDR2,
    "model": "MT29F128G08CBECB",
    "page_bytes": 16384,
    "spare_bytes": 1872,
    "pages_per_block": 512,
    "blocks_per_lun": 2096,
    "nv_ddr_timing_modes": 0x1F,
    "nv_ddr2_timing_modes": 0x0F,
    "t_r_us": 115,
}
UID = bytes(range(16)) + bytes(0xFF - b for b in range(16))


@dataclass
class Wire:
    """The reads identification makes, answered from fixed bytes (a real part's)."""

    pages: bytes
    id_bytes: bytes = b"\x2c\x00\x04"  # Micron's JEDEC code; device code not in the source
    ce: int = 0

    def read_id(self, address: int, n: int) -> bytes:
        return (b"ONFI" if address == 0x20 else self.id_bytes)[:n]

    def read_parameter_pages(self, copies: int) -> bytes:
        return self.pages[: copies * 256]

    def read_unique_id_raw(self, copies: int) -> bytes:
        return UID * copies


def copies(values: dict[str, Any], flips: dict[int, dict[int, int]] | None = None) -> bytes:
    page = pp.build(values)
    out = bytearray(page * 3)
    for k, masks in (flips or {}).items():
        for offset, mask in masks.items():
            out[k * 256 + offset] ^= mask
    return bytes(out)


@pytest.mark.parametrize(
    ("values", "version", "onfi", "notes"),
    [
        (SPANSION, 10, "1.0", ["t_prog_us", "t_bers_us", "t_r_us", "t_ccs_ns"]),
        (MICRON_L85, 23, "2.3", ["ecc_bits", "t_prog_us", "t_bers_us", "t_ccs_ns"]),
        (MICRON_L95, 23, "3.2", ["ecc_bits", "t_prog_us", "t_bers_us", "t_ccs_ns"]),
    ],
)
def test_real_part_decodes_as_linux_does(
    values: dict[str, Any], version: int, onfi: str, notes: list[str]
) -> None:
    raw = copies(values)
    ident, geometry = identify_target(Wire(raw), None)
    linux = detect(b"ONFI", raw)
    f = ident.fields
    assert linux.version == version and f["onfi_version"] == onfi
    assert f["manufacturer"] == linux.manufacturer == values["manufacturer"]
    assert f["model"] == linux.model == values["model"]
    assert geometry.page_bytes == linux.page_bytes == values["page_bytes"]
    assert geometry.spare_bytes == linux.oob_bytes == values["spare_bytes"]
    assert geometry.planes == linux.planes == 2
    assert geometry.bits_per_cell == linux.bits_per_cell == values["bits_per_cell"]
    assert geometry.pages_per_block == values["pages_per_block"]
    assert geometry.blocks == values["blocks_per_lun"] * values["luns"]
    assert (geometry.column_cycles, geometry.row_cycles) == (2, 3)
    assert f["ecc_bits"] == linux.ecc_strength == values.get("ecc_bits", 0)
    assert f["ecc_step_bytes"] == linux.ecc_step == 512
    assert [n.split("'")[1] for n in f["conformance"]] == notes
    assert ident.parameter_page_copy == linux.copy_used == 0


def test_linux_truncates_a_block_count_that_is_not_a_power_of_two() -> None:
    linux = detect(b"ONFI", copies(MICRON_L95))
    assert linux.truncated and linux.blocks_per_lun == 2048
    _, geometry = identify_target(Wire(copies(MICRON_L95)), None)
    assert geometry.blocks == 2096  # nandlab addresses every block the part has


@pytest.mark.parametrize("values", [SPANSION, MICRON_L85, MICRON_L95])
def test_corrupted_copies(values: dict[str, Any]) -> None:
    good = pp.build(values)
    first_bad = copies(values, {0: {80: 0x01}})
    ident, _ = identify_target(Wire(first_bad), None)
    assert ident.parameter_page_copy == detect(b"ONFI", first_bad).copy_used == 1
    assert ident.parameter_page == good

    every_copy_bad = copies(values, {0: {44: 0x40}, 1: {96: 0x10}, 2: {129: 0x02}})
    ident, _ = identify_target(Wire(every_copy_bad), None)
    assert ident.majority and ident.parameter_page == good
    assert detect(b"ONFI", every_copy_bad).copy_used is None

    same_bit = copies(values, {k: {100: 0x01} for k in range(3)})
    with pytest.raises(ParameterPageCRCError, match="bitwise majority"):
        identify_target(Wire(same_bit), None)
    with pytest.raises(NotOnfi, match="recovery failed"):
        detect(b"ONFI", same_bit)


def test_legacy_id_byte_2_gives_the_cell_type() -> None:
    """Byte 2 bits 3:2: 01b = 4 levels (MLC), 00b = 2 levels (SLC)."""
    ident, _ = identify_target(Wire(copies(MICRON_L85)), None)
    assert ident.fields["id_bits_per_cell"] == 2
    slc, _ = identify_target(Wire(copies(SPANSION), id_bytes=b"\x01\x00\x00"), None)
    assert slc.fields["id_bits_per_cell"] == 1
