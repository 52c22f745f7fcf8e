"""Board constraints: boards/<board>.yaml -> hw/vivado/<board>.xdc.

The board file (nandlab.boards schema, FPGA controller) maps each top-level
NAND port, bit by bit, to an FPGA package pin; the XDC carries one
PACKAGE_PIN / IOSTANDARD line per bit and a pull-up on R/B# (open drain).
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
PULL_UP = ("nand_rb_n",)
UNKNOWN_PIN = "TBD"


def render(board: Board, source: str) -> str:
    ctrl = board.controller
    if not isinstance(ctrl, FpgaController):
        raise ValueError(f"{source}: board {board.name} has no FPGA controller")
    lines = [
        f"# generated from {source} by nandlab.hwgen.xdc, do not edit",
        f"# board {board.name}, part {ctrl.part}",
        "",
    ]
    for port, pins in ctrl.pins.items():
        bits = [(f"{port}[{i}]", p) for i, p in enumerate(pins)] if isinstance(pins, list) \
            else [(port, pins)]
        for name, pin in bits:
            target = f"[get_ports {{{name}}}]"
            if pin == UNKNOWN_PIN:
                lines.append(f"# TODO {name}: package pin not in {source} yet")
                continue
            lines.append(f"set_property -dict {{PACKAGE_PIN {pin} IOSTANDARD {ctrl.iostandard}}}"
                         f" {target}")
            if port in PULL_UP:
                lines.append(f"set_property PULLUP true {target}")
    return "\n".join(lines) + "\n"


def outputs() -> list[Output]:
    return [
        Output(VIVADO / f"{name}.xdc",
               render(load_board(name), f"boards/{name}.yaml"))
        for name in FPGA_BOARDS
    ]
