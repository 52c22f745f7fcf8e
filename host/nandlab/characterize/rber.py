"""Raw bit error rate: program WLs with a known pattern, read them back, count bit errors.

Errors are split by direction, per page: 0->1 (expected 0, read 1) and
1->0 (expected 1, read 0). Every row carries the bits it observed, so a zero
is always "0 errors in N bits".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from nandlab.characterize.common import op_row, page_bytes_total, page_of, page_type_names
from nandlab.characterize.progress import ProgressFn, no_progress
from nandlab.characterize.readback import rber_row
from nandlab.errors import AddressError
from nandlab.ops.pattern import page_pattern

if TYPE_CHECKING:
    from nandlab.onfi import Chip
    from nandlab.profiles import Profile

WlPages = dict[int, dict[int, bytes]]
"""wl -> page type -> the page data written."""


def check_wls(profile: Profile, wls: Sequence[int]) -> None:
    n = profile.geometry.wls_per_block
    if not wls:
        raise AddressError(f"no WLs given: allowed WLs 0..{n - 1}")
    for wl in wls:
        if not 0 <= wl < n:
            raise AddressError(f"WL {wl} is outside the block: allowed 0..{n - 1}")
    if len(set(wls)) != len(wls):
        raise AddressError("a WL is listed twice")


def wl_pattern(
    profile: Profile, block: int, wl: int, *, seed: int, pattern: str = "random"
) -> dict[int, bytes]:
    """The data of every page type of one WL for `pattern` (seeded per block and page)."""
    total = page_bytes_total(profile)
    return {
        pt: page_pattern(
            pattern,
            total,
            seed=seed,
            block=block,
            page=page_of(profile, wl, pt),
            wl=wl,
            marker_column=profile.geometry.page_bytes,
        )
        for pt in range(profile.geometry.bits_per_cell)
    }


def program_wls(
    chip: Chip,
    profile: Profile,
    block: int,
    wls: Sequence[int],
    *,
    seed: int,
    pattern: str = "random",
    base: dict[str, Any] | None = None,
    progress: ProgressFn = no_progress,
) -> tuple[WlPages, list[dict[str, Any]]]:
    """Program every page of `wls` (in WL order, LSB first) of a block just erased
    (no blank check).

    Returns the data written and one program-latency row per page.
    """
    check_wls(profile, wls)
    names = page_type_names(profile)
    written: WlPages = {}
    rows: list[dict[str, Any]] = []
    for i, wl in enumerate(sorted(wls)):
        written[wl] = wl_pattern(profile, block, wl, seed=seed, pattern=pattern)
        for pt, data in written[wl].items():
            page = page_of(profile, wl, pt)
            result = chip.program_page(block, page, data, blank_check=False)
            rows.append(
                op_row(
                    profile,
                    "program",
                    result.busy_ns,
                    dict(base or {}),
                    block=block,
                    wl=wl,
                    page=page,
                    page_type=names[pt],
                    pattern=pattern,
                    seed=seed,
                    status=result.status,
                )
            )
        progress(f"programming block {block}", i + 1, len(wls))
    return written, rows


def measure_rber(
    chip: Chip,
    profile: Profile,
    block: int,
    written: WlPages,
    *,
    base: dict[str, Any] | None = None,
    progress: ProgressFn = no_progress,
) -> list[dict[str, Any]]:
    """Read back every page in `written` at the default read references (offsets are reset
    first: an earlier session may have left some set); one "rber" and one "read" row per page."""
    names = page_type_names(profile)
    rows: list[dict[str, Any]] = []
    chip.reset_read_offsets()
    defaults = [0] * len(profile.read_offsets.references)
    for i, wl in enumerate(sorted(written)):
        for pt, expected in sorted(written[wl].items()):
            page = page_of(profile, wl, pt)
            got = chip.read_page(block, page)
            coords = dict(base or {})
            coords.update(block=block, wl=wl, page=page, page_type=names[pt], offsets=defaults)
            rows.append(rber_row(expected, got.data, coords))
            rows.append(op_row(profile, "read", got.busy_ns, coords))
        progress(f"reading block {block}", i + 1, len(written))
    return rows
