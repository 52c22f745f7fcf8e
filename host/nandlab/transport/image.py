"""Die images: a virtual bench's dies persist between sessions (CLI commands).

One folder per (profile, seed) under the data root::

    <root>/sim/<profile>-seed<N>[-<profile hash>]/
        manifest.json           written last; names the current generation's files
                                and their sha256, and carries a checksum of itself
        die<i>.g<gen>.npz       CellArray.save (cells, wear, retention age, noise state)
        die<i>.g<gen>.json      VirtualDie.state_dict() + virtual clock
        lock                    the chip's lock (nandlab.locks)

The root is the `state=` URL option, else $NANDLAB_DATA_DIR, else
platformdirs.user_data_dir("nandlab"). Each save writes a new generation and
then replaces the manifest atomically, so a crash leaves either the old or the
new image, never a mix; files of older generations are removed afterwards.
A load verifies every checksum first: a missing, truncated or altered file is
reported (DamagedFileError, naming the file and what to do), never replaced by
a fresh die. Run checkpoints are copies of an image folder and are verified
the same way before they are put back.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nandlab.errors import DamagedFileError, NandlabError
from nandlab.locks import hold_serial
from nandlab.paths import write_atomic
from nandlab.profiles import Profile
from nandlab.vchip.array import CellArray

IMAGE_FORMAT = 2
MANIFEST = "manifest.json"
LOCK = "lock"
FRESH_ADVICE = (
    "restore the folder from a backup, resume the run that was using the die "
    "('nandlab resume RUN' puts its last checkpoint back first), or start a fresh die "
    "with --fresh (fresh=1 in the URL; its wear history starts again)"
)


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
    return json.dumps(sealed, indent=1).encode()


def image_files(manifest: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(file name, sha256) of every file a verified manifest names."""
    for entry in manifest["dies"]:
        yield entry["array"], entry["array_sha256"]
        yield entry["state"], entry["state_sha256"]


def verified_manifest(folder: Path, advice: str, *, trusted: str | None = None) -> dict[str, Any]:
    """The manifest of the image in `folder` after checking it and every file it names.

    DamagedFileError names the first damaged file and ends with `advice`. `trusted`: the
    manifest checksum of an image this process saved itself and has held locked ever
    since; its files are then only checked to exist, not hashed again.
    """
    path = folder / MANIFEST

    def damaged(name: Path | str, problem: str) -> DamagedFileError:
        return DamagedFileError(f"{folder / name} {problem}: {advice}")

    try:
        manifest = json.loads(path.read_bytes())
    except FileNotFoundError:
        raise damaged(MANIFEST, "is missing") from None
    except (OSError, ValueError) as exc:
        raise damaged(MANIFEST, f"cannot be read ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("manifest_sha256") != _body_sha256(
        manifest
    ):
        raise damaged(MANIFEST, "fails its checksum (altered or damaged)")
    if manifest.get("format") != IMAGE_FORMAT:
        raise damaged(
            MANIFEST,
            f"is of die image format {manifest.get('format')}, this nandlab reads "
            f"{IMAGE_FORMAT}",
        )
    for name, digest in image_files(manifest):
        if trusted == manifest["manifest_sha256"] and (folder / name).is_file():
            continue
        try:
            actual = sha256_file(folder / name)
        except FileNotFoundError:
            raise damaged(name, "is missing") from None
        except OSError as exc:
            raise damaged(name, f"cannot be read ({exc.strerror or exc})") from None
        if actual != digest:
            raise damaged(name, "fails its sha256 (truncated, altered or damaged)")
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


_saved_here: dict[Path, tuple[str, int]] = {}
"""Image folder -> (checksum of the manifest this process last wrote there, the id of its
hold of the folder's lock then). A campaign closes and reopens its bench at every
checkpoint without letting go of the lock: hashing the files it has just written again
would double the cost of a checkpoint for nothing."""


