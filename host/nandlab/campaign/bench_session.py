"""The bench of a run, with die checkpoints at unit boundaries on virtual benches.

A virtual die keeps its state (cells, wear, read-noise generator, clock) in a
die image that the sim transport writes when it closes; a save writes only the
blocks changed since the last one (`transport.image`). At every unit boundary
the session closes the bench (the image is saved), hard-links the files of the
image that the run's checkpoint folder does not hold yet into `<run>/die/`,
writes the image's manifest there as `manifest.<tag>.json` and opens the bench
again (the dies come back from memory: the process held the image's lock
throughout); the run then commits the unit's rows naming that checkpoint. So
a checkpoint costs what the unit changed, not the die's size. A resumed run
first copies the files of the last committed checkpoint back over the die
image, so the die is exactly as it was when the last committed unit ended,
whatever a kill -9 left behind. The same close / reopen happens in an
uninterrupted run, so both see the same sequence of operations and give the
same rows.

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
    forget_unheld,
    image_files,
    image_folder,
    manifest_bytes,
    sync_folder,
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
        self._linked: set[str] = set()  # image files the checkpoint folder holds
        self._kept: tuple[str, set[str]] | None = None  # last pruned-to tag and its files
        self._made: tuple[str, set[str]] | None = None  # last checkpoint and its files

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
        forget_unheld()  # the dies kept in memory for this session's reopens

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
        """Save the die image and link what changed into the run (virtual benches); None
        elsewhere."""
        if not self.virtual:
            return None
        self._close_bench()
        folder = self.image_folder()
        manifest = json.loads((folder / MANIFEST).read_bytes())  # just written by this session
        root = self.run_dir / CHECKPOINTS
        root.mkdir(parents=True, exist_ok=True)
        self._lock_run()
        names = {name for name, _ in image_files(manifest)}
        for name in names - self._linked:
            _link(folder / name, root / name)
        self._linked |= names
        self._made = (tag, names)
        write_atomic(root / _manifest_name(tag), manifest_bytes(manifest))
        sync_folder(root)  # the links and the manifest are durable before a commit names them
        self.open()
        return tag

    def restore(self, tag: str) -> None:
        """Put checkpoint `tag` back as the die image (before `open`), after verifying it.

        DamagedFileError (the chip's image untouched) when a checkpoint file is missing or
        fails its checksum."""
        root = self.run_dir / CHECKPOINTS
        try:
            self._lock_run()
            self._lock_image()
            if not (root / _manifest_name(tag)).is_file() and (_tags(root) or not root.is_dir()):
                raise self._store_behind(tag)  # else: named below as missing
            manifest = verified_manifest(
                root,
                f"checkpoint {tag} of run {self.run_dir} is damaged, so the run cannot "
                "continue from it; the chip's image was left as it was. The rows of "
                "the units committed so far are kept; start a new run",
                name=_manifest_name(tag),
            )
            folder = self.image_folder()
            folder.mkdir(parents=True, exist_ok=True)
            names = {name for name, _ in image_files(manifest)}
            for name in names:
                write_atomic(folder / name, (root / name).read_bytes())
            write_atomic(folder / MANIFEST, manifest_bytes(manifest))
            # what a killed session linked or named after `tag` goes (once, here)
            for path in root.iterdir():  # (folders: the shards of a run on Ray)
                if path.is_file() and path.name not in names | {_manifest_name(tag)}:
                    path.unlink(missing_ok=True)
            self._linked, self._kept = set(names), (tag, names)
        except BaseException:
            self.close()
            raise

    def _store_behind(self, tag: str) -> DamagedFileError:
        """A run keeps only the checkpoint its store names last (`prune`): when that one is
        gone, the store lost commits (its -wal file deleted or damaged, or the file replaced)."""
        root = self.run_dir / CHECKPOINTS
        held = sorted(_tags(root))
        return DamagedFileError(
            f"{self.run_dir / STORE} names checkpoint {tag} as its last, but "
            f"{root} holds {', '.join(held) or 'none'}: run.sqlite or its -wal file was "
            "damaged, deleted or replaced by an older copy, so the run cannot continue "
            "exactly; the chip's die image was left as it was. Start a new run"
        )

    def checkpoint_files(self, tag: str) -> set[str]:
        """The image files checkpoint `tag` names (in the run's checkpoint folder)."""
        if self._made is not None and self._made[0] == tag:
            return set(self._made[1])
        manifest = json.loads((self.run_dir / CHECKPOINTS / _manifest_name(tag)).read_bytes())
        return {name for name, _ in image_files(manifest)}

    def close_bench(self) -> None:
        """Close the bench (a virtual die's image is saved), keeping the session's locks."""
        self._close_bench()

    def prune(self, keep: str | None) -> None:
        """Remove every checkpoint but `keep` (all of them when None): the manifest of the
        one kept before and the files only it named."""
        root = self.run_dir / CHECKPOINTS
        if keep is None:
            shutil.rmtree(root, ignore_errors=True)
            self._linked, self._kept = set(), None
            return
        names = self.checkpoint_files(keep)
        if self._kept is not None and self._kept[0] != keep:
            old, old_names = self._kept
            (root / _manifest_name(old)).unlink(missing_ok=True)
            for name in old_names - names:
                (root / name).unlink(missing_ok=True)
            self._linked -= old_names - names
        self._kept = (keep, names)


def _manifest_name(tag: str) -> str:
    return f"manifest.{tag}.json"


def _tags(root: Path) -> list[str]:
    """The checkpoints a run folder holds."""
    if not root.is_dir():
        return []
    return [p.name[len("manifest.") : -len(".json")] for p in root.glob("manifest.*.json")]


def _link(src: Path, dst: Path) -> None:
    """`dst` becomes `src`'s file (a hard link, else a copy); a file left there by a killed
    session is replaced."""
    dst.unlink(missing_ok=True)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)
