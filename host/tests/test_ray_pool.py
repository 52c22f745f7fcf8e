"""The Ray head's checkpoint writes: every file lands whole under its name, replacing an
older one, with no temporary file left."""

from __future__ import annotations

import os
from pathlib import Path

from nandlab.campaign.ray_runner import write_durable


def test_files_land_whole_and_replace_older_ones(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(b"old")
    files = {"a.json": b"new", "b.npz": os.urandom(3 << 20), "manifest.s0.u00001.json": b"{}"}
    write_durable(tmp_path, files)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == files


def test_nothing_to_write_leaves_the_folder_as_it_was(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(b"kept")
    write_durable(tmp_path, {})
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]
