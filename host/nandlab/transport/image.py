"""Die images: a virtual bench's dies persist between sessions (CLI commands).

One folder per (profile, seed) under the data root::

    <root>/sim/<profile>-seed<N>[-<profile hash>]/
        manifest.json           written last; names the current generation's files
        die<i>.g<gen>.npz       CellArray.save (cells, wear, retention age, noise state)
        die<i>.g<gen>.json      VirtualDie.state_dict() + virtual clock

The root is the `state=` URL option, else $NANDLAB_DATA_DIR, else
platformdirs.user_data_dir("nandlab"). Each save writes a new generation and
then replaces the manifest atomically, so a crash leaves either the old or the
new image, never a mix; files of older generations are removed afterwards.
Two benches open on the same image at once are not coordinated: the last to
close wins.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nandlab.paths import write_atomic
from nandlab.profiles import Profile
from nandlab.vchip.array import CellArray

IMAGE_FORMAT = 1
MANIFEST = "manifest.json"


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


class ImageStore:
    """Loads and saves the die images of one bench in `folder`."""

    def __init__(self, folder: Path, profile: Profile, seed: int) -> None:
        self.folder = Path(folder)
        self.profile = profile
        self.seed = seed
        self.note = ""
        """Why the last load started fresh (empty when it loaded an image)."""

    def _manifest(self) -> dict[str, Any] | None:
        try:
            manifest = json.loads((self.folder / MANIFEST).read_text())
        except FileNotFoundError:
            self.note = "no saved image"
            return None
        except (OSError, ValueError) as exc:
            self.note = f"unreadable manifest ({exc})"
            return None
        if manifest.get("format") != IMAGE_FORMAT:
            self.note = f"image format {manifest.get('format')}, expected {IMAGE_FORMAT}"
            return None
        if manifest.get("profile_sha256") != profile_hash(self.profile):
            self.note = f"profile {self.profile.name} changed since the image was saved"
            return None
        if manifest.get("seed") != self.seed:
            self.note = "image of another seed"
            return None
        return dict(manifest)

    def load(self) -> BenchImage | None:
        """The saved image, or None (see `note`) when there is none or it does not fit."""
        manifest = self._manifest()
        if manifest is None:
            return None
        dies = []
        for entry in manifest["dies"]:
            array = CellArray.load(self.folder / entry["array"], self.profile)
            state = json.loads((self.folder / entry["state"]).read_text())
            dies.append(DieImage(array, state["die"], int(state["now_ns"])))
        self.note = ""
        return BenchImage(dies, int(manifest["now_ns"]))

    def save(self, arrays: list[CellArray], states: list[dict[str, Any]], now_ns: int) -> None:
        """Write a new generation of every die, then the manifest, then drop old files."""
        old = self._manifest()
        generation = int(old["generation"]) + 1 if old else 1
        entries = []
        for i, (array, state) in enumerate(zip(arrays, states, strict=True)):
            array_name = f"die{i}.g{generation}.npz"
            state_name = f"die{i}.g{generation}.json"
            array.save(self.folder / array_name)
            doc = {"die": state, "now_ns": now_ns, "retention_age_h": array.retention_age_h}
            write_atomic(self.folder / state_name, json.dumps(doc, indent=1).encode())
            entries.append({"array": array_name, "state": state_name})
        manifest = {
            "format": IMAGE_FORMAT,
            "profile": self.profile.name,
            "profile_sha256": profile_hash(self.profile),
            "seed": self.seed,
            "generation": generation,
            "now_ns": now_ns,
            "dies": entries,
        }
        write_atomic(self.folder / MANIFEST, json.dumps(manifest, indent=1).encode())
        self._sync_folder()
        keep = {MANIFEST} | {name for e in entries for name in e.values()}
        for path in self.folder.iterdir():
            if path.name not in keep and path.name.startswith(("die", MANIFEST)):
                path.unlink(missing_ok=True)

    def discard(self) -> None:
        """Remove the image (fresh start)."""
        if not self.folder.is_dir():
            return
        (self.folder / MANIFEST).unlink(missing_ok=True)
        for path in self.folder.iterdir():
            if path.name.startswith("die"):
                path.unlink(missing_ok=True)

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
