"""Toggle DDR on a Toggle part: the die follows the grade the bench strobes (no interface
feature), negotiation picks the fastest grade part, bench and board share and verifies it
by reading READ ID 40h back at that rate, and falls back to SDR with a reason."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from nandlab.boards import load_board
from nandlab.errors import RangeError
from nandlab.onfi import Chip
from nandlab.onfi.interface import BusModes, board_modes, negotiate
from nandlab.onfi_spec.nvddr_timing import ddr
from nandlab.profiles import load_profile
from nandlab.transport import SimTransport
from nandlab.vchip.die import VirtualDie

TOGGLE = BusModes(toggle2=tuple(range(8)))


@pytest.fixture
def toggle() -> Iterator[tuple[SimTransport, Chip]]:
    bench = SimTransport("tlc-48l-toggle", seed=1, persist=False)
    chip = Chip(bench)
    chip.identify()
    yield bench, chip
    bench.close()


def test_the_die_moves_data_at_the_grade_it_is_strobed_at() -> None:
    die = VirtualDie(load_profile("tlc-48l-toggle"))
    t0 = die.now_ns
    die.read(1000)  # after power-on: SDR mode 0, one byte per 100 ns tRC
    sdr_ns = die.now_ns - t0
    assert die.follow_toggle(7) and die.data_interface == ("toggle2", 7)
    t0 = die.now_ns
    die.read(1000)  # two bytes per 5 ns RE_n cycle
    assert die.now_ns - t0 == 1000 * ddr("toggle2", 7).tRC // 2 // 1000 == 2500
    assert sdr_ns == 100_000
    assert die.follow_toggle(None) and die.data_interface == ("sdr", 0)


def test_an_onfi_die_does_not_follow_toggle() -> None:
    die = VirtualDie(load_profile("tlc-48l"))
    assert not die.follow_toggle(3)
    assert die.data_interface == ("sdr", 0)


def test_negotiation_picks_the_fastest_toggle_grade(toggle: tuple[SimTransport, Chip]) -> None:
    bench, chip = toggle
    got = negotiate(chip, TOGGLE)
    assert (got.interface, got.mode, got.data_rate_mts) == ("toggle2", 7, 400.0)
    assert got.config is None and "the part does not offer nv-ddr3" in got.reason
    assert bench.dies[0].data_interface == ("toggle2", 7)
    assert bench.timing_mismatches == []
    chip.reset()  # RESET sends the bench back to SDR mode 0, the die with it
    assert bench.dies[0].data_interface == ("sdr", 0)


@pytest.mark.parametrize(
    ("bus", "cap", "expected"),
    [(TOGGLE, 200, ("toggle2", 4)),
     (BusModes(toggle2=(0, 1, 2)), None, ("toggle2", 2)),
     (BusModes(nv_ddr2=tuple(range(8))), None, ("sdr", 0))],  # the bench has no Toggle
)
def test_negotiation_stays_inside_bench_and_cap(
    toggle: tuple[SimTransport, Chip], bus: BusModes, cap: int | None,
    expected: tuple[str, int],
) -> None:
    _, chip = toggle
    got = negotiate(chip, bus, max_rate_mts=cap)
    assert (got.interface, got.mode) == expected


def test_a_grade_that_does_not_read_back_falls_back_to_sdr(
    toggle: tuple[SimTransport, Chip], monkeypatch: pytest.MonkeyPatch,
) -> None:
    bench, chip = toggle
    monkeypatch.setattr(chip, "read_id", lambda address, n: b"\xff" * n)
    got = negotiate(chip, TOGGLE)
    assert (got.interface, got.mode) == ("sdr", 0)
    assert "toggle2 mode 7: READ ID 40h read" in got.reason
    assert bench.dies[0].data_interface == ("sdr", 0)


def test_use_interface_and_the_kcu105_board(toggle: tuple[SimTransport, Chip]) -> None:
    bench, chip = toggle
    assert str(chip.use_interface("toggle2", 3)) == "toggle2 mode 3 (166 MT/s)"
    assert bench.dies[0].data_interface == ("toggle2", 3)
    with pytest.raises(RangeError, match="nv-ddr2 mode 3 is not offered by both"):
        chip.use_interface("nv-ddr2", 3)
    got = chip.negotiate_interface(board_modes(load_board("kcu105-fmc-nand").interfaces))
    assert (got.interface, got.mode) == ("toggle2", 7)
    assert board_modes(load_board("ft2232h-bga").interfaces).toggle2 == ()
