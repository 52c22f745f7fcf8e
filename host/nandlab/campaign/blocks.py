"""Which blocks a campaign runs on: checked against the part's geometry before any chip is
opened (`planned_blocks`), then against the chip ledger and factory markers (`choose_blocks`)."""

from __future__ import annotations

import numpy as np

from nandlab.campaign.bench_session import BenchSession
from nandlab.campaign.schema import LoadedCampaign
from nandlab.ledger import Ledger


def _random_order(loaded: LoadedCampaign, nblocks: int) -> list[int]:
    r = loaded.campaign.blocks.random
    assert r is not None
    if not r.from_ <= r.to < nblocks:
        raise loaded.error(("blocks", "random"), f"from..to must lie in 0..{nblocks - 1}")
    if r.count > r.to - r.from_ + 1:
        raise loaded.error(
            ("blocks", "random", "count"),
            f"{r.count} blocks asked from the {r.to - r.from_ + 1} blocks {r.from_}..{r.to}",
        )
    order = np.random.default_rng(r.seed).permutation(np.arange(r.from_, r.to + 1))
    return [int(b) for b in order.tolist()]


def planned_blocks(loaded: LoadedCampaign, nblocks: int) -> list[int]:
    """The blocks the campaign selects on a part of `nblocks` blocks, none of them bad (a
    random choice: the first of its seeded order); CampaignFileError for a block outside the
    part, a block listed twice or an empty selection. Needs no chip: the geometry is the
    datasheet's (the profile's)."""
    spec = loaded.campaign.blocks
    if spec.random is not None:
        return _random_order(loaded, nblocks)[: spec.random.count]
    where: tuple[str | int, ...]
    if spec.range is not None:
        r = spec.range
        where = ("blocks", "range")
        for name, b in (("from", r.from_), ("to", r.to)):
            if b >= nblocks:
                raise loaded.error(
                    (*where, name), f"block {b} is outside the chip: allowed 0..{nblocks - 1}"
                )
        blocks = list(range(r.from_, r.to + 1, r.step))
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
    return blocks


def choose_blocks(
    loaded: LoadedCampaign, session: BenchSession, ledger: Ledger | None, ids: dict[int, str]
) -> list[int]:
    """The campaign's blocks: listed, a range or a seeded random choice of good blocks.

    A listed block that the ledger or the factory marker calls bad is an error (naming
    why); a random choice skips bad blocks. `ledger` None: a fresh virtual die, whose
    history the run will reset, so only its factory markers count."""
    spec = loaded.campaign.blocks
    chips = list(session.chips.values())
    nblocks = chips[0].geometry.blocks

    def bad(block: int) -> str | None:
        for chip in chips:
            if ledger is not None and block in ledger.bad_blocks(ids[chip.ce]):
                return f"the chip ledger lists block {block} of chip {ids[chip.ce]} as bad"
            if chip.is_bad_block(block):
                return f"block {block} carries the factory bad-block marker (CE {chip.ce})"
        return None

    if spec.random is not None:
        r = spec.random
        out: list[int] = []
        for b in _random_order(loaded, nblocks):
            if bad(b) is None:
                out.append(b)
            if len(out) == r.count:
                return out
        raise loaded.error(
            ("blocks", "random", "count"),
            f"only {len(out)} good blocks in {r.from_}..{r.to}, {r.count} asked",
        )
    blocks = planned_blocks(loaded, nblocks)
    where = ("blocks", "range") if spec.range is not None else ("blocks",)
    for b in blocks:
        why = bad(b)
        if why:
            raise loaded.error(where, f"{why}: remove it, or use blocks: {{random: ...}}")
    return blocks
