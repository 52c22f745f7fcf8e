"""Interface negotiation on a simulated bench: the fastest mode part and bench share,
verified by GET FEATURES, and a clean SDR fallback with its reason."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from nandlab.boards.model import BoardInterfaces
from nandlab.onfi import Chip
from nandlab.onfi.interface import BusModes, bench_modes, board_modes, negotiate, part_modes
from nandlab.onfi_spec.ddr_features import decode_timing_mode
from nandlab.transport import SimTransport
from nandlab.vchip.die import VirtualDie

ALL_DDR3 = BusModes(nv_ddr3=tuple(range(16)))


def selected(die: VirtualDie) -> tuple[str, int] | None:
    """(interface, mode) the die's feature 01h holds."""
    return decode_timing_mode(die.feature(0x01)[0])


@pytest.fixture
def coxpm() -> Iterator[tuple[SimTransport, Chip]]:
    bench = SimTransport("tlc-coxpm", seed=1, persist=False)
    chip = Chip(bench)
    chip.identify()
    yield bench, chip
    bench.close()


def test_the_parameter_page_tells_the_part_modes(coxpm: tuple[SimTransport, Chip]) -> None:
    _, chip = coxpm
    modes = part_modes(chip.identification.fields)
    assert modes == BusModes(sdr=(0, 1, 2, 3, 4, 5), nv_ddr3=tuple(range(13)))
    assert modes.describe() == "sdr 0-5, nv-ddr3 0-12"


def test_the_fastest_common_mode_is_switched_to_and_verified(
    coxpm: tuple[SimTransport, Chip],
) -> None:
    bench, chip = coxpm
    got = negotiate(chip, ALL_DDR3)
    assert (got.interface, got.mode, got.data_rate_mts) == ("nv-ddr3", 12, 1200.0)
    assert got.config is not None and got.config.re_c and got.config.dqs_c
    assert chip.get_feature(0x01)[0] == 0x3C
    assert selected(bench.dies[0]) == ("nv-ddr3", 12)
    assert bench.timing_mismatches == []


@pytest.mark.parametrize(
    ("bus", "cap", "expected"),
    [(BusModes(nv_ddr3=tuple(range(11))), None, ("nv-ddr3", 10)),  # a board to 800 MT/s
     (ALL_DDR3, 500, ("nv-ddr3", 7)),
     (BusModes(nv_ddr2=tuple(range(8))), None, ("sdr", 0)),  # the part has no NV-DDR2
     (BusModes(), None, ("sdr", 0)),  # no DDR: the SDR mode stays
     (BusModes(sdr=(2, 3)), None, ("sdr", 3)),  # mode 0 ruled out: the fastest left
     (BusModes(sdr=(2, 3)), 30, ("sdr", 2))],
)
def test_board_and_rate_limits(
    coxpm: tuple[SimTransport, Chip], bus: BusModes, cap: float | None,
    expected: tuple[str, int],
) -> None:
    _, chip = coxpm
    got = negotiate(chip, bus, max_rate_mts=cap)
    assert (got.interface, got.mode) == expected
    assert chip.get_feature(0x01)[0] & 0x0F == expected[1]


def test_a_bench_may_declare_single_modes() -> None:
    names = {"nv-ddr3", "nv-ddr2 mode 0", "nv-ddr2 mode 4"}
    modes = bench_modes(names.__contains__)
    assert (modes.nv_ddr2, modes.nv_ddr3) == ((0, 4), tuple(range(16)))
    board = BusModes(nv_ddr3=(0, 1, 2))
    assert bench_modes(names.__contains__, board) == BusModes(nv_ddr3=(0, 1, 2))


