"""Board files say which interfaces and modes a board runs; negotiation stays inside them."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from nandlab.boards import BoardError, load_board
from nandlab.boards.model import Board
from nandlab.errors import RangeError
from nandlab.onfi import Chip
from nandlab.onfi.interface import BusModes, board_modes, negotiate
from nandlab.onfi_spec.ddr_features import decode_timing_mode
from nandlab.transport import SimTransport, open_bench
from nandlab.vchip.die import VirtualDie


def selected(die: VirtualDie) -> tuple[str, int] | None:
    """(interface, mode) the die's feature 01h holds."""
    return decode_timing_mode(die.feature(0x01)[0])


def test_shipped_boards_list_what_their_vccq_carries() -> None:
    kcu = board_modes(load_board("kcu105-fmc-nand").interfaces)
    assert kcu == BusModes(nv_ddr2=tuple(range(8)), toggle2=tuple(range(8)))
    assert board_modes(load_board("ft2232h-bga").interfaces) == BusModes()


def test_a_board_cannot_list_an_interface_its_io_voltage_does_not_carry() -> None:
    data = load_board("kcu105-fmc-nand").model_dump()
    data["interfaces"]["nv_ddr3_modes"] = [0, 1]
    with pytest.raises(ValidationError, match="NV-DDR3 signals at VccQ 1200 mV"):
        Board.model_validate(data)
    data["interfaces"] = {"nv_ddr2_modes": [8]}
    with pytest.raises(ValidationError, match="nv_ddr2_modes: modes are 0..7"):
        Board.model_validate(data)


def test_negotiation_on_the_kcu105_board_stays_in_nv_ddr2() -> None:
    bench = SimTransport("tlc-48l", seed=1, persist=False)  # NV-DDR2 0-7, NV-DDR3 0-8
    try:
        chip = Chip(bench)
        chip.identify()
        got = negotiate(chip, board_modes(load_board("kcu105-fmc-nand").interfaces))
        assert (got.interface, got.mode, got.data_rate_mts) == ("nv-ddr2", 7, 400.0)
        assert "the bench does not drive nv-ddr3" in got.reason
        assert selected(bench.dies[0]) == ("nv-ddr2", 7)
    finally:
        bench.close()


def board_with_warmup(out_cycles: int, in_cycles: int) -> Board:
    data = load_board("kcu105-fmc-nand").model_dump()
    data["interfaces"].update(warmup_out_cycles=out_cycles, warmup_in_cycles=in_cycles)
    return Board.model_validate(data)


def test_a_bench_naming_a_board_negotiates_inside_it_with_its_warmup() -> None:
    """No board passed: the chip takes the board file its bench names (as an xdma:// or
    ftdi:// bench does), its modes and its warm-up."""
    bench = SimTransport("tlc-48l", seed=1, persist=False)
    bench.board = board_with_warmup(1, 2)
    try:
        chip = Chip(bench)
        got = chip.negotiate_interface()
        assert (got.interface, got.mode) == ("nv-ddr2", 7)  # the part alone would run nv-ddr3 8
        assert selected(bench.dies[0]) == ("nv-ddr2", 7)
        # feature 02h P2: warm-up codes, input in bits 7:4 (2 cycles = 2), output 3:0 (1 = 1)
        assert bench.dies[0].feature(0x02)[1] == 0x21
        assert got.config is not None and (got.config.warmup_out, got.config.warmup_in) == (1, 2)
    finally:
        bench.close()


def test_use_interface_takes_the_benchs_board_file() -> None:
    bench = SimTransport("tlc-48l", seed=1, persist=False)
    bench.board = board_with_warmup(2, 1)
    try:
        chip = Chip(bench)
        chip.identify()
        with pytest.raises(RangeError, match="nv-ddr3 mode 8 is not offered"):
            chip.use_interface("nv-ddr3", 8)  # the part runs it, the 1.8 V board does not
        got = chip.use_interface("nv-ddr2", 5)
        assert selected(bench.dies[0]) == ("nv-ddr2", 5)
        assert bench.dies[0].feature(0x02)[1] == 0x12
        assert got.config is not None and got.config.warmup_out == 2
    finally:
        bench.close()


def test_a_sim_url_can_name_a_board(tmp_path: Path) -> None:
    """sim://...&board=NAME: the virtual bench keeps to that board file, as the FPGA bench it
    describes would; an unknown board is refused before any die opens."""
    url = f"sim://tlc-48l?seed=1&board=kcu105-fmc-nand&state={tmp_path}"
    with open_bench(url) as bench:
        assert bench.board is not None and bench.board.name == "kcu105-fmc-nand"
        got = Chip(bench).negotiate_interface()
        assert (got.interface, got.mode) == ("nv-ddr2", 7)
    with open_bench(f"sim://tlc-48l?seed=1&state={tmp_path}") as bench:
        assert bench.board is None
        assert Chip(bench).negotiate_interface().interface == "nv-ddr3"
    with pytest.raises(BoardError, match="no-such-board"):
        open_bench(f"sim://tlc-48l?board=no-such-board&state={tmp_path / 'x'}")
    assert not (tmp_path / "x").exists()
