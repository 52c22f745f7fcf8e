"""Chip power of inter-block multi-wordline sensing (Flash-Cosmos Fig. 14), each operation
measured over its POWER window: a page read in SLC mode, then MWS of WL 0 over the first n
blocks for each n (within the profile's power budget)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from nandlab.characterize.readback import energy_row
from nandlab.onfi.power import mws_energy, read_energy
from nandlab.schemes.flashcosmos import FlashCosmos

if TYPE_CHECKING:
    from nandlab.onfi.chip import Chip

POWER_KIND = "inter-block power"
"""The `expression` of the MWS rows (beside the timing rows of `mws_timing`)."""


def measure_mws_power(
    chip: Chip, blocks: Sequence[int], counts: Sequence[int], base: dict[str, Any]
) -> list[dict[str, Any]]:
    """On erased `blocks` of one plane: WL 0 of each programmed to 0 (ESP, every cell
    off, as in the paper), a read of WL 0 of the first in SLC mode, then for each n in
    `counts` an MWS of WL 0 over the first n blocks. One row per operation: busy time,
    energy, mean and peak current over its POWER window (MWS rows: chunk = n)."""
    fc = FlashCosmos(chip, allow_test_mode=True)
    for block in blocks:
        fc.store(block, 0, bytes(fc.page_bytes))
    at = {**base, "block": blocks[0], "wl": 0}
    read = read_energy(chip, blocks[0], 0, slc=True)
    rows = [energy_row(read, {**at, "page": 0, "page_type": "SLC", "slc": True})]
    for n in counts:
        m = mws_energy(fc.tm, [(block, [0]) for block in blocks[:n]])
        rows.append(energy_row(m, {**at, "expression": POWER_KIND, "chunk": n}))
    return rows
