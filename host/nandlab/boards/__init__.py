"""Board descriptions (boards/*.yaml): pydantic schema and loader.

    >>> board = load_board("ft2232h-bga")  # doctest: +SKIP
    >>> board.controller.bus_mode
    'mcu'
"""

from nandlab.boards.loader import (
    BoardError,
    board_names,
    board_path,
    boards_dir,
    load_board,
    parse_board,
)
from nandlab.boards.model import (
    BitbangWiring,
    Board,
    FpgaController,
    FtdiController,
    McuWiring,
    PowerMonitor,
    TemperatureControl,
)

__all__ = [
    "BitbangWiring",
    "Board",
    "BoardError",
    "FpgaController",
    "FtdiController",
    "McuWiring",
    "PowerMonitor",
    "TemperatureControl",
    "board_names",
    "board_path",
    "boards_dir",
    "load_board",
    "parse_board",
]
