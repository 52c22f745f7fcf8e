"""P/E wear: bring a block to N program/erase cycles, then erase it for a measurement.

On a virtual bench that can fast-forward wear (the bench role "wear"), the
first N-1 cycles are added to the die's wear state in no time and the last
cycle is real (the erase here, the measurement's program after it); rows say
so with fast_forwarded=True. Elsewhere every cycle is a real erase and a
program of every page with random data, which takes real time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nandlab.bench import Bench
from nandlab.characterize.common import op_row, page_bytes_total
from nandlab.characterize.progress import ProgressFn, no_progress
from nandlab.errors import UsageError
from nandlab.ops.pattern import page_pattern

if TYPE_CHECKING:
    from nandlab.onfi import Chip
    from nandlab.profiles import Profile
    from nandlab.transport.base import Transport

MAX_PEC = 1_000_000


@dataclass(frozen=True)
class WearResult:
    """How block `block` got to `pec` cycles; `erase_row` is the final erase's latency row."""

    block: int
    pec: int
    fast_forwarded_cycles: int
    real_cycles: int
    erase_row: dict[str, Any]

    @property
    def fast_forwarded(self) -> bool:
        return self.fast_forwarded_cycles > 0


def check_pec(pec: int) -> None:
    if not 0 <= pec <= MAX_PEC:
        raise UsageError(f"P/E cycle count {pec} is out of range: allowed 0..{MAX_PEC}")


def cycle_block(
    transport: Transport,
    chip: Chip,
    profile: Profile,
    block: int,
    pec: int,
    *,
    ce: int = 0,
    seed: int = 0,
    base: dict[str, Any] | None = None,
    progress: ProgressFn = no_progress,
) -> WearResult:
    """Add `pec` - 1 cycles of wear to `block` (none for pec 0) and erase it once more.

    The caller's program after this erase completes cycle `pec`. `base` holds
    coordinates copied into the erase row.
    """
    check_pec(pec)
    before = max(pec - 1, 0)
    fast = 0
    fast_ns = 0
    real = 0
    bench = Bench(transport)
    if before and bench.has("wear"):
        fast_ns = bench.wear.fast_forward_wear(ce, block, before)
        chip.wear.fast_forwarded(block, before)
        fast = before
    elif before:
        total = page_bytes_total(profile)
        pages = profile.geometry.pages_per_block
        for cycle in range(before):
            chip.erase_block(block)
            for page in range(pages):
                data = page_pattern(
                    "random",
                    total,
                    seed=seed + cycle + 1,
                    block=block,
                    page=page,
                    marker_column=profile.geometry.page_bytes,
                )
                chip.program_page(block, page, data, blank_check=False)
            real += 1
            progress(f"cycling block {block}", cycle + 1, before)
    result = chip.erase_block(block)
    row = op_row(
        profile,
        "erase",
        result.busy_ns,
        dict(base or {}),
        block=block,
        pec=pec,
        fast_forwarded=fast > 0,
        fast_forwarded_cycles=fast,
        fast_forward_chip_s=fast_ns / 1e9,
        status=result.status,
    )
    return WearResult(block, pec, fast, real + 1, row)
