"""The folder of a new run: named, checked free, inside the output folder."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from nandlab.campaign.bench_session import CHECKPOINTS, RUN_LOCK
from nandlab.dataset.columns import RUN_JSON
from nandlab.errors import UsageError


class RunDirError(UsageError):
    """The output directory cannot take this run (holds another run, not writable...)."""


RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,119}$")


def new_run_dir(out: Path, name: str, run_id: str | None) -> Path:
    if run_id is not None and (RUN_ID.match(run_id) is None or ".." in run_id):
        raise RunDirError(
            f"--run-id {run_id!r}: a run id is a plain name (letters, digits, '_', '.', '-', "
            "at most 120, no '..'): the run folder is made inside --out"
        )
    if (out / RUN_JSON).exists():
        raise RunDirError(
            f"{out} is itself a run directory: give its parent folder as --out, "
            f"or continue that run with: nandlab resume {out}"
        )
    if run_id is None:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        run_id = f"{name}-{stamp}"
        n = 1
        while (out / run_id).exists():
            n += 1
            run_id = f"{name}-{stamp}-{n}"
    run_dir = out / run_id
    # a start killed (kill -9) before it wrote run.json leaves only its lock and first
    # checkpoint: the same command may take the folder again
    leftovers = {RUN_LOCK, CHECKPOINTS}
    if run_dir.exists() and any(p.name not in leftovers for p in run_dir.iterdir()):
        held = "another run" if (run_dir / RUN_JSON).exists() else "other files"
        raise RunDirError(
            f"{run_dir} already holds {held}: choose another --run-id, or "
            f"continue it with: nandlab resume {run_dir}"
        )
    return run_dir
