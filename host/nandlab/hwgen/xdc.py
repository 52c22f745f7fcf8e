"""Board constraints: boards/<board>.yaml -> hw/vivado/<board>.xdc.

The board file (nandlab.boards schema, FPGA controller) maps each top-level
port (NAND, and the board CPU's I2C and PWM), bit by bit, to an FPGA package
pin; the XDC carries one PACKAGE_PIN / IOSTANDARD line per bit and a pull-up
on the open-drain lines, R/B# and I2C (the card has the I2C bus's resistors;
the FPGA's keeps a released line high without the card too).
A board that lists NV-DDR2 modes (VccQ 1.8 V) runs DQ and the strobes as
SSTL-18 instead of the board's I/O standard: DQ single-ended SSTL18_I, and
RE_n / RE_c and DQS / DQS_c differential pairs (DIFF_SSTL18_I, constrained
on the true pin, the complement on the pair's N pin); the FPGA's inputs on
DQ and DQS get on-die termination (ODT RTT_48) and the bank an internal
VREF of VccQ / 2.
The core clock comes constrained from the XDMA IP. A pin written "TBD"
becomes a TODO comment, which Vivado reports as an unplaced port.
"""

from __future__ import annotations

from nandlab.boards.loader import load_board
from nandlab.boards.model import Board, FpgaController
from nandlab.hwgen import REPO, Output

VIVADO = REPO / "hw" / "vivado"
FPGA_BOARDS = ("kcu105-fmc-nand",)
"""Boards with a Vivado build."""
PULL_UP = ("nand_rb_n", "i2c_scl", "i2c_sda")
UNKNOWN_PIN = "TBD"
DDR_IOSTANDARD = {"nand_dq": "SSTL18_I", "nand_re_n": "DIFF_SSTL18_I",
                  "nand_dqs": "DIFF_SSTL18_I"}
"""I/O standard of the DDR data pins at VccQ 1.8 V (NV-DDR2); complements follow their pair."""
DDR_COMPLEMENTS = ("nand_re_c", "nand_dqs_c")
DDR_ODT = ("nand_dq", "nand_dqs")


def render(board: Board, source: str) -> str:
    ctrl = board.controller
    if not isinstance(ctrl, FpgaController):
        raise ValueError(f"{source}: board {board.name} has no FPGA controller")
    lines = [
        f"# generated from {source} by nandlab.hwgen.xdc, do not edit",
        f"# board {board.name}, part {ctrl.part}",
        "",
    ]
    ddr = bool(board.interfaces.nv_ddr2_modes)
    for port, pins in ctrl.pins.items():
        bits = [(f"{port}[{i}]", p) for i, p in enumerate(pins)] if isinstance(pins, list) \
            else [(port, pins)]
        standard = DDR_IOSTANDARD.get(port, ctrl.iostandard) if ddr else ctrl.iostandard
        for name, pin in bits:
            target = f"[get_ports {{{name}}}]"
            if pin == UNKNOWN_PIN:
                lines.append(f"# TODO {name}: package pin not in {source} yet")
                continue
            if ddr and port in DDR_COMPLEMENTS:
                lines.append(f"set_property PACKAGE_PIN {pin} {target}")
                continue
            lines.append(f"set_property -dict {{PACKAGE_PIN {pin} IOSTANDARD {standard}}}"
                         f" {target}")
            if port in PULL_UP:
                lines.append(f"set_property PULLUP true {target}")
            if ddr and port in DDR_ODT:
                lines.append(f"set_property ODT RTT_48 {target}")
    if ddr:
        lines += ["", "# NV-DDR2 at VccQ 1.8 V: SSTL-18 inputs compare with VccQ / 2",
                  "set_property INTERNAL_VREF 0.90 [get_iobanks -of_objects "
                  "[get_ports {nand_dq[0]}]]"]
    return "\n".join(lines) + "\n"


def outputs() -> list[Output]:
    return [
        Output(VIVADO / f"{name}.xdc",
               render(load_board(name), f"boards/{name}.yaml"))
        for name in FPGA_BOARDS
    ]
