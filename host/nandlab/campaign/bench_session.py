"""The bench of a run, with die checkpoints at unit boundaries on virtual benches.

A virtual die keeps its state (cells, wear, read-noise generator, clock) in a
die image that the sim transport writes when it closes. At every unit
boundary the session closes the bench (the image is saved), hard-links the
image's files into `<run>/die/<tag>/` and opens the bench again; the run
then commits the unit's rows naming that checkpoint. A resumed run first
copies the last committed checkpoint back over the die image, so the die is
exactly as it was when the last committed unit ended, whatever a kill -9
left behind. The same close / reopen happens in an uninterrupted run, so
both see the same sequence of operations and give the same rows.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from nandlab.bench import Bench
from nandlab.onfi.chip import Chip
from nandlab.paths import data_root, write_atomic
from nandlab.profiles import builtin_names, load_profile
from nandlab.transport import open_bench, parse_sim_url
from nandlab.transport.base import Transport
from nandlab.transport.image import MANIFEST, image_folder
from nandlab.transport.url import with_fresh

Opener = Callable[[str], Transport]
CHECKPOINTS = "die"


class BenchSession:
    """Opens the bench and its chips; `checkpoint(tag)` / `restore(tag)` on virtual benches."""

    def __init__(self, url: str, chips: list[int], run_dir: Path, opener: Opener = open_bench):
        self.url = with_fresh(url, False) if url.startswith("sim:") else url
        self.ces = chips
        self.run_dir = run_dir
        self.opener = opener
        self.bench: Bench | None = None
        self.chips: dict[int, Chip] = {}

    def open(self, *, fresh: bool = False) -> Bench:
        url = with_fresh(self.url, True) if fresh else self.url
        self.bench = Bench.open(url, self.opener)
        self.chips = {ce: Chip(self.bench.transport, ce) for ce in self.ces}
        for chip in self.chips.values():
            chip.identification  # noqa: B018 - identify (no reset) before anything runs
        return self.bench

    @property
    def virtual(self) -> bool:
        """A sim:// bench: its dies live in a die image that checkpoints copy."""
        return self.url.startswith("sim:")

    def close(self) -> None:
        if self.bench is not None:
            self.bench.close()
            self.bench = None

    def image_folder(self) -> Path:
        opts = parse_sim_url(self.url)
        profile = load_profile(opts.profile)
        name = profile.name
        user = name not in builtin_names() or profile != load_profile(name)
        return image_folder(data_root(opts.state), profile, opts.seed, user)

    def checkpoint(self, tag: str) -> str | None:
        """Save the die image and link it into the run (virtual benches); None elsewhere."""
        if not self.virtual:
            return None
        self.close()
        folder = self.image_folder()
        manifest = json.loads((folder / MANIFEST).read_text())
        target = self.run_dir / CHECKPOINTS / tag
        if target.exists():
            shutil.rmtree(target)
        tmp = target.with_name(f".{tag}.tmp")
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir(parents=True)
        for entry in manifest["dies"]:
            for name in entry.values():
                _link(folder / name, tmp / name)
        write_atomic(tmp / MANIFEST, json.dumps(manifest).encode())
        os.replace(tmp, target)
        self.open()
        return tag

    def restore(self, tag: str) -> None:
        """Put checkpoint `tag` back as the die image (before `open`)."""
        source = self.run_dir / CHECKPOINTS / tag
        manifest = json.loads((source / MANIFEST).read_text())
        folder = self.image_folder()
        folder.mkdir(parents=True, exist_ok=True)
        for entry in manifest["dies"]:
            for name in entry.values():
                write_atomic(folder / name, (source / name).read_bytes())
        write_atomic(folder / MANIFEST, json.dumps(manifest).encode())

    def prune(self, keep: str | None) -> None:
        """Remove every checkpoint but `keep` (all of them when None)."""
        root = self.run_dir / CHECKPOINTS
        if not root.is_dir():
            return
        for path in root.iterdir():
            if path.name != keep:
                shutil.rmtree(path, ignore_errors=True)
        if keep is None:
            shutil.rmtree(root, ignore_errors=True)


def _link(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)
