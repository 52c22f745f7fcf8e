"""What every virtual die reports about itself whichever standard it follows (ONFI:
`vchip.identity`, JEDEC / Toggle: `vchip.identity_jedec`): the worst-case latencies
of its own timing model, endurance codes, the bad-block maximum, and how tests damage
parameter page copies.

Latencies: tR for the page type with the most sensings, tPROG for the slowest cell
reaching the highest verify level, tBERS at rated endurance.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

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


def endurance_code(cycles: int) -> tuple[int, int]:
    """(value, multiplier) with value x 10^multiplier >= cycles and value <= 255."""
    value, mult = cycles, 0
    while value > 0xFF:
        value, mult = -(-value // 10), mult + 1
    return value, mult


def latencies_us(profile: Profile) -> tuple[float, float, float]:
    """(tR, tPROG, tBERS) maxima in us, worst cases of the die's own timing model."""
    tm, phys = profile.timing, profile.physics
    loop_us = phys.ispp.t_loop_us + (len(phys.verify_mV) - 1) * phys.ispp.t_verify_us
    t_prog = tm.t_prog_base_us + ispp_loops(phys, max(phys.verify_mV)) * loop_us
    t_bers = tm.t_erase_base_us + ERASE_PULSES_AT_ENDURANCE * tm.t_erase_pulse_us
    t_r = tm.t_read_base_us + max(len(r) for r in profile.page_refs) * tm.t_sense_us
    return t_r, t_prog, t_bers


def max_bad_blocks(profile: Profile) -> int:
    """Bad blocks maximum per LUN: the expected count plus six standard deviations."""
    expected = profile.physics.bad_block_rate * profile.geometry.blocks
    return math.ceil(expected + 6 * math.sqrt(expected))


def corruption_flips(corrupt: Corruption, crc_span: int) -> dict[int, dict[int, int]]:
    """copy index -> {byte offset: XOR mask} for a `corrupt` argument (see CORRUPT_BASE)."""
    if isinstance(corrupt, Mapping):
        return {int(k): dict(v) for k, v in corrupt.items()}
    return {k: {(CORRUPT_BASE + CORRUPT_STRIDE * k) % crc_span: 0xFF} for k in corrupt}
