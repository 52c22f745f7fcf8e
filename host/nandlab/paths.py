"""Where nandlab keeps state on disk, and how it writes files crash-safely."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import platformdirs

ENV_DATA_DIR = "NANDLAB_DATA_DIR"
ENV_CACHE_DIR = "NANDLAB_CACHE_DIR"


def data_root(override: Path | None = None) -> Path:
    """nandlab's data folder: `override`, else $NANDLAB_DATA_DIR, else the user data dir."""
    if override is not None:
        return Path(override)
    env = os.environ.get(ENV_DATA_DIR)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir("nandlab"))


def cache_root() -> Path:
    """nandlab's cache folder: $NANDLAB_CACHE_DIR, else the user cache dir. Kept apart from
    the data folder: what is here can be rebuilt at any time, and a command that only parses
    (a URL, a campaign file) must leave the data folder untouched."""
    env = os.environ.get(ENV_CACHE_DIR)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_cache_dir("nandlab"))


def file_mode() -> int:
    """The mode a plain `open(path, "w")` gives a new file: 0666 less the umask (0644 by
    default). mkstemp makes its files 0600, which other lab members and tools cannot read."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_atomic(path: Path, data: bytes) -> None:
    """Write `data` to `path` via a temp file in the same folder, fsync and os.replace;
    the file gets the umask's mode (`file_mode`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, file_mode())
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
