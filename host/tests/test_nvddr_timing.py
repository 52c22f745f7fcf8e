"""The DDR timing tables against the ONFI 4.x / JESD230 figures they cite."""

from __future__ import annotations

import pytest

from nandlab.onfi_spec.nvddr_timing import (
    DDR_MODES,
    FEATURE_01H_INTERFACE,
    TDQSQ_DERIVED_MODES,
    TDQSQ_SHARE,
    DdrInterface,
    ddr,
    mode_for_rate,
)


@pytest.mark.parametrize(
    ("mode", "t_rc_ps", "rate"),
    [(0, 30000, 66), (4, 10000, 200), (7, 5000, 400), (8, 3750, 533), (10, 2500, 800),
     (12, 1667, 1200), (15, 1250, 1600)],
)
def test_nvddr3_cycle_and_rate_as_onfi(mode: int, t_rc_ps: int, rate: int) -> None:
    t = ddr("nv-ddr3", mode)
    assert (t.tRC, t.data_rate_mts) == (t_rc_ps, rate)


def test_rate_is_two_transfers_per_cycle_in_every_row() -> None:
    for rows in DDR_MODES.values():
        for t in rows:
            assert abs(t.data_rate_mts - 2e6 / t.tRC) < 1, t


def test_nvddr2_and_toggle2_stop_at_400_mts() -> None:
    assert ddr("nv-ddr2", 7).data_rate_mts == 400
    assert ddr("toggle2", 7).data_rate_mts == 400
    with pytest.raises(ValueError, match="0..7"):
        ddr("nv-ddr2", 8)
    with pytest.raises(ValueError, match="known nv-ddr2"):
        ddr("nv-ddr5", 0)


def test_tdqsq_printed_values() -> None:
    printed = [2500, 2000, 1400, 1000, 800, 600, 500, 400, 300, 250, 200]
    assert [ddr("nv-ddr3", m).tDQSQ for m in range(11)] == printed
    assert frozenset(range(11, 16)) == TDQSQ_DERIVED_MODES


def test_derived_tdqsq_follows_the_spec_s_share_of_the_cycle() -> None:
    # modes 7-10 as printed: 400 / 5000, 300 / 3750, 250 / 3000, 200 / 2500 ps
    shares = [ddr("nv-ddr3", m).tDQSQ / ddr("nv-ddr3", m).tRC for m in range(7, 11)]
    assert min(shares) <= TDQSQ_SHARE <= max(shares) and max(shares) - min(shares) < 0.004
    derived = [ddr("nv-ddr3", m).tDQSQ for m in sorted(TDQSQ_DERIVED_MODES)]
    assert derived == [150, 133, 120, 109, 100]  # 8 % of 1875 .. 1250 ps


def test_proportional_limits_and_fixed_figures() -> None:
    t = ddr(DdrInterface.NV_DDR3, 10)
    assert t.tQH == 925  # 0.37 x 2.5 ns
    assert t.tDQSH == t.tDQSL == t.tREH == t.tRP == 1075  # 0.43 x 2.5 ns
    assert (t.tWPRE, t.tWPST, t.tRPRE, t.tDQSRE) == (15000, 6500, 15000, 25000)
    assert t.tRPST == 25000 + 1250
    assert (ddr("nv-ddr2", 0).tDS, ddr("nv-ddr2", 0).tDH) == (4000, 4000)
    assert ddr("nv-ddr3", 0).vccq_mv == 1200 and ddr("nv-ddr2", 0).vccq_mv == 1800


def test_every_mode_leaves_an_eye_and_fits_setup_hold_in_a_bit() -> None:
    for rows in DDR_MODES.values():
        for t in rows:
            assert t.data_eye_ps > 0, t
            assert t.tDS + t.tDH < t.tRC // 2, t


def test_feature_01h_interface_codes() -> None:
    assert FEATURE_01H_INTERFACE == {"sdr": 0, "nv-ddr": 1, "nv-ddr2": 2, "nv-ddr3": 3}


def test_mode_for_rate_and_transfer_time() -> None:
    assert mode_for_rate("nv-ddr3", 800).mode == 10
    assert mode_for_rate("nv-ddr3", 799).mode == 9
    with pytest.raises(ValueError, match="no mode at or below 50"):
        mode_for_rate("nv-ddr2", 50)
    assert ddr("nv-ddr3", 10).transfer_ns(16384) == pytest.approx(20480.0)
