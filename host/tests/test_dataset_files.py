"""Files of a run folder are readable as normal tools write them (umask-respecting modes)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from nandlab.paths import write_atomic


@contextmanager
def umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_write_atomic_gives_the_umask_mode(tmp_path: Path, mask: int, mode: int) -> None:
    with umask(mask):
        write_atomic(tmp_path / "run.json", b"{}\n")
    assert stat.S_IMODE((tmp_path / "run.json").stat().st_mode) == mode
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]
