"""Spatial variation (issue 17 item 3): chip-to-chip, block-to-block and layer variation,
seeded per chip (same seed and chip: the same die; another one: another die), with the
magnitudes the profile (and its model card) states."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from nandlab.profiles import load_profile
from nandlab.vchip import CellArray
from nandlab.vchip import physics as ph


def _variation(seed: int, chip: int) -> ph.SpatialVariation:
    prof = load_profile("tlc-48l")
    g = prof.geometry
    return ph.SpatialVariation(prof.physics, seed, chip, g.wls_per_block, g.sub_blocks)


def test_variation_is_seeded_per_chip() -> None:
    a, again = _variation(5, 0), _variation(5, 0)
    other_chip, other_seed = _variation(5, 1), _variation(6, 0)
    blocks = range(64)
    same = [(a.retention(b, 7), a.erased_offset_mV(b)) for b in blocks]
    assert same == [(again.retention(b, 7), again.erased_offset_mV(b)) for b in blocks]
    for v in (other_chip, other_seed):
        assert v.chip_retention != a.chip_retention
        assert all(v.erased_offset_mV(b) != a.erased_offset_mV(b) for b in blocks)


def test_variation_magnitudes_are_the_profiles() -> None:
    """Over 300 chips and 2000 blocks the spreads are the stated log-sigmas / mV sigmas
    (chi-square interval of the sample standard deviation, 99.99 %)."""
    var = load_profile("tlc-48l").physics.variation
    chips = [_variation(11, c) for c in range(300)]
    one = chips[0]
    samples = {
        "chip_retention_sigma": np.log([v.chip_retention for v in chips]),
        "chip_erased_sigma_mV": np.array([v.chip_erased_mV for v in chips]),
        "block_retention_sigma": np.log(
            [one.retention(b, 0) / (one.chip_retention * one.layer_retention(0))
             for b in range(2000)]),
        "block_erased_sigma_mV": np.array(
            [one.erased_offset_mV(b) - one.chip_erased_mV for b in range(2000)]),
    }
    for field, x in samples.items():
        sigma = getattr(var, field)
        assert sigma > 0
        n = len(x)
        lo, hi = stats.chi2.ppf([5e-5, 1 - 5e-5], n - 1)
        s2 = float(np.var(x, ddof=1))
        assert (n - 1) * s2 / hi < sigma**2 < (n - 1) * s2 / lo, field


def test_layers_differ_top_to_bottom_and_at_the_ends() -> None:
    var = load_profile("tlc-48l").physics.variation
    v = _variation(1, 0)
    subs, last = 4, 191  # tlc-48l: 48 layers of 4 sub-blocks
    bottom, top = v.layer_retention(0), v.layer_retention(last)
    assert bottom - top == pytest.approx(var.layer_retention_slope)  # both are end layers
    middle = [v.layer_retention(wl) for wl in range(subs, last + 1 - subs)]
    assert bottom > max(middle) and top < min(middle) + var.edge_layer_retention
    assert all(m1 >= m2 for m1, m2 in zip(middle, middle[1:], strict=False))  # monotone


def test_block_variation_shows_in_what_a_die_reads() -> None:
    """Sensed through the die: the fraction of a block's erased cells below a reference at
    the profile's erased mean follows that block's offset (two blocks far apart)."""
    prof = load_profile("tlc-48l")
    phys = prof.physics
    a = CellArray(prof, seed=2)
    offs = {b: a._var.erased_offset_mV(b) for b in range(1, 200)}
    lo_b, hi_b = min(offs, key=offs.__getitem__), max(offs, key=offs.__getitem__)
    assert offs[hi_b] - offs[lo_b] > 3 * phys.variation.block_erased_sigma_mV
    ref = phys.erased_mean_mV
    n = prof.geometry.cells_per_wl
    for b in (lo_b, hi_b):
        below = sum(int(np.unpackbits(a.sense(b, wl, ref, True)).sum()) for wl in range(8))
        want = stats.norm.cdf(-offs[b] / phys.erased_sigma_mV)
        assert below / (8 * n) == pytest.approx(want, abs=0.004), b


def test_layer_variation_shows_in_retention_loss() -> None:
    """Sensed through the die: after a year, top-state cells of the bottom layer (WL 0, an
    end layer) have lost more than those of a middle layer, by the ratio of their layers'
    retention factors (the loss above x0 is proportional to the rate; medians of 2 WLs)."""
    prof = load_profile("tlc-48l")
    phys = prof.physics
    a = CellArray(prof, seed=4)
    a.add_wear(2, 3000)
    nbytes = prof.geometry.page_bytes + prof.geometry.spare_bytes
    top = [bit * 0xFF for bit in prof.geometry.gray_code[-1]]  # the highest state's bits
    pages = {p: np.full(nbytes, top[p], np.uint8) for p in range(3)}
    bottom, middle = [0, 1], [96, 97]  # layer 0 and layer 24 (4 sub-blocks a layer)
    for wl in bottom + middle:
        a.program(2, wl, pages, slc=False)
    n = prof.geometry.cells_per_wl

    def median(wls: list[int]) -> float:
        refs = np.arange(3900.0, 4700.0, 2.0)
        on = [sum(int(np.unpackbits(a.sense(2, w, r, False)).sum()) for w in wls) for r in refs]
        return float(np.interp(len(wls) * n / 2, on, refs))

    fresh = median(bottom), median(middle)
    a.elapse(8760.0)
    loss = [f - m for f, m in zip(fresh, (median(bottom), median(middle)), strict=True)]
    v = a._var
    want = v.layer_retention(0) / v.layer_retention(96)
    assert loss[0] > loss[1] > 0
    assert loss[0] / loss[1] == pytest.approx(want, rel=0.1), (loss, want)
    assert phys.variation.edge_layer_retention > 0
