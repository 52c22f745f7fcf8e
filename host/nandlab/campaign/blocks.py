"""Which blocks a campaign runs on, checked against the chip ledger and factory markers."""

from __future__ import annotations

import numpy as np

from nandlab.campaign.bench_session import BenchSession
from nandlab.campaign.schema import LoadedCampaign
from nandlab.ledger import Ledger


def choose_blocks(
    loaded: LoadedCampaign, session: BenchSession, ledger: Ledger, ids: dict[int, str]
) -> list[int]:
    """The campaign's blocks: listed, a range or a seeded random choice of good blocks.

    A listed block that the ledger or the factory marker calls bad is an error (naming
    why); a random choice skips bad blocks."""
    spec = loaded.campaign.blocks
    chips = list(session.chips.values())
    nblocks = chips[0].geometry.blocks

    def bad(block: int) -> str | None:
        for chip in chips:
            if block in ledger.bad_blocks(ids[chip.ce]):
                return f"the chip ledger lists block {block} of chip {ids[chip.ce]} as bad"
            if chip.is_bad_block(block):
                return f"block {block} carries the factory bad-block marker (CE {chip.ce})"
        return None

    if spec.random is not None:
        r = spec.random
        if not r.from_ <= r.to < nblocks:
            raise loaded.error(("blocks", "random"), f"from..to must lie in 0..{nblocks - 1}")
        order = np.random.default_rng(r.seed).permutation(np.arange(r.from_, r.to + 1))
        out: list[int] = []
        for b in order.tolist():
            if bad(b) is None:
                out.append(int(b))
            if len(out) == r.count:
                return out
        raise loaded.error(
            ("blocks", "random", "count"),
            f"only {len(out)} good blocks in {r.from_}..{r.to}, {r.count} asked",
        )
    if spec.range is not None:
        blocks = list(range(spec.range.from_, spec.range.to + 1, spec.range.step))
        where: tuple[str | int, ...] = ("blocks", "range")
    else:
        blocks = list(spec.blocks or [])
        where = ("blocks",)
    if not blocks:
        raise loaded.error(where, "selects no block")
    if len(set(blocks)) != len(blocks):
        raise loaded.error(where, "a block is listed twice")
    for b in blocks:
        if not 0 <= b < nblocks:
            raise loaded.error(where, f"block {b} is outside the chip: allowed 0..{nblocks - 1}")
        why = bad(b)
        if why:
            raise loaded.error(where, f"{why}: remove it, or use blocks: {{random: ...}}")
    return blocks
