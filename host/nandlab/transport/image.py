"""Die images: a virtual bench's dies persist between sessions (CLI commands).

One folder per (profile, seed) under the data root::

    <root>/sim/<profile>-seed<N>[-<profile hash>]/
        manifest.json           written last; names every file of the image with its
                                sha256, and carries a checksum of itself
        die<i>.b<blk>.g<gen>.npz  the cells of one block of die i (vchip.array_image),
                                written at the save of generation <gen>, the last one
                                that changed them (a program, erase or wear)
        die<i>.b<blk>.g<gen>.json the block's history (wear, read counts...): a read
                                changes only this one
        die<i>.g<gen>.json      VirtualDie.state_dict(), the virtual clock and the die-wide
                                part of the cells (retention age, read-noise state)
        lock                    the chip's lock (nandlab.locks)

The root is the `state=` URL option, else $NANDLAB_DATA_DIR, else
platformdirs.user_data_dir("nandlab"). A save writes only the blocks that changed
since the last save (files are never rewritten: a changed block gets a new name), then
the die documents, then replaces the manifest atomically, so a crash leaves either the
old or the new image, never a mix; files the new manifest no longer names are removed
afterwards. The cost of a save follows what changed, not the die's size.

A load verifies every checksum first: a missing, truncated or altered file is
reported (DamagedFileError, naming the file and what to do), never replaced by a
fresh die. A bench that this process saved and reopens while it holds the image's
lock all the time in between (a campaign's checkpoint at every unit) takes the dies
back from memory: they are the image just written. Run checkpoints name the same
files (hard links) and are verified the same way before they are put back.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from nandlab.errors import DamagedFileError, NandlabError, ProfileError
from nandlab.locks import hold_serial
from nandlab.paths import write_atomic
from nandlab.profiles import Profile
from nandlab.vchip import array_image
from nandlab.vchip.array import CellArray

IMAGE_FORMAT = 3
MANIFEST = "manifest.json"
LOCK = "lock"
FRESH_ADVICE = (
    "restore the folder from a backup, resume the run that was using the die "
    "('nandlab resume RUN' puts its last checkpoint back first), or start a fresh die "
    "with --fresh (fresh=1 in the URL; its wear history starts again)"
)
_IMAGE_FILE = re.compile(r"die\d+\.(?:b\d+\.)?g(\d+)\.(?:npz|json)")


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _body_sha256(manifest: dict[str, Any]) -> str:
    body = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def manifest_bytes(manifest: dict[str, Any]) -> bytes:
    """The manifest as stored: with the checksum of its own content."""
    sealed = dict(manifest, manifest_sha256=_body_sha256(manifest))
    return json.dumps(sealed, separators=(",", ":")).encode()


def image_files(manifest: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(file name, sha256) of every file a verified manifest names."""
    for entry in manifest["dies"]:
        yield entry["state"], entry["state_sha256"]
        for cells, cells_sha, history, history_sha in entry["blocks"].values():
            yield str(cells), str(cells_sha)
            yield str(history), str(history_sha)


def verified_manifest(folder: Path, advice: str, *, name: str = MANIFEST) -> dict[str, Any]:
    """The manifest `name` in `folder` after checking it and every file it names.

    DamagedFileError names the first damaged file and ends with `advice`."""
    path = folder / name

    def damaged(file: Path | str, problem: str) -> DamagedFileError:
        return DamagedFileError(f"{folder / file} {problem}: {advice}")

    try:
        manifest = json.loads(path.read_bytes())
    except FileNotFoundError:
        raise damaged(name, "is missing") from None
    except (OSError, ValueError) as exc:
        raise damaged(name, f"cannot be read ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("manifest_sha256") != _body_sha256(
        manifest
    ):
        raise damaged(name, "fails its checksum (altered or damaged)")
    if manifest.get("format") != IMAGE_FORMAT:
        raise damaged(
            name,
            f"is of die image format {manifest.get('format')}, this nandlab reads "
            f"{IMAGE_FORMAT}",
        )
    for file, digest in image_files(manifest):
        try:
            actual = sha256_file(folder / file)
        except FileNotFoundError:
            raise damaged(file, "is missing") from None
        except OSError as exc:
            raise damaged(file, f"cannot be read ({exc.strerror or exc})") from None
        if actual != digest:
            raise damaged(file, "fails its sha256 (truncated, altered or damaged)")
    return dict(manifest)


