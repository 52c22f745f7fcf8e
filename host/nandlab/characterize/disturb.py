"""Read disturb: read WLs of a block many times so the other WLs of the block are disturbed.

Each read transfers one byte only (the array sensing is what disturbs); the
WLs are read in turn. Returns the busy time statistics of the reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nandlab.characterize.progress import ProgressFn, no_progress

if TYPE_CHECKING:
    from nandlab.onfi import Chip


@dataclass(frozen=True)
class DisturbResult:
    reads: int
    busy_ns_total: int
    busy_ns_max: int


def read_disturb(
    chip: Chip,
    block: int,
    wls: Sequence[int],
    reads: int,
    *,
    slc: bool = False,
    progress: ProgressFn = no_progress,
) -> DisturbResult:
    """Read the first page of each WL in `wls` in turn, `reads` reads in all."""
    if not wls:
        raise ValueError("read disturb needs at least one WL to read")
    bits = 1 if slc else chip.profile.geometry.bits_per_cell
    total = worst = 0
    for i in range(reads):
        wl = wls[i % len(wls)]
        got = chip.read_page(block, wl if slc else wl * bits, slc=slc, length=1)
        total += got.busy_ns
        worst = max(worst, got.busy_ns)
        if (i + 1) % 256 == 0 or i + 1 == reads:
            progress(f"read disturb block {block}", i + 1, reads)
    return DisturbResult(reads, total, worst)
