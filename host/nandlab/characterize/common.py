"""Helpers shared by the measurements: page types, cell states, latency rows."""

from __future__ import annotations

from typing import Any

import numpy as np

from nandlab.analysis import operation_energy_uJ, unpack_cells
from nandlab.profiles import Profile

PAGE_TYPE_NAMES = {1: ("SLC",), 2: ("LSB", "MSB"), 3: ("LSB", "CSB", "MSB")}


def page_type_names(profile: Profile) -> tuple[str, ...]:
    """Names of the page types of a WL, index = page type (LSB first)."""
    return PAGE_TYPE_NAMES[profile.geometry.bits_per_cell]


def page_bytes_total(profile: Profile) -> int:
    """Bytes of one page including spare."""
    return profile.geometry.page_bytes + profile.geometry.spare_bytes


def page_of(profile: Profile, wl: int, page_type: int) -> int:
    """Native-mode page address of (wl, page type)."""
    return wl * profile.geometry.bits_per_cell + page_type


def cell_states(profile: Profile, pages: dict[int, bytes]) -> np.ndarray:
    """Target state (0..2^b - 1) of every cell of a WL from its pages' data (all page types)."""
    gray = profile.geometry.gray_code
    bits = profile.geometry.bits_per_cell
    missing = set(range(bits)) - set(pages)
    if missing:
        raise ValueError(f"page types {sorted(missing)} missing: a state needs every page's bit")
    code = np.zeros(profile.geometry.cells_per_wl, dtype=np.int64)
    for p in range(bits):
        code |= unpack_cells(pages[p]).astype(np.int64) << p
    lookup = np.full(1 << bits, -1, dtype=np.int64)
    for state, g in enumerate(gray):
        lookup[sum(bit << p for p, bit in enumerate(g))] = state
    return lookup[code]


def op_row(
    profile: Profile, operation: str, busy_ns: int, base: dict[str, Any], **coords: Any
) -> dict[str, Any]:
    """A latency row: busy time in µs and the energy estimated from the datasheet currents
    (`nandlab.analysis.operation_energy_uJ`)."""
    busy_us = busy_ns / 1000.0
    return {
        **base,
        **coords,
        "operation": operation,
        "latency_us": busy_us,
        "energy_uJ": operation_energy_uJ(profile, operation, busy_us),
    }
