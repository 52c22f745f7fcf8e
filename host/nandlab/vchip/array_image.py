"""The die image: a `CellArray`'s state in one .npz file, written crash-safely.

Per programmed WL three arrays (`b<block>_w<wl>_vth`, `_pers`, `_level`); everything
else (format, profile, seed, chip, retention age, read-noise generator state, per
block wear / mode / read counts, per WL history) in a JSON document stored as the
`meta` byte array.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nandlab.errors import ProfileError
from nandlab.paths import file_mode
from nandlab.vchip.cells import Block, WordLine

_IMAGE_FORMAT = 1


@dataclass
class DieImage:
    """What a die image holds."""

    profile: str
    seed: int
    chip: int
    age_h: float  # retention age of the die (equivalent hours at the reference temperature)
    noise_state: dict[str, Any]  # the read-noise bit generator's state
    blocks: dict[int, Block]


def write(path: Path, image: DieImage) -> None:
    """Write `image` to `path`: temp file (the umask's mode), fsync, atomic replace, fsync
    of the folder."""
    arrays: dict[str, np.ndarray] = {}
    blocks: dict[str, Any] = {}
    for b, blk in image.blocks.items():
        wls: dict[str, Any] = {}
        for w_i, w in blk.wls.items():
            arrays[f"b{b}_w{w_i}_vth"] = w.vth
            arrays[f"b{b}_w{w_i}_pers"] = w.personality
            arrays[f"b{b}_w{w_i}_level"] = w.level
            wls[str(w_i)] = {
                "pages": sorted(w.pages),
                "programs": w.programs,
                "age_h": w.age_h,
                "reads_base": w.reads_base,
            }
        blocks[str(b)] = {
            "pec": blk.pec,
            "slc": blk.slc,
            "reads": blk.reads,
            "erase_age_h": blk.erase_age_h,
            "own_reads": {str(k): v for k, v in blk.own_reads.items()},
            "wls": wls,
        } | ({"mlc": True} if blk.mlc else {})
    meta = {
        "format": _IMAGE_FORMAT,
        "profile": image.profile,
        "seed": image.seed,
        "chip": image.chip,
        "age_h": image.age_h,
        "noise": image.noise_state,
        "blocks": blocks,
    }
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, file_mode())  # readable by the lab as the image's other files
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **arrays)  # type: ignore[arg-type]
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read(path: Path, profile: str) -> DieImage:
    """The image at `path`; ProfileError if its format or profile does not match."""
    with np.load(path, allow_pickle=False) as z:
        meta = json.loads(z["meta"].tobytes().decode())
        if meta.get("format") != _IMAGE_FORMAT:
            raise ProfileError(f"{path}: unknown die image format {meta.get('format')}")
        if meta["profile"] != profile:
            raise ProfileError(f"{path}: die image of profile {meta['profile']}, not {profile}")
        blocks: dict[int, Block] = {}
        for b_s, bm in meta["blocks"].items():
            b = int(b_s)
            blk = Block(
                pec=int(bm["pec"]),
                slc=bm["slc"],
                mlc=bool(bm.get("mlc", False)),
                reads=int(bm["reads"]),
                erase_age_h=float(bm["erase_age_h"]),
                own_reads={int(k): int(v) for k, v in bm["own_reads"].items()},
            )
            for w_s, wm in bm["wls"].items():
                blk.wls[int(w_s)] = WordLine(
                    vth=z[f"b{b}_w{w_s}_vth"],
                    personality=z[f"b{b}_w{w_s}_pers"],
                    level=z[f"b{b}_w{w_s}_level"],
                    pages=set(wm["pages"]),
                    programs=int(wm["programs"]),
                    age_h=float(wm["age_h"]),
                    reads_base=int(wm["reads_base"]),
                )
            blocks[b] = blk
    return DieImage(
        meta["profile"], meta["seed"], meta["chip"], float(meta["age_h"]), meta["noise"], blocks
    )


def _fsync_dir(folder: Path) -> None:
    """Make a rename in `folder` durable (POSIX; a no-op where directories cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
