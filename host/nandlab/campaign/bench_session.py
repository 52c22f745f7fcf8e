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

A checkpoint is verified (every file against the sha256 in its manifest)
before anything is copied: a damaged one leaves the chip's image as it was.

The session holds, from its first `open` / `restore` until `close`, the
exclusive locks (`nandlab.locks`) of its virtual chip's image folder, of every
chip's unique ID (its ledger entries and bad-block table) and of the run
folder, across the close / reopen of each checkpoint.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from nandlab.bench import Bench
from nandlab.dataset.columns import RUN_LOCK
from nandlab.dataset.store import STORE
from nandlab.errors import DamagedFileError
from nandlab.locks import Lock, acquire, chip_lock
from nandlab.onfi.chip import Chip
from nandlab.paths import data_root, write_atomic
from nandlab.profiles import builtin_names, load_profile
from nandlab.transport import open_bench, parse_sim_url
from nandlab.transport.base import Transport
from nandlab.transport.image import (
    LOCK,
    MANIFEST,
    image_files,
    image_folder,
    manifest_bytes,
    verified_manifest,
)
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
        self._locks: dict[str, Lock] = {}

    def open(self, *, fresh: bool = False) -> Bench:
        """Open the bench and identify its chips, taking the session's locks first."""
        try:
            self._lock_run()
            self._lock_image()
            url = with_fresh(self.url, True) if fresh else self.url
            self.bench = Bench.open(url, self.opener)
            self.chips = {ce: Chip(self.bench.transport, ce) for ce in self.ces}
            for chip in self.chips.values():
                uid = chip.identification.unique_id  # identify (no reset) before anything runs
                if f"chip {uid}" not in self._locks:
                    self._locks[f"chip {uid}"] = chip_lock(uid, run=self.run_dir.name)
        except BaseException:
            self.close()
            raise
        return self.bench

    def _lock(self, key: str, path: Path, what: str) -> None:
        if key not in self._locks:
            self._locks[key] = acquire(path, what, run=self.run_dir.name)

    def _lock_run(self) -> None:
        """The run folder's lock, once the folder exists (a new run makes it at its first
        checkpoint)."""
        if self.run_dir.is_dir():
            self._lock("run", self.run_dir / RUN_LOCK, f"run folder {self.run_dir}")

    def _lock_image(self) -> None:
        if self.virtual:
            folder = self.image_folder()
            self._lock("image", folder / LOCK, f"virtual chip {folder}")

    @property
    def virtual(self) -> bool:
        """A sim:// bench: its dies live in a die image that checkpoints copy."""
        return self.url.startswith("sim:")

    def close(self) -> None:
        """Close the bench (the die image is saved) and release the session's locks."""
        try:
            self._close_bench()
        finally:
            self._release()

    def abandon(self) -> None:
        """Close the bench keeping nothing this session changed in a virtual die's saved
        image (a refused start), and release the session's locks."""
        try:
            if self.bench is not None:
                self.bench.abandon()
                self.bench = None
        finally:
            self._release()

    def _release(self) -> None:
        for lock in self._locks.values():
            lock.release()
        self._locks.clear()

    def _close_bench(self) -> None:
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
        self._close_bench()
        folder = self.image_folder()
        manifest = json.loads((folder / MANIFEST).read_bytes())  # just written by this session
        target = self.run_dir / CHECKPOINTS / tag
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._lock_run()
        if target.exists():
            shutil.rmtree(target)
        tmp = target.with_name(f".{tag}.tmp")
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir(parents=True)
        for name, _ in image_files(manifest):
            _link(folder / name, tmp / name)
        write_atomic(tmp / MANIFEST, manifest_bytes(manifest))
        os.replace(tmp, target)
        self.open()
        return tag

    def restore(self, tag: str) -> None:
        """Put checkpoint `tag` back as the die image (before `open`), after verifying it.

        DamagedFileError (the chip's image untouched) when a checkpoint file is missing or
        fails its checksum."""
        source = self.run_dir / CHECKPOINTS / tag
        try:
            self._lock_run()
            self._lock_image()
            if not source.is_dir():
                raise self._store_behind(tag)
            manifest = verified_manifest(
                source,
                f"checkpoint {tag} of run {self.run_dir} is damaged, so the run cannot "
                "continue from it; the chip's die image was left as it was. The rows of "
                "the units committed so far are kept; start a new run",
            )
            folder = self.image_folder()
            folder.mkdir(parents=True, exist_ok=True)
            for name, _ in image_files(manifest):
                write_atomic(folder / name, (source / name).read_bytes())
            write_atomic(folder / MANIFEST, manifest_bytes(manifest))
        except BaseException:
            self.close()
            raise

    def _store_behind(self, tag: str) -> DamagedFileError:
        """A run keeps only the checkpoint its store names last (`prune`): when that one is
        gone, the store lost commits (its -wal file deleted or damaged, or the file replaced)."""
        root = self.run_dir / CHECKPOINTS
        held = sorted(p.name for p in root.iterdir()) if root.is_dir() else []
        return DamagedFileError(
            f"{self.run_dir / STORE} names checkpoint {tag} as its last, but "
            f"{root} holds {', '.join(held) or 'none'}: run.sqlite or its -wal file was "
            "damaged, deleted or replaced by an older copy, so the run cannot continue "
            "exactly; the chip's die image was left as it was. Start a new run"
        )

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
