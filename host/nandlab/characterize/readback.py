"""Program pages with a known pattern (native or SLC mode), read them back, count bit errors.

A page's data is regenerated from a `DataSpec` (pattern, seed, scrambler, inverse), the
read may be in SLC mode, errors can be split per chunk of `chunk_bytes`, and program /
read energy can be measured through the POWER window.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from nandlab.analysis import bit_errors, chunk_bit_errors
from nandlab.characterize.common import op_row, page_bytes_total, page_type_names
from nandlab.ops.pattern import page_pattern

if TYPE_CHECKING:
    from nandlab.onfi import Chip
    from nandlab.onfi.power import EnergyMeasurement
    from nandlab.profiles import Profile

SCRAMBLE_STREAM = 0x5C
STRING_CHECKER = "checker-string"
"""Checkerboard along each WL and along each string (WL w's phase is (w // sub_blocks) % 2):
every cell's neighbours on its WL and on its string hold the other value, the worst case
for program interference in a 3D part (on a one-string part the same as `checker`)."""
RANDOM_MSB = "random-msb"
"""Random data in the MSB page of each WL, the LSB page all 0: the layout MCFlash's NOT
reads its operand from (a constant other page). WL 0 holds random data in both pages: the
calibration WL whose Vth sweep shows a planner every state at the block's wear."""


@dataclass(frozen=True)
class DataSpec:
    """How a page's data is made: `pattern` (random, checker, zeros, ones, file), seeded
    `scramble` (XOR with a pseudo-random stream), `inverse`; `file_data` for pattern file."""

    pattern: str
    seed: int
    scramble: bool = False
    inverse: bool = False
    slc: bool = False
    file_data: bytes = b""
    mlc: bool = False
    """Programmed in a TLC die's MLC mode through its test mode (2 pages a WL: lower, upper)."""


MLC_PAGE_TYPES = [(0, "lower"), (1, "upper")]


def spec_pages(profile: Profile, spec: DataSpec) -> list[tuple[int, str]]:
    """(page type index, name) of one WL as `spec` was programmed."""
    return MLC_PAGE_TYPES if spec.mlc else page_types(profile, spec.slc)


def spec_page(profile: Profile, spec: DataSpec, wl: int, page_type: int) -> int:
    """The page address of (wl, page type) as `spec` was programmed."""
    return wl * 2 + page_type if spec.mlc else page_address(profile, wl, page_type, spec.slc)


def page_types(profile: Profile, slc: bool) -> list[tuple[int, str]]:
    """(page type index, name) of one WL in the mode."""
    return [(0, "SLC")] if slc else list(enumerate(page_type_names(profile)))


def page_address(profile: Profile, wl: int, page_type: int, slc: bool) -> int:
    return wl if slc else wl * profile.geometry.bits_per_cell + page_type


def page_data(profile: Profile, spec: DataSpec, block: int, wl: int, page_type: int) -> bytes:
    """The bytes (data + spare) written to one page; the bad-block marker byte stays FFh."""
    total = page_bytes_total(profile)
    page = spec_page(profile, spec, wl, page_type)
    if spec.pattern.startswith("file:"):
        reps = -(-total // max(len(spec.file_data), 1))
        data = np.frombuffer((spec.file_data * reps)[:total], dtype=np.uint8).copy()
    else:
        kind, phase = spec.pattern, wl
        if kind == STRING_CHECKER:
            kind, phase = "checker", wl // profile.geometry.sub_blocks
            if spec.mlc and page_type == 1:
                # upper page 1 on every cell: the checker alternates L0 (11) and the highest
                # state L3 (lower 0, upper 1), not L2
                kind = "ones"
        elif kind == RANDOM_MSB:
            kind = "random" if page_type == 1 or wl == 0 else "zeros"
        data = np.frombuffer(
            page_pattern(kind, total, seed=spec.seed, block=block, page=page, wl=phase),
            dtype=np.uint8,
        ).copy()
    if spec.scramble:
        rng = np.random.default_rng([spec.seed, block, page, SCRAMBLE_STREAM])
        data ^= rng.integers(0, 256, total, dtype=np.uint8)
    if spec.inverse:
        data ^= 0xFF
    data[profile.geometry.page_bytes] = 0xFF
    return data.tobytes()


def wl_data(profile: Profile, spec: DataSpec, block: int, wl: int) -> dict[int, bytes]:
    """The data of every page type of one native-mode WL (page type -> data + spare)."""
    return {
        pt: page_data(profile, spec, block, wl, pt)
        for pt in range(profile.geometry.bits_per_cell)
    }


PAGE_ORDERS = ("wl", "mlc")


def page_order(
    profile: Profile, wls: Sequence[int], slc: bool, order: str
) -> list[tuple[int, int]]:
    """(wl, page type) in programming order. "wl": WL by WL, LSB first. "mlc": the page order of
    MLC parts, a WL's MSB page after the LSB page of the next WL on its string (wl +
    sub_blocks), so that neighbour's large first step lands before this WL's last verify and
    only its MSB step disturbs the finished WL (program interference, Cai et al.)."""
    types = [pt for pt, _ in page_types(profile, slc)]
    ws = sorted(wls)
    if order == "wl" or len(types) != 2:
        return [(wl, pt) for wl in ws for pt in types]
    stride = profile.geometry.sub_blocks
    held = set(ws)
    seq = [(wl, 0) for wl in ws if wl - stride not in held]
    for wl in ws:
        if wl + stride in held:
            seq.append((wl + stride, 0))
        seq.append((wl, 1))
    return seq


def program_pages(
    chip: Chip,
    block: int,
    wls: Sequence[int],
    spec: DataSpec,
    base: dict[str, Any],
    *,
    power: bool = False,
    order: str = "wl",
) -> list[dict[str, Any]]:
    """Program every page of `wls` of an erased block in `order` (`page_order`); one row per
    page (latency, and measured energy when `power`)."""
    from nandlab.onfi.power import program_energy

    profile = chip.profile
    names = dict(page_types(profile, spec.slc))
    rows = []
    for wl, pt in page_order(profile, wls, spec.slc, order):
        name = names[pt]
        page = page_address(profile, wl, pt, spec.slc)
        data = page_data(profile, spec, block, wl, pt)
        coords = {**base, "block": block, "wl": wl, "page": page, "page_type": name}
        if power:
            m = program_energy(chip, block, page, data, slc=spec.slc)
            rows.append(energy_row(m, coords))
        else:
            result = chip.program_page(block, page, data, slc=spec.slc, blank_check=False)
            rows.append(
                op_row(profile, "program", result.busy_ns, coords, status=result.status)
            )
    return rows


def energy_row(m: EnergyMeasurement, coords: dict[str, Any]) -> dict[str, Any]:
    """A latency row whose energy was measured over the POWER window."""
    return {
        **coords,
        "operation": m.operation,
        "latency_us": m.busy_ns / 1000.0,
        "energy_uJ": m.energy_uJ,
        "energy_measured": True,
        "mean_mA": m.mean_mA,
        "peak_mA": m.peak_mA,
        "status": m.status,
    }


def measure_pages(
    chip: Chip,
    block: int,
    wls: Sequence[int],
    spec: DataSpec,
    base: dict[str, Any],
    *,
    chunk_bytes: int | None = None,
) -> list[dict[str, Any]]:
    """Read every page of `wls` at the current read references: per page one "rber" row
    (split 0->1 / 1->0) and one "read" latency row; per chunk an "rber_chunk" row on request."""
    from nandlab.onfi import TestMode

    profile = chip.profile
    rows: list[dict[str, Any]] = []
    mlc = TestMode(chip, allow_test_mode=True) if spec.mlc else None
    for wl in sorted(wls):
        for pt, name in spec_pages(profile, spec):
            page = spec_page(profile, spec, wl, pt)
            expected = page_data(profile, spec, block, wl, pt)
            got = mlc.read_mlc(block, page) if mlc else chip.read_page(block, page, slc=spec.slc)
            coords = {**base, "block": block, "wl": wl, "page": page, "page_type": name}
            rows.append(rber_row(expected, got.data, coords))
            rows.append(op_row(profile, "read", got.busy_ns, coords, energy_measured=False))
            if chunk_bytes:
                for i, errs in enumerate(chunk_bit_errors(expected, got.data, chunk_bytes)):
                    rows.append({**coords, "operation": "rber_chunk", **errs.as_row(), "chunk": i})
    return rows


def rber_row(expected: bytes, read: bytes, coords: dict[str, Any]) -> dict[str, Any]:
    """An "rber" row: bits compared and bit errors split by direction."""
    return {**coords, "operation": "rber", **bit_errors(expected, read).as_row()}