class ImageStore:
    """Loads and saves the die images of one bench in `folder` (the caller holds its lock)."""

    def __init__(self, folder: Path, profile: Profile, seed: int) -> None:
        self.folder = Path(folder)
        self.profile = profile
        self.seed = seed
        self.generation = 0
        self.note = ""
        """Why the last load started fresh (empty when it loaded an image)."""

    def load(self) -> BenchImage | None:
        """The saved image, or None (see `note`) when the folder holds none.

        Raises DamagedFileError when the image is damaged, or was saved for another
        profile content or seed: its dies are never replaced silently by fresh ones.
        """
        saved = [p for p in self._die_files() if not p.name.endswith(".tmp")]
        if not (self.folder / MANIFEST).exists() and not saved:
            self.note = "no saved image"
            return None
        mine = _saved_here.get(self.folder.resolve())
        hold = hold_serial(self.folder / LOCK)
        trusted = mine[0] if mine is not None and hold is not None and mine[1] == hold else None
        manifest = verified_manifest(self.folder, FRESH_ADVICE, trusted=trusted)
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
        for entry in manifest["dies"]:
            try:
                array = CellArray.load(self.folder / entry["array"], self.profile)
                state = json.loads((self.folder / entry["state"]).read_bytes())
                dies.append(DieImage(array, state["die"], int(state["now_ns"])))
            except (OSError, ValueError, KeyError, NandlabError) as exc:
                # the checksums matched: a file this nandlab cannot read, not damage
                raise DamagedFileError(
                    f"{self.folder / entry['array']} cannot be loaded ({exc}): {FRESH_ADVICE}"
                ) from None
        self.generation = int(manifest["generation"])
        self.note = ""
        return BenchImage(dies, int(manifest["now_ns"]))

    def save(self, arrays: list[CellArray], states: list[dict[str, Any]], now_ns: int) -> None:
        """Write a new generation of every die, then the manifest, then drop old files."""
        self.generation += 1
        generation = self.generation
        entries = []
        for i, (array, state) in enumerate(zip(arrays, states, strict=True)):
            array_name = f"die{i}.g{generation}.npz"
            state_name = f"die{i}.g{generation}.json"
            array.save(self.folder / array_name)
            doc = json.dumps(
                {"die": state, "now_ns": now_ns, "retention_age_h": array.retention_age_h},
                indent=1,
            ).encode()
            write_atomic(self.folder / state_name, doc)
            entries.append(
                {
                    "array": array_name,
                    "array_sha256": sha256_file(self.folder / array_name),
                    "state": state_name,
                    "state_sha256": hashlib.sha256(doc).hexdigest(),
                }
            )
        manifest = {
            "format": IMAGE_FORMAT,
            "profile": self.profile.name,
            "profile_sha256": profile_hash(self.profile),
            "seed": self.seed,
            "generation": generation,
            "now_ns": now_ns,
            "dies": entries,
        }
        sealed = manifest_bytes(manifest)
        write_atomic(self.folder / MANIFEST, sealed)
        self._sync_folder()
        hold = hold_serial(self.folder / LOCK)
        if hold is not None:
            _saved_here[self.folder.resolve()] = (json.loads(sealed)["manifest_sha256"], hold)
        keep = {name for name, _ in image_files(manifest)}
        for path in self._die_files():
            if path.name not in keep:
                path.unlink(missing_ok=True)

    def start_fresh(self) -> None:
        """Fresh dies replace the saved image at the next `save`, which must not reuse the
        file names of the generation the manifest still names until then."""
        _saved_here.pop(self.folder.resolve(), None)
        numbers = [
            int(m.group(1))
            for path in self._die_files()
            if (m := re.match(r"die\d+\.g(\d+)\.", path.name)) is not None
        ]
        self.generation = max(numbers, default=0)

    def _die_files(self) -> Iterator[Path]:
        """Image files of any generation, and temp files a crash left behind."""
        if self.folder.is_dir():
            for path in self.folder.iterdir():
                if path.name.startswith(("die", MANIFEST + ".")):
                    yield path

    def _sync_folder(self) -> None:
        try:
            fd = os.open(self.folder, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(fd)
        except OSError:
            pass
        finally:
            os.close(fd)
