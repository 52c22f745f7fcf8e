"""Real tails (issue 17 item 2): the virtual die's distributions have no hard bounds, and
their far tails carry the weight the analytic distribution gives them. Counts are
compared with the analytic probability through an exact binomial test (scipy), so a
capped or thinned tail fails, and a correct one passes at any seed."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from nandlab.profiles import load_profile
from nandlab.vchip import CellArray
from nandlab.vchip import physics as ph

ALPHA = 1e-4  # two-sided: a correct tail fails one run in 10^4


def _consistent(count: int, n: int, p: float) -> bool:
    return bool(stats.binomtest(count, n, p).pvalue > ALPHA)


def test_normal_draws_reach_past_the_old_cap() -> None:
    """The inverse-CDF tables resolve the tails to 2^-56: 8.2 sigma, not the 6.2 sigma
    a 2^-32 table stops at."""
    body, tail, far = ph.normal_tables()
    assert float(far[0]) < -8.0 and float(tail[0]) < -7.0
    assert float(far[-1]) == pytest.approx(float(tail[1]), abs=1e-6)  # the levels join
    # the same quantiles as an independent implementation (scipy), where float32 resolves
    k = np.array([1, 100, 30000, 65535])
    assert np.allclose(far[k], stats.norm.ppf(k / 2.0**48), atol=2e-4)
    assert np.allclose(tail[k], stats.norm.ppf(k / 2.0**32), atol=2e-4)


def test_normal_tail_weight_beyond_4_sigma() -> None:
    """2^23 draws of a stream: the count beyond +-4 sigma is the normal's (6.3e-5 each)."""
    n = 1 << 23
    x = ph.normals_int(ph.stream_key(5, 0, ph.Stream.ERASED, 1, 2, 3), n, np.int32, 0.0,
                       1000.0, -1e9, 1e9)
    count = int(np.count_nonzero(np.abs(x) > 4000))
    p = 2.0 * stats.norm.sf(4.0005)  # rint: |x| > 4000 means |z| > 4.0005
    assert count > 0 and _consistent(count, n, p), (count, n * p)


def test_personality_keeps_the_core_and_an_outlier_tail() -> None:
    """The int8 personality is exact within 3 sigma and reaches 12.7 sigma beyond; with
    outliers (tail bits) at rate r and spread s, the weight beyond 4 sigma is
    (1 - r) P(|z| > 4) + r P(|z| > 4 / s)."""
    prof = load_profile("tlc-48l")
    phys = prof.physics.model_copy(update={"outlier_rate": 1e-3, "outlier_spread": 3.0})
    n = 1 << 22
    codes = np.concatenate([ph.personality(phys, 7, 0, b, 0, n // 4) for b in range(4)])
    z = np.array([ph.personality_z(c) for c in range(-127, 128)])[codes.astype(int) + 127]
    assert z.max() > 7.0 and z.min() < -7.0  # beyond the old int8 cap of 3.97 sigma

    def p_abs_above(zz: float) -> float:  # P(|z| > zz) of the outlier mixture
        return 0.999 * 2 * stats.norm.sf(zz) + 0.001 * 2 * stats.norm.sf(zz / 3.0)

    # code c = rint(32 u): |c| <= 31 <=> |z| < 31.5 / 32 (core, u = z);
    # |c| >= 100 <=> u >= 99.5 / 32 <=> |z| >= 3 + (99.5 / 32 - 3) * 10 (compressed tail)
    core = int(np.count_nonzero(np.abs(codes.astype(int)) <= 31))
    assert _consistent(core, n, 1.0 - p_abs_above(31.5 / 32)), core
    tail = int(np.count_nonzero(np.abs(codes.astype(int)) >= 100))
    z_tail = 3.0 + (99.5 / 32 - 3.0) * 10.0
    assert _consistent(tail, n, p_abs_above(z_tail)), (tail, n * p_abs_above(z_tail))
    assert ph.personality_z(127) == pytest.approx(3.0 + (127 / 32 - 3.0) * 10)


def _erased_tail_probability(mean: float, sigma: float, rtn_b: float, ref: float) -> float:
    """P(rint(N(mean, sigma)) + Laplace(0, rtn_b) >= ref): the erased Vth stored in whole
    mV, plus the read's RTN (what a sensing at `ref` reads as not conducting)."""
    v = np.arange(math.floor(mean + 3 * sigma), math.ceil(mean + 9 * sigma))
    p_v = stats.norm.cdf((v + 0.5 - mean) / sigma) - stats.norm.cdf((v - 0.5 - mean) / sigma)
    return float(np.sum(p_v * stats.laplace.sf(ref - v, scale=rtn_b)))


def test_erased_tail_errors_appear_at_the_rate_the_tail_gives() -> None:
    """Read enough unprogrammed cells at a reference 4.4 sigma above the erased mean of a
    fresh die: the cells that read as programmed (errors) match the analytic tail of the
    stored normal convolved with the RTN Laplacian (about 50 of 9e6 cells)."""
    prof = load_profile("slc-search")  # small WLs, no wear: erased N(mean, sigma) + RTN
    phys = prof.physics
    a = CellArray(prof, seed=12)
    wls, cells = 256, prof.geometry.cells_per_wl
    ref = phys.erased_mean_mV + 4.4 * phys.erased_sigma_mV
    errors = n = 0
    p_sum = 0.0
    for b in range(1, 5):
        mean = phys.erased_mean_mV + a._var.erased_offset_mV(b)  # the block's variation
        p = _erased_tail_probability(mean, phys.erased_sigma_mV, phys.rtn_floor_mV, ref)
        for wl in range(wls // 4):
            read = np.unpackbits(a.sense(b, wl, ref, slc=True), bitorder="little")[:cells]
            errors += int(cells - read.sum())  # conducting = 1: a 0 is a cell above ref
            n += cells
            p_sum += p * cells
    assert errors > 0 and _consistent(errors, n, p_sum / n), (errors, p_sum)


def test_slc_shortfall_has_no_hard_bound() -> None:
    """Past its knee the SLC verify shortfall falls off as a Gaussian of width tail_mV
    (physics.slc_verify_shortfall): the program kernel's transform of a uniform gives
    exactly P(X > knee + y) = exp(-knee / scale) exp(-y^2 / (2 tail^2)), so cells land
    past the knee at that rate and none is impossible."""
    from nandlab.vchip.kernel import shortfall_mV

    scale, knee, tail = 200.0, 1370.0, 30.0
    for y in (0.0, 30.0, 100.0, 200.0):
        target = math.exp(-knee / scale) * math.exp(-(y**2) / (2 * tail**2))
        u = 1.0 - target  # the uniform whose drop is exactly knee + y
        assert shortfall_mV(u, scale, knee, tail) == pytest.approx(knee + y, abs=0.01)
    # below the knee: the exponential of a fresh block
    assert shortfall_mV(1.0 - math.exp(-2.0), scale, knee, tail) == pytest.approx(400.0)
    # a uniform as close to 1 as the 53-bit draw goes still lands at a finite, larger drop
    assert knee + 200.0 < shortfall_mV(1.0 - 2.0**-53, scale, knee, tail) < knee + 500.0


def test_the_kernel_decodes_the_personality_as_physics_states() -> None:
    """kernel._personality_units (sensing) and physics.personality_z (the documented
    companding) agree on every int8 code: the sensing sees the tails the draw stored."""
    from nandlab.vchip.kernel import _personality_units

    for code in range(-127, 128):
        units = float(_personality_units(np.float32(code)))
        assert units == pytest.approx(ph.personality_z(code) * ph.PERSONALITY_SCALE, abs=1e-3)
