"""MCFlash plans its read offsets from a measurement of the chip in hand (issue 17 item 5).

A block group worn to 10K P/E cycles and baked to the equivalent of 1 year at 30 °C: a Vth
sweep of one block's WL (SET FEATURES offsets and reads through the public Chip API, as the
`mcflash` campaign step does it) plans OR and NOT. The planned offsets are compared with the
best an exhaustive sweep of every offset code finds on other blocks of the group, one WL
each, so the sweep's own reads (thousands) never disturb the cells it counts. The offsets
planned from a sweep of a fresh block, as a planner that never re-measured would use them,
do several times worse.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from nandlab.analysis import unpack_cells
from nandlab.bench import Bench
from nandlab.characterize.readback import DataSpec, wl_data
from nandlab.characterize.retention import bake_hours, parse_retention
from nandlab.characterize.vth import measure_vth
from nandlab.onfi import Chip
from nandlab.schemes.mcflash import McFlash, Realization
from nandlab.schemes.mcflash_model import StateModel
from nandlab.transport import open_bench

FRESH, CALIBRATION = 10, 18
TEST_BLOCKS = tuple(range(20, 32, 2))
WORN_PEC = 10_000
Pages = dict[int, dict[int, bytes]]


def _program(chip: Chip, block: int, pec: int, seed: int) -> dict[int, bytes]:
    """WL 0 of `block`, cycled to `pec`, with random LSB / MSB pages (seeded)."""
    Bench(chip.transport).wear.fast_forward_wear(0, block, pec)
    pages = wl_data(chip.profile, DataSpec("random", seed), block, 0)
    for pt, page in pages.items():
        chip.program_page(block, pt, page, blank_check=False)
    return pages


def _model(chip: Chip, block: int, pages: dict[int, bytes]) -> StateModel:
    return StateModel.from_vth(measure_vth(chip, chip.profile, block, 0, pages).states)


@pytest.fixture(scope="module")
def aged() -> Iterator[tuple[Chip, dict[str, McFlash], Pages]]:
    with open_bench("sim://mlc-176l?seed=7&fresh=1") as bench:
        chip = Chip(bench)
        fresh = _model(chip, FRESH, _program(chip, FRESH, 1, 3))
        cal = _program(chip, CALIBRATION, WORN_PEC, 3)
        test = {b: _program(chip, b, WORN_PEC, 4 + b) for b in TEST_BLOCKS}
        hours = bake_hours(parse_retention("1y@30C"), 85.0, 1.1)
        Bench(bench).oven.bake(85.0, hours)
        plans = {
            name: McFlash(chip, model=model, variant="table1")
            for name, model in (("fresh", fresh), ("measured", _model(chip, CALIBRATION, cal)))
        }
        yield chip, plans, test
        chip.reset_read_offsets()


def _errors(chip: Chip, test: Pages, op: str, r: Realization, codes: list[int]) -> int:
    """Bit errors of `op` read with `r`'s references at `codes`, over the test blocks."""
    nbits = chip.profile.geometry.page_bytes * 8
    for ref, code in zip(r.refs, codes, strict=True):
        chip.set_read_offset_code(ref, code)
    total = 0
    for block, pages in test.items():
        a, b = (unpack_cells(pages[pt][: nbits // 8], nbits) for pt in (0, 1))
        got = unpack_cells(chip.read_page(block, r.page_type).data[: nbits // 8], nbits)
        if op == "OR":
            total += int(np.count_nonzero(got != (a | b)))
        else:  # NOT of the MSB operand, on the cells whose LSB is 0 (the paper's layout)
            total += int(np.count_nonzero((got != 1 - b) & (a == 0)))
    return total


def _exhaustive_best(chip: Chip, test: Pages, op: str, r: Realization) -> int:
    """Errors at the best codes: every code of each reference in turn (the others at their
    best so far), then one read of the combination found."""
    ro = chip.profile.read_offsets
    best = list(r.codes)
    for j in range(len(r.refs)):
        tried = []
        for code in range(ro.code_min, ro.code_max + 1):
            codes = [*best[:j], code, *best[j + 1 :]]
            tried.append((_errors(chip, test, op, r, codes), code))
        best[j] = min(tried)[1]
    return _errors(chip, test, op, r, best)


@pytest.mark.parametrize("op", ["OR", "NOT"])
def test_measured_offsets_are_near_the_best_and_fresh_ones_are_not(
    aged: tuple[Chip, dict[str, McFlash], Pages], op: str
) -> None:
    chip, plans, test = aged
    real = {
        name: m.realize_op(op) if op != "NOT" else m.realize_not()[0] for name, m in plans.items()
    }
    assert real["measured"].codes != real["fresh"].codes
    best = _exhaustive_best(chip, test, op, real["measured"])
    got = {name: _errors(chip, test, op, r, list(r.codes)) for name, r in real.items()}
    assert best > 100, "too few errors to compare offsets by"
    assert got["measured"] <= 1.10 * best, (got, best)
    assert got["fresh"] >= 2.0 * best, (got, best)
