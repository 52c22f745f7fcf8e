"""What a virtual Toggle (JEDEC) die reports: READ ID 40h "JEDEC" and the JEDEC
parameter page (`nandlab.onfi_spec.jedec_parampage`), built from the profile.

The latencies, endurance and bad-block maximum are the same worst cases of
the die's own model as its ONFI twin reports (`vchip.identity_common`); the speed
grades are the profile's Toggle modes and every SDR mode it lists.
"""

from __future__ import annotations

import math
from typing import Any

from nandlab.onfi_spec import jedec_parampage as jp
from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.profiles.model import Profile
from nandlab.vchip import identity_common as common


def read_id(profile: Profile, address: int) -> bytes:
    """READ ID (90h) of a JEDEC part: 00h the ID bytes, 40h 'JEDEC', else zeros (no 'ONFI')."""
    if address == jp.READ_ID_JEDEC_ADDRESS:
        return jp.JEDEC_ID_SIGNATURE.ljust(common.READ_ID_BYTES, b"\x00")
    if address == 0x00:
        return bytes(profile.identity.id_bytes).ljust(common.READ_ID_BYTES, b"\x00")
    return bytes(common.READ_ID_BYTES)


def page_values(profile: Profile, copies: int) -> dict[str, Any]:
    """Field values of the JEDEC parameter page a die of this profile reports."""
    p = profile
    g, tm, ident = p.geometry, p.timing, p.identity
    t_r, t_prog, t_bers = common.latencies_us(p)
    value, mult = common.endurance_code(p.physics.endurance_pec)
    good_value, good_mult = common.endurance_code(common.GUARANTEED_BLOCK_PEC)
    codeword_log2 = ident.ecc_codeword_bytes.bit_length() - 1
    return {
        "revision": jp.REVISION_JESD230,
        "optional_commands": (
            jp.OPT_CACHE_PROGRAM
            | jp.OPT_CACHE_READ
            | jp.OPT_FEATURES
            | jp.OPT_STATUS_ENHANCED
            | jp.OPT_COPYBACK
            | jp.OPT_UNIQUE_ID
        ),
        "param_pages": copies,
        "manufacturer": ident.manufacturer,
        "model": ident.model,
        "jedec_id": bytes([ident.jedec_id]),
        "page_bytes": g.page_bytes,
        "spare_bytes": g.spare_bytes,
        "pages_per_block": g.pages_per_block,
        "blocks_per_lun": g.blocks,
        "luns": 1,
        "address_cycles": g.row_cycles | (g.column_cycles << 4),
        "bits_per_cell": g.bits_per_cell,
        "programs_per_page": 1,
        "plane_address_bits": (g.planes - 1).bit_length(),
        "async_sdr_speed_grades": sum(1 << m for m in set(tm.sdr_modes)),
        "toggle_ddr_speed_grades": sum(1 << m for m in p.interfaces.toggle_modes),
        "t_prog_us": min(0xFFFF, math.ceil(t_prog)),
        "t_bers_us": min(0xFFFF, math.ceil(t_bers)),
        "t_r_us": min(0xFFFF, math.ceil(t_r)),
        "t_r_multiplane_us": min(0xFFFF, math.ceil(t_r)),
        "t_ccs_ns": tm.t_ccs_ns,
        "t_adl_ns": max(sdr(m).tADL for m in tm.sdr_modes),
        "guaranteed_good_blocks": 1,
        "guaranteed_endurance_value": good_value,
        "guaranteed_endurance_multiplier": good_mult,
        "ecc0_bits": ident.ecc_bits,
        "ecc0_codeword_log2": codeword_log2,
        "ecc0_bad_blocks": common.max_bad_blocks(p),
        "ecc0_endurance_value": value,
        "ecc0_endurance_multiplier": mult,
        "vendor_revision": common.VENDOR_REVISION,
    }


def parameter_pages(profile: Profile, copies: int, corrupt: common.Corruption = ()) -> bytes:
    """`copies` JEDEC pages back to back, damaged as ONFI's are (`identity_common`)."""
    page = jp.build(page_values(profile, copies))
    flips = common.corruption_flips(corrupt, jp.CRC_SPAN)
    out = bytearray()
    for k in range(copies):
        copy = bytearray(page)
        for offset, mask in flips.get(k, {}).items():
            copy[offset % jp.PAGE_BYTES] ^= mask & 0xFF
        out += copy
    return bytes(out)
