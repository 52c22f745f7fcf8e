"""nandlab.analysis against independent references: bit loops, published intervals, hand sums."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nandlab.analysis import (
    LatencyStats,
    Rate,
    bit_errors,
    cell_bit_errors,
    chunk_bit_errors,
    operation_energy_uJ,
    pack_cells,
    pool_bit_errors,
    samples_energy_uJ,
    unpack_cells,
)
from nandlab.profiles import load_profile


def _loop_errors(written: bytes, read: bytes) -> tuple[int, int]:
    up = down = 0
    for w, r in zip(written, read, strict=True):
        for bit in range(8):
            wb, rb = (w >> bit) & 1, (r >> bit) & 1
            up += wb == 0 and rb == 1
            down += wb == 1 and rb == 0
    return up, down


@st.composite
def page_pair(draw: st.DrawFn) -> tuple[bytes, bytes]:
    written = draw(st.binary(min_size=0, max_size=300))
    read = draw(st.binary(min_size=len(written), max_size=len(written)))
    return written, read


@given(page_pair())
def test_bit_errors_match_a_bit_loop(pair: tuple[bytes, bytes]) -> None:
    written, read = pair
    e = bit_errors(written, read)
    assert (e.errors_0to1, e.errors_1to0) == _loop_errors(written, read)
    assert e.bits == 8 * len(written)


@given(page_pair(), st.integers(min_value=1, max_value=64))
def test_chunk_bit_errors_match_a_bit_loop_per_chunk(
    pair: tuple[bytes, bytes], chunk: int
) -> None:
    written, read = pair
    chunks = chunk_bit_errors(written, read, chunk)
    assert len(chunks) == math.ceil(len(written) / chunk)
    for i, c in enumerate(chunks):
        w, r = written[i * chunk : (i + 1) * chunk], read[i * chunk : (i + 1) * chunk]
        assert (c.bits, c.errors_0to1, c.errors_1to0) == (8 * len(w), *_loop_errors(w, r))


@given(page_pair())
def test_cell_errors_agree_with_packed_errors(pair: tuple[bytes, bytes]) -> None:
    written, read = pair
    assert cell_bit_errors(unpack_cells(written), unpack_cells(read)) == bit_errors(written, read)
    assert pack_cells(unpack_cells(written)) == written


def test_bit_errors_direction_and_row() -> None:
    # written 0x0F, read 0x1E: bit 4 rose (0->1), bit 0 fell (1->0)
    e = bit_errors(b"\x0f\xff", b"\x1e\xff")
    assert e.as_row() == {"bits": 16, "errors_0to1": 1, "errors_1to0": 1, "rber": 2 / 16}
    with pytest.raises(ValueError, match="lengths differ"):
        bit_errors(b"\x00", b"")


@pytest.mark.parametrize(
    ("errors", "trials", "low", "high"),
    # Newcombe (1998), Stat. Med. 17:857, Table I, method 3 (Wilson score, no correction)
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611),
     (1, 29, 0.0061, 0.1718)],
)
def test_wilson_interval_matches_published_examples(
    errors: int, trials: int, low: float, high: float
) -> None:
    r = Rate(errors, trials)
    assert r.low == pytest.approx(low, abs=5e-5)
    assert r.high == pytest.approx(high, abs=5e-5)


@given(st.integers(min_value=1, max_value=10**9), st.data())
def test_wilson_bounds_solve_the_score_test(trials: int, data: st.DataObject) -> None:
    errors = data.draw(st.integers(min_value=0, max_value=trials))
    r = Rate(errors, trials, 0.9)
    z = NormalDist().inv_cdf(0.95)
    phat = errors / trials
    assert 0.0 <= r.low <= phat <= r.high <= 1.0
    for p in r.interval:
        if 0.0 < p < 1.0:  # an open end: the score statistic equals z there
            assert abs(phat - p) == pytest.approx(z * math.sqrt(p * (1 - p) / trials), rel=1e-6)


def test_zero_errors_give_an_upper_bound_not_a_rate() -> None:
    r = Rate(0, 10**9)
    z = NormalDist().inv_cdf(0.975)
    assert r.value == 0.0 and r.low == 0.0
    assert r.high == pytest.approx(z * z / (10**9 + z * z))
    assert str(r) == "0 in 1e+09 bits"
    assert Rate(0, 0).value is None
    with pytest.raises(ValueError):
        Rate(3, 2)


def test_latency_stats_by_hand() -> None:
    s = LatencyStats.of([10.0, 20.0, 30.0, 40.0])
    assert (s.n, s.mean_us, s.min_us, s.max_us) == (4, 25.0, 10.0, 40.0)
    assert s.p50_us == 25.0
    assert s.p99_us == pytest.approx(40.0 - 0.01 * 3 * 10.0)
    assert s.std_us == pytest.approx(math.sqrt(125.0))
    with pytest.raises(ValueError):
        LatencyStats.of([])


def test_energy_of_a_power_window_by_hand() -> None:
    # 1 mA for 1 µs at 3.3 V = 3.3 nJ
    assert samples_energy_uJ([1000] * 10, 100, 3.3) == pytest.approx(3.3e-3)


def test_operation_energy_from_datasheet_currents() -> None:
    p = load_profile("mlc-64l")
    pw, setup_us = p.power, p.timing.t_read_base_us
    assert pw.read_setup_mA is not None
    busy_us = 60.0
    want = (pw.read_setup_mA * setup_us + pw.read_mA * (busy_us - setup_us)) * pw.vcc_V / 1e3
    assert operation_energy_uJ(p, "read", busy_us) == pytest.approx(want)
    assert operation_energy_uJ(p, "erase", 3000.0) == pytest.approx(
        pw.erase_mA * pw.vcc_V * 3.0
    )
    assert operation_energy_uJ(p, "set_feature", 2.0) == pytest.approx(
        pw.idle_mA * pw.vcc_V * 2e-3
    )
    assert operation_energy_uJ(p, "unknown", 5.0) == 0.0


def test_mws_current_saturates_at_the_pump_limit() -> None:
    pw = load_profile("tlc-48l").power
    assert pw.mws_read_mA(1) == pw.read_mA
    more = [pw.mws_read_mA(b) for b in (2, 4, 8, 64)]
    assert more == sorted(more) and more[0] > pw.read_mA
    assert more[-1] < pw.read_mA + pw.mws_pump_limit_mA
    assert pw.mws_read_mA(2) - pw.read_mA == pytest.approx(
        pw.mws_pump_limit_mA * -np.expm1(-pw.mws_block_mA / pw.mws_pump_limit_mA)
    )


def test_pooling_sums_rows_per_key_with_their_interval() -> None:
    rows = [
        {"k": "a", "bits": 100, "errors_0to1": 1, "errors_1to0": 2},
        {"k": "b", "bits": 50, "errors_0to1": 0, "errors_1to0": 0},
        {"k": "a", "bits": 100, "errors_0to1": 0, "errors_1to0": 1},
        {"k": None, "bits": 7, "errors_0to1": 7, "errors_1to0": 0},
    ]
    pooled = pool_bit_errors(rows, lambda r: r["k"])
    assert list(pooled) == ["a", "b"]
    (a, n_a), (b, n_b) = pooled["a"], pooled["b"]
    assert n_b == 1
    assert (a.bits, a.errors_0to1, a.errors_1to0, n_a) == (200, 1, 3, 2)
    cols = a.rate_columns()
    assert cols["rber"] == 4 / 200 and cols["rber_low"] < 0.02 < cols["rber_high"]
    zero = b.rate_columns()
    assert zero["rber"] == 0.0 and zero["rber_high"] > 0 and zero["rber_text"] == "0 in 50 bits"
