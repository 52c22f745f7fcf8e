"""What a virtual die reports about itself: READ ID bytes, the ONFI parameter
page (built from the profile with `nandlab.onfi_spec.parampage`) and the unique ID.

The parameter page's latency maxima are worst cases of the die's own timing
model: tR for the page type with the most sensings, tPROG for the slowest cell
reaching the highest verify level, tBERS at rated endurance.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping
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
from nandlab.vchip.physics import ERASE_PULSES_AT_ENDURANCE, ispp_loops

READ_ID_BYTES = 8  # READ ID: the ID bytes, zero padded to 8, repeating
GUARANTEED_BLOCK_PEC = 1000  # block 0 stays valid this long (ONFI byte 107-109)
VENDOR_REVISION = 1  # bytes 164-165; the vendor block (166-253) is all zeros

# `corrupt` given as copy indices: copy k gets byte CORRUPT_BASE + CORRUPT_STRIDE * k
# inverted, so every damaged copy fails its CRC in a different byte and a bitwise
# majority over the copies still recovers the page.
CORRUPT_BASE = 8
CORRUPT_STRIDE = 11

Corruption = Iterable[int] | Mapping[int, Mapping[int, int]]


def read_id(profile: Profile, address: int) -> bytes:
    """The READ ID (90h) pattern for an address: 00h ID bytes, 20h 'ONFI', else zeros."""
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


def _endurance(cycles: int) -> tuple[int, int]:
    """(value, multiplier) with value x 10^multiplier >= cycles and value <= 255."""
    value, mult = cycles, 0
    while value > 0xFF:
        value, mult = -(-value // 10), mult + 1
    return value, mult


def parameter_page_values(profile: Profile, copies: int = PARAMETER_PAGE_COPIES) -> dict[str, Any]:
    """Field values of the ONFI parameter page a die of this profile reports (`copies` copies)."""
    p = profile
    g, tm, phys = p.geometry, p.timing, p.physics
    value, mult = _endurance(phys.endurance_pec)
    good_value, good_mult = _endurance(GUARANTEED_BLOCK_PEC)
    loop_us = phys.ispp.t_loop_us + (len(phys.verify_mV) - 1) * phys.ispp.t_verify_us
    t_prog = tm.t_prog_base_us + ispp_loops(phys, max(phys.verify_mV)) * loop_us
    t_bers = tm.t_erase_base_us + ERASE_PULSES_AT_ENDURANCE * tm.t_erase_pulse_us
    t_r = tm.t_read_base_us + max(len(r) for r in p.page_refs) * tm.t_sense_us
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
        "max_bad_blocks": _max_bad_blocks(p),
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
    value, mult = _endurance(profile.physics.endurance_pec)
    return ext_parampage.build(
        ext_parampage.EccInfo(
            bits=profile.identity.ecc_bits,
            codeword_bytes=profile.identity.ecc_codeword_bytes,
            max_bad_blocks=_max_bad_blocks(profile),
            endurance_value=value,
            endurance_multiplier=mult,
        )
    )


def _max_bad_blocks(profile: Profile) -> int:
    expected = profile.physics.bad_block_rate * profile.geometry.blocks
    return math.ceil(expected + 6 * math.sqrt(expected))


def parameter_pages(profile: Profile, copies: int, corrupt: Corruption = ()) -> bytes:
    """`copies` parameter pages back to back, with the chosen copies damaged, then as many
    copies of the extended parameter page when the part has one.

    `corrupt` is a set of copy indices (see CORRUPT_BASE) or a mapping
    copy index -> {byte offset: XOR mask}.
    """
    page = parampage.build(parameter_page_values(profile, copies))
    if isinstance(corrupt, Mapping):
        flips = {int(k): dict(v) for k, v in corrupt.items()}
    else:
        flips = {
            k: {(CORRUPT_BASE + CORRUPT_STRIDE * k) % parampage.CRC_SPAN: 0xFF} for k in corrupt
        }
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
