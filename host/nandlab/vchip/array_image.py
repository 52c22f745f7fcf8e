"""The die image of a `CellArray`, block by block, so a save writes only what changed.

A die is one small document (`die_meta`: profile, seed, chip, retention ages, the
read-noise generator's state) plus, per touched block, its cells (`cells_bytes`: an
.npz with three arrays per programmed WL, `w<wl>_vth`, `_pers`, `_level`) and its
history (`history_bytes`: JSON of wear, mode, read counts, per WL history). A read
changes the history only, so the cells (megabytes) are written again only after a
program, erase or wear. `cells_mark` / `history_mark` tell, without reading the
cells, whether each changed since it was last written: where the files go, their
names and checksums are the image store's business (`transport.image`).
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from nandlab.errors import ProfileError
from nandlab.vchip.cells import Ages, Block, WordLine, ages_from_json

_IMAGE_FORMAT = 2


@dataclass
class DieImage:
    """What a die image holds."""

    profile: str
    seed: int
    chip: int
    age_h: Ages  # retention ages of the die (equivalent hours at the reference temperature)
    noise_state: dict[str, Any]  # the read-noise bit generator's state
    blocks: dict[int, Block]


Mark = tuple[Any, ...]


def cells_mark(blk: Block) -> Mark:
    """Changes whenever the block's stored cells do, in O(1): program, erase and wear bump
    `version`. The object's identity is in it too: a block replaced by a new object (a
    load) is never taken for the one written before."""
    return (id(blk), blk.version, blk.pec, len(blk.wls))


def history_mark(blk: Block) -> Mark:
    """Changes whenever the block's history does, in O(1): besides the cells' changes,
    every sensing adds to `reads` (which only an erase, a version bump, resets), and the
    per-WL read counts change only with it."""
    return (*cells_mark(blk), blk.reads, blk.slc, blk.mlc, blk.erase_age_h)


def die_meta(image: DieImage) -> dict[str, Any]:
    """The die-wide part of the image (JSON-able)."""
    return {
        "format": _IMAGE_FORMAT,
        "profile": image.profile,
        "seed": image.seed,
        "chip": image.chip,
        "age_h": image.age_h,
        "noise": image.noise_state,
    }


def cells_bytes(blk: Block) -> bytes:
    """The block's cells as an .npz document (uncompressed: the cells' bits are random)."""
    arrays: dict[str, np.ndarray] = {}
    for w_i, w in blk.wls.items():
        arrays[f"w{w_i}_vth"] = w.vth
        arrays[f"w{w_i}_pers"] = w.personality
        arrays[f"w{w_i}_level"] = w.level
    buf = io.BytesIO()
    np.savez(buf, **arrays)  # type: ignore[arg-type]
    return buf.getvalue()


def history_bytes(blk: Block) -> bytes:
    """The block's history as a JSON document."""
    wls = {
        str(w_i): {
            "pages": sorted(w.pages),
            "programs": w.programs,
            "age_h": w.age_h,
            "reads_base": w.reads_base,
        }
        for w_i, w in blk.wls.items()
    }
    meta = {
        "pec": blk.pec,
        "slc": blk.slc,
        "mlc": blk.mlc,
        "reads": blk.reads,
        "erase_age_h": blk.erase_age_h,
        "own_reads": {str(k): v for k, v in blk.own_reads.items()},
        "wls": wls,
    }
    return json.dumps(meta).encode()


def read_block(cells: bytes, history: bytes) -> Block:
    """The block `cells_bytes` and `history_bytes` wrote (ValueError / KeyError when they
    are not one)."""
    bm = json.loads(history)
    blk = Block(
        pec=int(bm["pec"]),
        slc=bm["slc"],
        mlc=bool(bm["mlc"]),
        reads=int(bm["reads"]),
        erase_age_h=ages_from_json(bm["erase_age_h"]),
        own_reads={int(k): int(v) for k, v in bm["own_reads"].items()},
    )
    with np.load(io.BytesIO(cells), allow_pickle=False) as z:
        for w_s, wm in bm["wls"].items():
            blk.wls[int(w_s)] = WordLine(
                vth=z[f"w{w_s}_vth"],
                personality=z[f"w{w_s}_pers"],
                level=z[f"w{w_s}_level"],
                pages=set(wm["pages"]),
                programs=int(wm["programs"]),
                age_h=ages_from_json(wm["age_h"]),
                reads_base=int(wm["reads_base"]),
            )
    return blk


def from_parts(meta: dict[str, Any], profile: str, blocks: dict[int, Block]) -> DieImage:
    """The image of `die_meta` and its blocks; ProfileError if its format or profile does
    not match."""
    if meta.get("format") != _IMAGE_FORMAT:
        raise ProfileError(f"unknown die image format {meta.get('format')}")
    if meta["profile"] != profile:
        raise ProfileError(f"die image of profile {meta['profile']}, not {profile}")
    return DieImage(
        meta["profile"], int(meta["seed"]), int(meta["chip"]), ages_from_json(meta["age_h"]),
        meta["noise"], blocks,
    )
