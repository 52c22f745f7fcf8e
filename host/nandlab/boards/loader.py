"""Load board files by name (boards/<name>.yaml) or path.

Every validation error names the file, the field and what is allowed.
"""

from __future__ import annotations

import os
from pathlib import Path

from nandlab.boards.model import Board
from nandlab.errors import UsageError
from nandlab.yamlfile import parse_yaml_model, read_text_file

ENV_BOARDS_DIR = "NANDLAB_BOARDS_DIR"
_REPO_BOARDS = Path(__file__).resolve().parents[3] / "boards"


class BoardError(UsageError):
    """A board file is unknown or does not validate."""


def boards_dir() -> Path:
    """Folder of the named boards: $NANDLAB_BOARDS_DIR, else the repository's boards/."""
    env = os.environ.get(ENV_BOARDS_DIR)
    return Path(env).expanduser() if env else _REPO_BOARDS


def board_names() -> list[str]:
    """Names of the boards in boards_dir(), sorted."""
    folder = boards_dir()
    return sorted(p.stem for p in folder.glob("*.yaml")) if folder.is_dir() else []


def parse_board(text: str, source: str) -> Board:
    """Validate board YAML text; `source` names it in errors."""
    return parse_yaml_model(text, source, Board, "board file", BoardError, ("ft2232h", "fpga"))


def board_path(name_or_path: str | Path) -> Path:
    """The file of a board named (in boards_dir()) or given by path; BoardError if none."""
    key = str(name_or_path)
    path = Path(key)
    if path.suffix not in (".yaml", ".yml"):
        path = boards_dir() / f"{key}.yaml"
        if not path.is_file():
            raise BoardError(
                f"unknown board '{key}': known boards {', '.join(board_names()) or '(none)'} "
                f"in {boards_dir()}, or give a path to a .yaml file"
            )
    if not path.is_file():
        raise BoardError(f"board file {path} does not exist")
    return path


def load_board(name_or_path: str | Path) -> Board:
    """A board by name (from boards_dir()) or from a YAML file path."""
    path = board_path(name_or_path)
    return parse_board(read_text_file(path, "board file", BoardError), str(path))
