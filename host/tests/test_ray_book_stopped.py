"""The Ray head books a unit stopped half-way in a worker as the one-process runner does:
a status FAIL marks the block bad in the ledger, the wear goes under the unit's key on a
virtual die (a retry replaces it) and under a key of its own on a real chip (kept)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nandlab.campaign.ray_runner import book_stopped
from nandlab.campaign.ray_worker import ShardUnit
from nandlab.campaign.steps.cycle import CycleStep
from nandlab.campaign.unit import Unit
from nandlab.errors import ChipStatusFail
from nandlab.ledger import Ledger
from nandlab.onfi.wear import BlockCycles

UID = "0123456789abcdef0123456789abcdef"
UNIT = Unit(3, "s00.cycle/ce0/b7", 0, "cycle", CycleStep(pec=300), {}, 1, ce=0, block=7)


def _stopped(erases: int) -> ShardUnit:
    fail = ChipStatusFail("ERASE block 7: status E1h (FAIL)")
    return ShardUnit(UNIT.index, UNIT.key, UNIT.seed, [], [], 0, 0.1, None, error=fail,
                     wear={UID: {7: BlockCycles(erases=erases)}},
                     bad=(UID, 7, f"status FAIL: {fail}"))


@pytest.mark.parametrize("url, kept", [("sim://mlc-64l", 2), ("ftdi://ftdi:2232h/1", 3)])
def test_a_status_fail_marks_the_block_bad_and_books_the_wear(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str, kept: int
) -> None:
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path))
    meta = {"run_id": "r1", "bench_url": url}
    with Ledger() as book:
        book_stopped(book, meta, UNIT, _stopped(1))
        assert book.bad_blocks(UID) == {7: "status FAIL: ERASE block 7: status E1h (FAIL)"}
        assert book.wear(UID)[7].pec == 1
        book_stopped(book, meta, UNIT, _stopped(2))  # the retry stops too, later
        # virtual: the retry's wear replaces the first attempt's; real: both are kept
        assert book.wear(UID)[7].pec == kept
