"""Read noise without a cap (issue 17 item 2): RTN is a Laplacian whose tail is drawn cell by
cell, so cells read wrong by RTN alone at the rate the Laplacian gives, also where it
needs more than the 15 scale units the largest of 2^21 pre-drawn values reached.

The cells are an unprogrammed WL of a fresh die (no retention, no read disturb: reading
one WL does not disturb it), whose stored Vth the test recomputes independently from the
profile; their spread is made small against the RTN scale, so a cell at Vth x reads
wrong at reference r exactly when its RTN exceeds (r - x) / b, with probability
exp(-(r - x) / b) / 2 (b the Laplacian scale). Counts are compared with that expectation
by an exact binomial test, per sensing path (plain, drift-cached, MWS)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from nandlab.profiles import load_profile
from nandlab.profiles.model import Profile
from nandlab.vchip import CellArray
from nandlab.vchip import physics as ph

ALPHA = 1e-4  # two-sided: a correct tail fails one run in 10^4
BLOCK, WL = 2, 5


@pytest.fixture(scope="module")
def noisy() -> Profile:
    """mlc-64l with a 100 mV RTN scale over a 20 mV erased spread."""
    prof = load_profile("mlc-64l")
    phys = prof.physics.model_copy(update={"erased_sigma_mV": 20.0, "rtn_floor_mV": 100.0})
    return prof.model_copy(update={"physics": phys})


def _erased_vth(a: CellArray, prof: Profile) -> np.ndarray:
    """The WL's stored erased Vth (mV), from the profile's draw and the block's offset."""
    n = prof.geometry.cells_per_wl
    off = a._var.erased_offset_mV(BLOCK)
    return ph.erased_vth(prof.physics, a.seed, a.chip, BLOCK, WL, 0, n, off).astype(float)


def _wrong_reads(
    prof: Profile, seed: int, units: float, sensings: int, sense: str
) -> tuple[int, float, int]:
    """(cells read wrong, expected, cell sensings) at a reference `units` RTN scales above
    the WL's mean Vth: a wrong cell reads as not conducting."""
    a = CellArray(prof, seed=seed)
    a.sense_cache = sense == "cached"
    b = prof.physics.rtn_floor_mV
    x = _erased_vth(a, prof)
    ref = float(x.mean()) + units * b
    assert x.max() < ref - (units - 1.5) * b  # every cell needs nearly `units` of RTN
    p = float(np.mean(0.5 * np.exp(-(ref - x) / b)))
    n = prof.geometry.cells_per_wl
    wrong = 0
    for _ in range(sensings):
        if sense == "mws":  # a one-WL multi-WL sensing with a strobe every string meets
            bits = a.sense(BLOCK, WL, ref, slc=False, strobe_us=1e6)
        else:
            bits = a.sense(BLOCK, WL, ref, slc=False)
        wrong += n - int(np.unpackbits(bits, bitorder="little", count=n).sum())
    return wrong, p * n * sensings, n * sensings


@pytest.mark.parametrize(
    ("units", "sensings", "sense"),
    [
        (4.0, 4, "cached"),  # the table's body
        (10.0, 40, "cached"),  # the drawn tail
        (16.0, 8000, "cached"),  # past what 2^21 pre-drawn Laplacians reach (~15)
        (12.0, 300, "plain"),  # (draws the erased WL every sensing: slower)
        (11.0, 150, "mws"),
    ],
)
def test_rtn_errors_appear_at_the_laplacian_rate(
    noisy: Profile, units: float, sensings: int, sense: str
) -> None:
    wrong, expected, n = _wrong_reads(noisy, 21, units, sensings, sense)
    assert expected > 40, expected  # enough cells read for the count to mean something
    p = stats.binomtest(wrong, n, expected / n).pvalue
    assert p > ALPHA, (wrong, expected)


def test_the_kernels_use_the_tail_physics_states() -> None:
    from nandlab.vchip import kernel

    assert (kernel._TAIL_START, kernel._TAIL_ONE) == (ph.RTN_TAIL_UNITS, ph.RTN_TABLE_ONE)


def test_the_body_table_is_the_laplacian_inside_the_tail() -> None:
    """The table holds the body's quantiles (|L| <= RTN_TAIL_UNITS, nothing beyond), so the
    fraction of a slice beyond u units is P(|L| > u | |L| <= 7), as the tail draws assume."""
    t = ph.laplace_body_table(3, 0, 1 << 21).astype(float) / ph.RTN_TABLE_ONE
    assert np.abs(t).max() <= ph.RTN_TAIL_UNITS + 1e-3
    assert abs(t.mean()) < 1e-6 + 0.5 / ph.RTN_TABLE_ONE
    keep = -math.expm1(-ph.RTN_TAIL_UNITS)
    for u in (0.5, 2.0, 5.0, 6.5):
        u += 0.5 / ph.RTN_TABLE_ONE  # between two fixed-point values
        want = (math.exp(-u) - math.exp(-ph.RTN_TAIL_UNITS)) / keep
        assert np.mean(np.abs(t) > u) == pytest.approx(want, abs=2e-5)
    # shuffled: a slice is a sample, not a run of one quantile
    slice_ = t[1000:201000]
    assert np.mean(np.abs(slice_) > 2.0) == pytest.approx(
        (math.exp(-2.0) - math.exp(-7.0)) / keep, abs=3e-3
    )
