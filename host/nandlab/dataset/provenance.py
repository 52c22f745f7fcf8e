"""What run.json records about the software and the process that made a run."""

from __future__ import annotations

import functools
import os
import platform
import shlex
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import nandlab
from nandlab.dataset.columns import RUN_LOCK
from nandlab.errors import InUseError
from nandlab.locks import acquire


@functools.cache
def git_commit() -> tuple[str | None, bool | None]:
    """(commit, has uncommitted changes) of the git checkout nandlab runs from; (None, None)
    for an installed package or when git is not there."""
    here = Path(nandlab.__file__).resolve().parent
    if not any((p / ".git").exists() for p in here.parents):
        return None, None
    try:
        head = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "HEAD"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()
        changes = subprocess.run(
            ["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, timeout=30, check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None, None
    return head or None, bool(changes)


def provenance() -> dict[str, Any]:
    """run.json's software and process fields: nandlab version, git commit (null outside a
    checkout) and whether the checkout had uncommitted changes, Python, the command line,
    and the pid and host of the process (which tell a live run from a killed one)."""
    commit, dirty = git_commit()
    return {
        "nandlab_version": nandlab.__version__,
        "git_commit": commit,
        "git_dirty": dirty,
        "python": platform.python_version(),
        "command_line": shlex.join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "pid": os.getpid(),
        "host": socket.gethostname(),
    }


def run_alive(run_dir: Path, meta: dict[str, Any]) -> bool:
    """Whether a process is running the run: its lock file is held (a run older than the
    locks: its process, by run.json's pid and host, is alive)."""
    if not (run_dir / RUN_LOCK).exists():
        return process_alive(meta)
    try:
        acquire(run_dir / RUN_LOCK, f"run folder {run_dir}", shared=True).release()
    except InUseError:
        return True
    return False


def process_alive(meta: dict[str, Any]) -> bool:
    """Whether the process run.json names may still run (one on another host is believed)."""
    pid = meta.get("pid")
    if not isinstance(pid, int) or meta.get("host") != socket.gethostname():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
