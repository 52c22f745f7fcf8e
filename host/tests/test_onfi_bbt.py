"""The persistent bad-block table: markers are read once, before data can hide them."""

from nandlab.onfi import Chip
from nandlab.transport import open_bench


def _factory_bad_and_good(chip: Chip) -> tuple[int, int]:
    array = chip.transport.dies[0].array  # type: ignore[attr-defined]
    bad = next(b for b in range(chip.geometry.blocks) if array.is_factory_bad(b))
    good = next(b for b in range(1, chip.geometry.blocks) if not array.is_factory_bad(b))
    return bad, good


def test_marker_is_remembered_across_benches() -> None:
    with open_bench("sim://mlc-64l?seed=5&fresh=1") as bench:
        chip = Chip(bench)
        bad, good = _factory_bad_and_good(chip)
        assert chip.is_bad_block(bad) and not chip.is_bad_block(good)
        chip.erase_block(good)
        # Raw data with a zero first spare byte: the factory marker position now reads 00h.
        page = bytes(chip.geometry.page_bytes) + bytes(chip.geometry.spare_bytes)
        chip.program_page(good, 0, page, blank_check=False)
        assert chip.read_page(good, 0).data[chip.geometry.page_bytes] == 0x00
    with open_bench("sim://mlc-64l?seed=5") as bench:
        chip = Chip(bench)
        assert not chip.is_bad_block(good)  # remembered, not re-read from the spare byte
        assert chip.is_bad_block(bad)
        assert chip.read_page(good, 0).data[:16] == bytes(16)
