"""Issue 17: RBER grows with retention for native TLC too, not only in the SLC / MLC modes
the Flash-Cosmos Fig. 8 reproduction measures, and a fresh block's RBER after a year is in
the range typical of 3D TLC (1e-5..1e-4). Measured as a user would: the public Chip API on
sim://, random data programmed in TLC mode on 24 WLs (so most have their string neighbour
above programmed too, with its interference), errors counted against what was written
after each retention step at 30 C."""

from __future__ import annotations

import numpy as np

from nandlab.bench import Bench
from nandlab.onfi import Chip
from nandlab.profiles import load_profile
from nandlab.transport.sim import SimTransport

BLOCK, WLS = 6, 24
MONTH_H = 730.0
AGES_MONTHS = (1, 3, 12)


def _errors(chip: Chip, written: dict[int, bytes]) -> int:
    errors = 0
    for page, data in written.items():
        got = np.frombuffer(chip.read_page(BLOCK, page, length=len(data)).data, np.uint8)
        errors += int(np.unpackbits(got ^ np.frombuffer(data, np.uint8)).sum())
    return errors


def test_tlc_rber_grows_with_retention() -> None:
    """Fresh, 3K and 10K P/E."""
    profile = load_profile("tlc-48l")
    assert profile.geometry.cell == "tlc"
    rng = np.random.default_rng(17)
    for pec in (0, 3_000, 10_000):
        with SimTransport(profile, seed=9, persist=False) as sim:
            bench, chip = Bench(sim), Chip(sim)
            chip.identify()
            if pec:
                bench.wear.fast_forward_wear(0, BLOCK, pec)
            chip.erase_block(BLOCK)
            page_bytes = chip.geometry.page_bytes
            written = {p: rng.integers(0, 256, page_bytes, dtype=np.uint8).tobytes()
                       for p in range(3 * WLS)}
            for page, data in written.items():
                chip.program_page(BLOCK, page, data)
            counts, age = [_errors(chip, written)], 0
            for months in AGES_MONTHS:
                bench.oven.bake(30.0, (months - age) * MONTH_H)
                age = months
                counts.append(_errors(chip, written))
            bits = 8 * page_bytes * len(written)
            assert counts[-1] > 100, (pec, counts, bits)  # enough errors to compare ages
            # strictly more errors at every later age (seed 9, 9.4 Mbit: 0/3/17/182 fresh,
            # 2/10/45/301 at 3K P/E, 17/16751/53885/159658 at 10K)
            assert all(a < b for a, b in zip(counts, counts[1:], strict=False)), (pec, counts)
            if pec == 0:
                assert 1e-5 <= counts[-1] / bits <= 1e-4, counts
