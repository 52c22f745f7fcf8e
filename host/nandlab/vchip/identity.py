"""What a virtual die reports about itself: READ ID bytes, the parameter page and
the unique ID.

An ONFI part (profile identity `standard: onfi`) answers READ ID 20h with
"ONFI" and reports the ONFI parameter page, built here from the profile with
`nandlab.onfi_spec.parampage`; a Toggle part (`standard: jedec`) answers 40h
with "JEDEC" and reports the JEDEC page (`vchip.identity_jedec`). The
latency maxima are worst cases of the die's own timing model
(`vchip.identity_common`).
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

from nandlab.onfi_spec import ext_parampage, parampage
from nandlab.onfi_spec.opcodes import (
    ONFI_SIGNATURE,
    PARAMETER_PAGE_BYTES,
    PARAMETER_PAGE_COPIES,
    READ_ID_ONFI_ADDRESS,
    UNIQUE_ID_BYTES,
    UNIQUE_ID_COPIES,
)
from nandlab.onfi_spec.parampage import (
    PP_DDR_DIFFERENTIAL_DQS,
    PP_DDR_DIFFERENTIAL_RE,
    PP_DDR_SELF_TERMINATION_ODT,
    PP_FEATURE_EXT_PARAM_PAGE,
    PP_FEATURE_MULTIPLANE_PROGRAM_ERASE,
    PP_FEATURE_MULTIPLANE_READ,
    PP_FEATURE_NV_DDR2,
    PP_FEATURE_NV_DDR3,
    PP_FEATURE_ODD_EVEN_COPYBACK,
    PP_OPT_CACHE_PROGRAM,
    PP_OPT_CACHE_READ,
    PP_OPT_CHANGE_READ_COLUMN_ENHANCED,
    PP_OPT_COPYBACK,
    PP_OPT_FEATURES,
    PP_OPT_STATUS_ENHANCED,
    PP_OPT_UNIQUE_ID,
)
from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.profiles.model import Profile
from nandlab.vchip import identity_jedec
from nandlab.vchip.identity_common import (
    GUARANTEED_BLOCK_PEC,
    READ_ID_BYTES,
    VENDOR_REVISION,
    Corruption,
    corruption_flips,
    endurance_code,
    latencies_us,
    max_bad_blocks,
)


def read_id(profile: Profile, address: int) -> bytes:
    """The READ ID (90h) pattern for an address: 00h ID bytes, 20h 'ONFI' (a JEDEC part:
    40h 'JEDEC'), else zeros."""
    if profile.identity.standard == "jedec":
        return identity_jedec.read_id(profile, address)
    if address == READ_ID_ONFI_ADDRESS:
        return ONFI_SIGNATURE.ljust(READ_ID_BYTES, b"\x00")
    if address == 0x00:
        return bytes(profile.identity.id_bytes).ljust(READ_ID_BYTES, b"\x00")
    return bytes(READ_ID_BYTES)


def unique_id(profile: Profile, seed: int, chip: int) -> bytes:
    """16 bytes, deterministic from (profile name, seed, chip)."""
    key = f"{profile.name}/{seed}/{chip}".encode()
    return hashlib.blake2b(key, digest_size=UNIQUE_ID_BYTES).digest()


def unique_id_stream(uid: bytes) -> bytes:
    """READ UNIQUE ID output: the ID and its complement, 16 copies."""
    return (uid + bytes(b ^ 0xFF for b in uid)) * UNIQUE_ID_COPIES


def parameter_page_values(profile: Profile, copies: int = PARAMETER_PAGE_COPIES) -> dict[str, Any]:
    """Field values of the ONFI parameter page a die of this profile reports (`copies` copies)."""
    p = profile
    g, tm, phys = p.geometry, p.timing, p.physics
    value, mult = endurance_code(phys.endurance_pec)
    good_value, good_mult = endurance_code(GUARANTEED_BLOCK_PEC)
    t_r, t_prog, t_bers = latencies_us(p)
    features = PP_FEATURE_ODD_EVEN_COPYBACK
    if g.planes > 1:
        features |= PP_FEATURE_MULTIPLANE_PROGRAM_ERASE | PP_FEATURE_MULTIPLANE_READ
    optional = (
        PP_OPT_CACHE_PROGRAM
        | PP_OPT_CACHE_READ
        | PP_OPT_FEATURES
        | PP_OPT_STATUS_ENHANCED
        | PP_OPT_COPYBACK
        | PP_OPT_UNIQUE_ID
        | PP_OPT_CHANGE_READ_COLUMN_ENHANCED
    )
    iface = p.interfaces
    if iface.nv_ddr2_modes:
        features |= PP_FEATURE_NV_DDR2
    if iface.nv_ddr3_modes:
        features |= PP_FEATURE_NV_DDR3
    ddr_features = (
        (PP_DDR_SELF_TERMINATION_ODT if iface.odt else 0)
        | (PP_DDR_DIFFERENTIAL_RE if iface.differential_re else 0)
        | (PP_DDR_DIFFERENTIAL_DQS if iface.differential_dqs else 0)
    )
    nv_ddr2_modes = sum(1 << m for m in iface.nv_ddr2_modes)
    ecc_bits, ext_length = p.identity.ecc_bits, 0
    if p.identity.ecc_codeword_bytes != parampage.ECC_CODEWORD_BYTES:
        features |= PP_FEATURE_EXT_PARAM_PAGE
        ecc_bits = parampage.ECC_SEE_EXTENDED_PAGE
        ext_length = len(extended_page(profile)) // ext_parampage.UNIT
    return {
        "revision": parampage.revisions_through(p.identity.onfi_version),
        "ext_param_page_length": ext_length,
        "features": features,
        "optional_commands": optional,
        "param_pages": copies,
        "manufacturer": p.identity.manufacturer,
        "model": p.identity.model,
        "jedec_id": p.identity.jedec_id,
        "page_bytes": g.page_bytes,
        "spare_bytes": g.spare_bytes,
        "pages_per_block": g.pages_per_block,
        "blocks_per_lun": g.blocks,
        "luns": 1,
        "address_cycles": g.row_cycles | (g.column_cycles << 4),
        "bits_per_cell": g.bits_per_cell,
        "max_bad_blocks": max_bad_blocks(p),
        "endurance_value": value,
        "endurance_multiplier": mult,
        "guaranteed_good_blocks": 1,
        "guaranteed_endurance_value": good_value,
        "guaranteed_endurance_multiplier": good_mult,
        "programs_per_page": 1,
        "ecc_bits": ecc_bits,
        "plane_address_bits": (g.planes - 1).bit_length(),
        "sdr_timing_modes": sum(1 << m for m in set(tm.sdr_modes)),
        "t_prog_us": min(0xFFFF, math.ceil(t_prog)),
        "t_bers_us": min(0xFFFF, math.ceil(t_bers)),
        "t_r_us": min(0xFFFF, math.ceil(t_r)),
        "t_ccs_ns": tm.t_ccs_ns,
        "t_r_multiplane_us": min(0xFFFF, math.ceil(t_r)),
        "t_adl_ns": max(sdr(m).tADL for m in tm.sdr_modes),
        "nv_ddr2_timing_modes": nv_ddr2_modes & 0xFF,
        "nv_ddr2_timing_modes_high": nv_ddr2_modes >> 8,
        "nv_ddr3_timing_modes": sum(1 << m for m in iface.nv_ddr3_modes),
        "nv_ddr23_features": ddr_features if iface.ddr else 0,
        "nv_ddr23_warmup": iface.warmup_code * 0x11 if iface.ddr else 0,
        "vendor_revision": VENDOR_REVISION,
    }


def extended_page(profile: Profile) -> bytes:
    """The extended parameter page (ECC section) of a part whose codeword is not 512 bytes."""
    value, mult = endurance_code(profile.physics.endurance_pec)
    return ext_parampage.build(
        ext_parampage.EccInfo(
            bits=profile.identity.ecc_bits,
            codeword_bytes=profile.identity.ecc_codeword_bytes,
            max_bad_blocks=max_bad_blocks(profile),
            endurance_value=value,
            endurance_multiplier=mult,
        )
    )


def parameter_pages(profile: Profile, copies: int, corrupt: Corruption = ()) -> bytes:
    """The READ PARAMETER PAGE stream: JEDEC pages for a JEDEC part, else ONFI's."""
    if profile.identity.standard == "jedec":
        return identity_jedec.parameter_pages(profile, copies, corrupt)
    return onfi_parameter_pages(profile, copies, corrupt)