def profile_hash(profile: Profile) -> str:
    """Hash of the profile's content (independent of YAML layout)."""
    return hashlib.sha256(profile.model_dump_json().encode()).hexdigest()


def image_folder(root: Path, profile: Profile, seed: int, user_profile: bool) -> Path:
    """Folder of the image keyed by profile name + seed (+ content hash for user profiles)."""
    key = f"{profile.name}-seed{seed}"
    if user_profile:
        key += "-" + profile_hash(profile)[:12]
    return root / "sim" / key


@dataclass
class DieImage:
    """One die as loaded from an image."""

    array: CellArray
    state: dict[str, Any]
    now_ns: int


@dataclass
class BenchImage:
    """Everything a sim bench restores: per-die images and the bench clock."""

    dies: list[DieImage]
    now_ns: int


File = tuple[array_image.Mark, str, str]
"""(mark when written, file name, sha256)."""
Written = dict[int, tuple[File, File]]
"""Per block of one die: its cells' file and its history's file."""


@dataclass
class _Saved:
    """What a store saved last, kept while its process holds the folder's lock."""

    hold: int
    image: BenchImage
    generation: int
    written: list[Written]
    names: set[str] = field(default_factory=set)


_saved_here: dict[Path, _Saved] = {}
"""Image folder -> the image this process saved there last, under a hold of the folder's
lock. A campaign closes and reopens its bench at every checkpoint without letting go of
the lock: reading back the image it has just written would cost the die's size."""


def forget_unheld() -> None:
    """Let go of the dies kept for holds of a lock that have ended (memory; a long-lived
    process calls it when it lets an image's lock go)."""
    for key, saved in list(_saved_here.items()):
        if hold_serial(key / LOCK) != saved.hold:
            del _saved_here[key]


