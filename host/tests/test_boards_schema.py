"""Board files: the shipped boards validate; every error names the field."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from nandlab.boards import (
    BoardError,
    FpgaController,
    FtdiController,
    board_names,
    load_board,
    parse_board,
)

FT2232H_BGA = Path(__file__).resolve().parents[2] / "boards" / "ft2232h-bga.yaml"

FPGA_BOARD = """
schema_version: 1
name: kc705-onfi
description: FPGA board (covered by the schema; the RTL engineer owns the real file)
controller:
  kind: fpga
  part: xc7k325tffg900-2
  pcie_lanes: 8
  pcie_gen: 2
  channels: 2
  iostandard: LVCMOS18
  pins:
    nand_dq: [AB1, AB2, AB3, AB4, AB5, AB6, AB7, AB8]
    nand_we_n: AC1
    nand_re_n: AC2
io_voltage_mV: 1800
rails:
  - {name: VCC, nominal_mV: 3300}
  - {name: VCCQ, nominal_mV: 1800}
sockets:
  - {name: U1, package: BGA152, channel: 0, chip_enables: [0, 1]}
  - {name: U2, package: BGA152, channel: 1, chip_enables: [2, 3]}
power_monitor:
  kind: ina228
  i2c_url: ftdi://ftdi:232h/1
  channels:
    - {rail: VCC, i2c_address: 0x40, shunt_mOhm: 10, max_current_mA: 1000}
temperature:
  kind: scpi
  resource: GPIB0::12::INSTR
busy_timing: {source: stream}
"""


def test_shipped_boards_validate() -> None:
    assert {"ft2232h-bga", "ft2232h-bitbang"} <= set(board_names())
    bga = load_board("ft2232h-bga")
    assert isinstance(bga.controller, FtdiController)
    assert bga.controller.bus_mode == "mcu" and bga.controller.mcu.cle == 0x40
    assert bga.power_monitor is not None and bga.power_monitor.kind == "ina226"
    assert bga.targets == 1
    bitbang = load_board("ft2232h-bitbang")
    assert isinstance(bitbang.controller, FtdiController)
    assert bitbang.controller.bitbang is not None
    assert load_board(FT2232H_BGA) == bga


def test_fpga_board_is_covered_by_the_schema() -> None:
    board = parse_board(FPGA_BOARD, "fpga.yaml")
    assert isinstance(board.controller, FpgaController)
    assert board.targets == 4 and board.io_voltage_mV == 1800


def _mutated(path: list[str | int], value: object, delete: bool = False) -> str:
    data = yaml.safe_load(FT2232H_BGA.read_text())
    node = data
    for key in path[:-1]:
        node = node[key]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return yaml.safe_dump(data)


@pytest.mark.parametrize(
    ("path", "value", "delete", "words"),
    [
        (["controller", "mcu", "cle"], 0x60, False, ["controller.mcu", "single bit"]),
        (["controller", "mcu", "wp_n"], 0x20, False, ["controller.mcu.wp_n", "tWW", "I/O0"]),
        (["controller", "bus_mode"], "spi", False, ["controller.bus_mode", "'mcu' or 'bitbang'"]),
        (["controller", "reply_chunk_bytes"], 8192, False,
         ["controller.reply_chunk_bytes", "4096"]),
        (["controller", "speed"], 3, False, ["controller.speed", "Extra inputs"]),
        (["controller", "kind"], "arduino", False, ["controller", "kind"]),
        (["io_voltage_mV"], None, True, ["io_voltage_mV", "Field required"]),
        (["rails", 0, "nominal_mV"], 6000, False, ["rails.0.nominal_mV", "5500"]),
        (["power_monitor", "channels", 0, "i2c_address"], 0x20, False,
         ["power_monitor.channels.0.i2c_address", "64"]),
        (["power_monitor", "channels", 0, "rail"], "VPP", False,
         ["power_monitor names rail 'VPP'"]),
        (["sockets", 0, "chip_enables"], [], False, ["sockets.0.chip_enables"]),
        (["temperature", "kind"], "modbus", False, ["temperature.kind", "'scpi'"]),
        (["busy_timing", "source"], "instrument", False, ["busy_timing", "instrument's name"]),
    ],
)
def test_errors_name_the_field(path: list[str | int], value: object, delete: bool,
                               words: list[str]) -> None:
    with pytest.raises(BoardError) as info:
        parse_board(_mutated(path, value, delete), "my-board.yaml")
    message = str(info.value)
    assert message.startswith("my-board.yaml: invalid board file")
    for word in words:
        assert word in message


def test_bitbang_mode_needs_its_wiring() -> None:
    text = _mutated(["controller", "bus_mode"], "bitbang")
    with pytest.raises(BoardError, match="needs a 'bitbang' wiring section"):
        parse_board(text, "b.yaml")


def test_unknown_board_and_bad_yaml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(BoardError, match="unknown board 'nope': known boards .*ft2232h-bga"):
        load_board("nope")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed")
    with pytest.raises(BoardError, match="not valid YAML"):
        load_board(bad)
    bad.write_text("- a list")
    with pytest.raises(BoardError, match="a YAML mapping"):
        load_board(bad)
    with pytest.raises(BoardError, match="does not exist"):
        load_board(tmp_path / "missing.yaml")
    (tmp_path / "mine.yaml").write_text(FT2232H_BGA.read_text().replace("ft2232h-bga", "mine"))
    monkeypatch.setenv("NANDLAB_BOARDS_DIR", str(tmp_path))
    assert load_board("mine").name == "mine"


def test_ftdi_url_needs_an_ft2232h_board(tmp_path: Path) -> None:
    from nandlab.errors import BenchURLError
    from nandlab.transport import open_bench

    fpga = tmp_path / "fpga.yaml"
    fpga.write_text(FPGA_BOARD)
    with pytest.raises(BenchURLError, match="fpga controller, not an FT2232H"):
        open_bench(f"ftdi://ftdi:2232h/1?board={fpga}&profile=mlc-64l")