def onfi_parameter_pages(profile: Profile, copies: int, corrupt: Corruption = ()) -> bytes:
    """`copies` parameter pages back to back, with the chosen copies damaged, then as many
    copies of the extended parameter page when the part has one.

    `corrupt` is a set of copy indices (see CORRUPT_BASE) or a mapping
    copy index -> {byte offset: XOR mask}.
    """
    page = parampage.build(parameter_page_values(profile, copies))
    flips = corruption_flips(corrupt, parampage.CRC_SPAN)
    out = bytearray()
    for k in range(copies):
        copy = bytearray(page)
        for offset, mask in flips.get(k, {}).items():
            copy[offset % PARAMETER_PAGE_BYTES] ^= mask & 0xFF
        out += copy
    if profile.identity.ecc_codeword_bytes != parampage.ECC_CODEWORD_BYTES:
        out += extended_page(profile) * copies
    return bytes(out)


class ByteStream:
    """A fixed byte pattern as data out reads it: repeating forever (READ ID, parameter
    page, unique ID) or, with wrap False, zeros past its end (GET FEATURES)."""

    def __init__(self, data: bytes = b"", wrap: bool = True) -> None:
        self._data = data
        self._pos = 0
        self._wrap = wrap

    def take(self, n: int) -> bytes:
        s, pos = self._data, self._pos
        self._pos += n
        if not self._wrap:
            return s[pos : pos + n].ljust(n, b"\x00")
        pos %= len(s)
        reps = (pos + n) // len(s) + 1
        return (s * reps)[pos : pos + n]