class ImageStore:
    """Loads and saves the die images of one bench in `folder` (the caller holds its lock)."""

    def __init__(self, folder: Path, profile: Profile, seed: int) -> None:
        self.folder = Path(folder)
        self.profile = profile
        self.seed = seed
        self.generation = 0
        self.note = ""
        """Why the last load started fresh (empty when it loaded an image)."""
        self._written: list[Written] = []
        self._names: set[str] = set()  # files the manifest on disk names
        self._swept = False  # files a crash left behind were removed

    def load(self) -> BenchImage | None:
        """The saved image, or None (see `note`) when the folder holds none.

        Raises DamagedFileError when the image is damaged, or was saved for another
        profile content or seed: its dies are never replaced silently by fresh ones.
        """
        key = self.folder.resolve()
        forget_unheld()
        mine = _saved_here.pop(key, None)
        if mine is not None and mine.hold == hold_serial(self.folder / LOCK):
            self.generation, self._written, self._names = (
                mine.generation, mine.written, mine.names,
            )
            self._swept = True
            self.note = ""
            return mine.image
        saved = list(self._die_files())
        if not (self.folder / MANIFEST).exists() and not saved:
            self.note = "no saved image"
            return None
        manifest = verified_manifest(self.folder, FRESH_ADVICE)
        if manifest.get("profile_sha256") != profile_hash(self.profile):
            raise DamagedFileError(
                f"{self.folder / MANIFEST}: the die image was saved with another content of "
                f"profile {self.profile.name} (nandlab or the profile changed since): use the "
                "profile it was saved with, or start a fresh die with --fresh"
            )
        if manifest.get("seed") != self.seed:
            raise DamagedFileError(
                f"{self.folder / MANIFEST} is of seed {manifest.get('seed')}, not {self.seed}: "
                + FRESH_ADVICE
            )
        dies = []
        self._written = []
        for entry in manifest["dies"]:
            name = entry["state"]
            try:
                doc = json.loads((self.folder / name).read_bytes())
                blocks, written = {}, {}
                for b_s, (cells, cells_sha, history, history_sha) in entry["blocks"].items():
                    name = cells
                    blk = array_image.read_block(
                        (self.folder / cells).read_bytes(), (self.folder / history).read_bytes()
                    )
                    blocks[int(b_s)] = blk
                    written[int(b_s)] = (
                        (array_image.cells_mark(blk), cells, cells_sha),
                        (array_image.history_mark(blk), history, history_sha),
                    )
                image = array_image.from_parts(doc["array"], self.profile.name, blocks)
                array = CellArray.from_image(image, self.profile)
            except (OSError, ValueError, KeyError, NandlabError, ProfileError) as exc:
                # the checksums matched: a file this nandlab cannot read, not damage
                raise DamagedFileError(
                    f"{self.folder / name} cannot be loaded ({exc}): {FRESH_ADVICE}"
                ) from None
            dies.append(DieImage(array, doc["die"], int(doc["now_ns"])))
            self._written.append(written)
        self.generation = int(manifest["generation"])
        self._names = {name for name, _ in image_files(manifest)}
        self.note = ""
        return BenchImage(dies, int(manifest["now_ns"]))

    def save(self, arrays: list[CellArray], states: list[dict[str, Any]], now_ns: int) -> None:
        """Write the blocks changed since the last save or load, the die documents, then the
        manifest; then drop the files it no longer names."""
        forget_unheld()
        self.generation += 1
        gen = self.generation
        entries, written_all = [], []
        for i, (array, state) in enumerate(zip(arrays, states, strict=True)):
            image = array.image()
            before = self._written[i] if i < len(self._written) else {}
            written: Written = {}
            for b, blk in image.blocks.items():
                old = before.get(b)
                written[b] = (
                    self._file(
                        old[0] if old else None, array_image.cells_mark(blk),
                        partial(array_image.cells_bytes, blk), f"die{i}.b{b}.g{gen}.npz",
                    ),
                    self._file(
                        old[1] if old else None, array_image.history_mark(blk),
                        partial(array_image.history_bytes, blk),
                        f"die{i}.b{b}.g{gen}.json",
                    ),
                )
            doc = json.dumps(
                {
                    "die": state,
                    "now_ns": now_ns,
                    "retention_age_h": array.retention_age_h,
                    "array": array_image.die_meta(image),
                },
                indent=1,
            ).encode()
            state_name = f"die{i}.g{gen}.json"
            write_atomic(self.folder / state_name, doc)
            entries.append(
                {
                    "state": state_name,
                    "state_sha256": hashlib.sha256(doc).hexdigest(),
                    "blocks": {
                        str(b): [c[1], c[2], h[1], h[2]] for b, (c, h) in sorted(written.items())
                    },
                }
            )
            written_all.append(written)
        manifest = {
            "format": IMAGE_FORMAT,
            "profile": self.profile.name,
            "profile_sha256": profile_hash(self.profile),
            "seed": self.seed,
            "generation": gen,
            "now_ns": now_ns,
            "dies": entries,
        }
        sync_folder(self.folder)  # the new files' names are durable before the manifest names them
        write_atomic(self.folder / MANIFEST, manifest_bytes(manifest))
        sync_folder(self.folder)
        names = {name for name, _ in image_files(manifest)}
        for name in self._names - names:
            (self.folder / name).unlink(missing_ok=True)
        if not self._swept:  # once per store: what a crash or an older save left
            for path in self._die_files():
                if path.name not in names:
                    path.unlink(missing_ok=True)
            self._swept = True
        self._written, self._names = written_all, names
        hold = hold_serial(self.folder / LOCK)
        key = self.folder.resolve()
        if hold is not None:
            dies = [DieImage(a, s, now_ns) for a, s in zip(arrays, states, strict=True)]
            _saved_here[key] = _Saved(hold, BenchImage(dies, now_ns), gen, written_all, names)
        else:
            _saved_here.pop(key, None)

    def _file(
        self, old: File | None, mark: array_image.Mark, content: Callable[[], bytes], name: str
    ) -> File:
        """The file of `old` when its mark still holds, else `content` written as `name`."""
        if old is not None and old[0] == mark:
            return old
        data = content()
        write_atomic(self.folder / name, data)
        return (mark, name, hashlib.sha256(data).hexdigest())

    def start_fresh(self) -> None:
        """Fresh dies replace the saved image at the next `save`, which must not reuse the
        file names of the generation the manifest still names until then."""
        _saved_here.pop(self.folder.resolve(), None)
        numbers = [
            int(m.group(1))
            for path in self._die_files()
            if (m := _IMAGE_FILE.fullmatch(path.name)) is not None
        ]
        self.generation = max(numbers, default=0)
        self._written = []
        self._swept = False

    def _die_files(self) -> Iterator[Path]:
        """Image files of any generation, and temp files a crash left behind."""
        if self.folder.is_dir():
            for path in self.folder.iterdir():
                if path.name.startswith(("die", MANIFEST + ".")):
                    yield path


def sync_folder(folder: Path) -> None:
    """Make the names just written or removed in `folder` durable (fsync of the folder;
    a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
