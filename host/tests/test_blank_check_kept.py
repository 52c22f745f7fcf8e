"""The blank check of an upper page reads that page only when this target wrote its lower
pages (their data kept since), and reads the lower pages again whenever anything may have
changed them: another program of theirs, an erase of the block, a command the target does
not know. Its answers do not change: a page written behind its back is still refused."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from nandlab.errors import RefusedOperation
from nandlab.onfi import Chip
from nandlab.onfi_spec.opcodes import Cmd
from nandlab.ops import Program
from nandlab.transport.sim import SimTransport

BLOCK = 6


@pytest.fixture
def chip() -> Iterator[Chip]:
    bench = SimTransport("tlc-48l", seed=3, persist=False)
    chip = Chip(bench)
    chip.identify()
    chip.erase_block(BLOCK)
    yield chip
    bench.close()


def _page(seed: int, chip: Chip) -> bytes:
    return np.random.default_rng(seed).integers(0, 256, chip.geometry.total_bytes,
                                                dtype=np.uint8).tobytes()


def _reads(chip: Chip, run: object) -> int:
    """Page reads (00h-30h) the target sends while `run()` runs."""
    sent: list[Program] = []
    original = chip.transport.run

    def counting(program: Program) -> object:
        sent.append(program)
        return original(program)

    chip.transport.run = counting  # type: ignore[method-assign]
    try:
        run()  # type: ignore[operator]
    finally:
        chip.transport.run = original  # type: ignore[method-assign]
    return sum(1 for p in sent for ins in p if getattr(ins, "byte", None) == Cmd.READ_CONFIRM)


def test_upper_pages_read_only_themselves_after_their_lowers_were_written(chip: Chip) -> None:
    assert _reads(chip, lambda: chip.program_page(BLOCK, 0, _page(0, chip))) == 1
    assert _reads(chip, lambda: chip.program_page(BLOCK, 1, _page(1, chip))) == 1
    assert _reads(chip, lambda: chip.program_page(BLOCK, 2, _page(2, chip))) == 1
    # kept data predicts exactly what reading the lower pages predicts
    assert chip.is_erased(BLOCK, 5) is True
    fresh = Chip(chip.transport)  # keeps nothing: reads the two lower pages as well
    assert _reads(fresh, lambda: fresh.is_erased(BLOCK, 2)) == 3
    assert fresh.is_erased(BLOCK, 2) is False and chip.is_erased(BLOCK, 2) is False


def test_anything_that_may_change_a_lower_page_makes_the_check_read_it(chip: Chip) -> None:
    chip.program_page(BLOCK, 0, _page(0, chip))
    chip.program_page(BLOCK, 0, _page(7, chip), force=True)  # programmed again: not kept
    assert _reads(chip, lambda: chip.is_erased(BLOCK, 1)) == 1  # kept again from this write
    chip.erase_block(BLOCK)
    assert _reads(chip, lambda: chip.is_erased(BLOCK, 1)) == 2  # erased: nothing kept
    chip.program_page(BLOCK, 0, _page(0, chip))
    chip.run(Program().cmd(0xA2), "an unknown command")  # e.g. a vendor prefix
    assert _reads(chip, lambda: chip.is_erased(BLOCK, 1)) == 2


def test_a_page_written_behind_the_targets_back_is_still_refused(chip: Chip) -> None:
    chip.program_page(BLOCK, 3, _page(3, chip))  # WL 1, lower page: kept
    other = Chip(chip.transport)
    other.program_page(BLOCK, 4, _page(4, chip), blank_check=False)  # unseen by `chip`
    with pytest.raises(RefusedOperation, match="not erased"):
        chip.program_page(BLOCK, 4, _page(5, chip))