def test_fallback_says_why(coxpm: tuple[SimTransport, Chip], caplog: pytest.LogCaptureFixture
                           ) -> None:
    _, chip = coxpm
    with caplog.at_level(logging.INFO, logger="nandlab.onfi.interface"):
        got = negotiate(chip, BusModes(nv_ddr2=tuple(range(8))))
    assert "the bench does not drive nv-ddr3" in got.reason
    assert "the part does not offer nv-ddr2" in got.reason
    assert "SDR mode 0" in caplog.text


def test_a_part_that_does_not_switch_leaves_the_bench_in_sdr(
    coxpm: tuple[SimTransport, Chip], monkeypatch: pytest.MonkeyPatch,
) -> None:
    bench, chip = coxpm
    features = bench.dies[0]._features  # a faulty part: advertises NV-DDR3, ignores 01h
    monkeypatch.setattr(features, "_timing_ok", lambda params: params[0] < 0x10)
    got = negotiate(chip, ALL_DDR3)
    assert (got.interface, got.mode) == ("sdr", 0)
    assert "nv-ddr3 mode 12: the part did not switch (feature 01h reads 00h)" in got.reason
    assert got.tried == ["nv-ddr3 mode 12"]
    assert selected(bench.dies[0]) == ("sdr", 0)
    assert [m.expected_mode for m in bench.timing_mismatches] == [12]  # the bench saw it


def test_chip_keeps_the_interface_until_reset_and_reads_pages_faster(
    coxpm: tuple[SimTransport, Chip],
) -> None:
    bench, chip = coxpm
    assert bench_modes(bench.supports).nv_ddr3 == tuple(range(16))
    chip.set_timing_mode(5)
    chip.read_page(3, 0)  # the first access also reads the block's bad-block marker
    t0 = bench.now_ns
    sdr_page = chip.read_page(3, 0)
    sdr_ns = bench.now_ns - t0
    assert str(chip.negotiate_interface()) == "nv-ddr3 mode 12 (1200 MT/s)"
    assert chip.interface.interface == "nv-ddr3"
    t0 = bench.now_ns
    ddr_page = chip.read_page(3, 0)
    ddr_ns = bench.now_ns - t0
    assert ddr_page.data == sdr_page.data
    transfer = chip.geometry.total_bytes
    # the transfer shrinks from 20 ns to 1/1.2 ns per byte; tR stays
    assert sdr_ns - ddr_ns == pytest.approx(transfer * (20 - 1 / 1.2), rel=0.01)
    chip.reset()
    assert (chip.interface.interface, chip.interface.mode) == ("sdr", 0)
    assert selected(bench.dies[0]) == ("sdr", 0)


@pytest.mark.parametrize(
    ("profile", "lists", "p2"),
    [  # tlc-coxpm takes up to 4 cycles each way: the board's ask, codes 2 (out) and 3 (in)
     ("tlc-coxpm", {"nv_ddr3_modes": list(range(16)), "warmup_out_cycles": 2,
                    "warmup_in_cycles": 4}, 0x32),
     # mlc-planar takes one cycle at most (byte 159 = 11h): a board wanting 4 gets 1
     ("mlc-planar", {"nv_ddr2_modes": list(range(8)), "warmup_out_cycles": 4,
                     "warmup_in_cycles": 4}, 0x11),
     ("tlc-coxpm", {"nv_ddr3_modes": list(range(16))}, 0x00)],  # no ask, no warm-up
)
def test_the_board_s_warm_up_is_configured_up_to_the_part_s_most(
    profile: str, lists: dict[str, object], p2: int
) -> None:
    bench = SimTransport(profile, seed=1, persist=False)
    try:
        chip = Chip(bench)
        chip.identify()
        board = board_modes(BoardInterfaces.model_validate({"sdr_modes": [0], **lists}))
        got = chip.negotiate_interface(board)
        assert got.interface != "sdr" and got.config is not None
        assert chip.get_feature(0x02)[1] == p2  # feature 02h P2: data in 7:4, data out 3:0
        assert (got.config.warmup_in << 4 | got.config.warmup_out) == p2
    finally:
        bench.close()
