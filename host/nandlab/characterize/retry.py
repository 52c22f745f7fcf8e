"""Read-retry search: the read offsets that minimise each page type's bit errors.

For every page type, each read reference that page uses is swept over its
DAC codes (every `code_step`-th, and 0) with the others at their defaults;
the code with the fewest errors on that page wins (ties: the code nearest
0). The page is then read once more with every winning code set. Offsets
are reset to the defaults at the end, also on error. Native mode only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nandlab.analysis import bit_errors
from nandlab.characterize.readback import DataSpec, page_address, page_data, page_types, rber_row

if TYPE_CHECKING:
    from nandlab.onfi import Chip


def search_offsets(
    chip: Chip, block: int, wl: int, spec: DataSpec, base: dict[str, Any], *, code_step: int = 4
) -> list[dict[str, Any]]:
    """Rows: per page type one "read_retry" row (errors at the best offsets, `offsets` = codes
    of every reference) and per reference one "retry_offset" row (`offset_mV`)."""
    profile = chip.profile
    ro = profile.read_offsets
    codes = sorted(set(range(ro.code_min, ro.code_max + 1, code_step)) | {0})
    rows: list[dict[str, Any]] = []
    try:
        chip.reset_read_offsets()
        for pt, name in page_types(profile, False):
            page = page_address(profile, wl, pt, False)
            expected = page_data(profile, spec, block, wl, pt)
            best: dict[int, int] = {}
            for r in profile.page_refs[pt]:
                scores = []
                for code in codes:
                    chip.set_read_offset_code(r, code)
                    got = chip.read_page(block, page)
                    scores.append((bit_errors(expected, got.data).errors, abs(code), code))
                best[r] = min(scores)[2]
                chip.set_read_offset_code(r, 0)
            for r, code in best.items():
                chip.set_read_offset_code(r, code)
            got = chip.read_page(block, page)
            offsets = [best.get(r, 0) for r in range(len(ro.references))]
            coords = {**base, "block": block, "wl": wl, "page": page, "page_type": name}
            rows.append(
                {
                    **rber_row(expected, got.data, coords),
                    "operation": "read_retry",
                    "offsets": offsets,
                }
            )
            for r, code in best.items():
                rows.append(
                    {
                        **coords,
                        "operation": "retry_offset",
                        "reference": ro.references[r].name,
                        "offset_mV": code * ro.step_mV,
                        "offsets": offsets,
                    }
                )
            chip.reset_read_offsets()
    finally:
        chip.reset_read_offsets()
    return rows
