"""Stop a local Ray cluster's processes when the head dies without shutting Ray down.

A run on a local cluster (`nandlab run --ray`) starts Ray's processes itself (GCS, raylet,
monitors, and the raylet's dashboard and runtime-env agents). `ray.shutdown()` stops them;
a head killed with SIGKILL (or by the OOM killer) cannot, and Ray's agents then live on,
reparented to init. The reaper is a small process the head starts before `ray.init`: it
notes the head's descendants every `POLL_S` and, once the head is gone (its parent is no
longer the head), kills every process it noted that is still the same process (same start
time), and their children.

    reaper = Reaper.start()
    ray.init(...)
    ...
    ray.shutdown()
    reaper.stop()
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

POLL_S = 0.5
"""How often the reaper notes the head's descendants and checks the head is alive."""


def _processes() -> dict[int, tuple[int, str]]:
    """Every process: pid -> (parent pid, start time in clock ticks since boot)."""
    out: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # it ended while we looked
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (command name)"
        out[int(entry.name)] = (int(fields[1]), fields[19])
    return out


def descendants(root: int, table: dict[int, tuple[int, str]]) -> dict[int, str]:
    """The descendants of `root` in `table` (pid -> start time)."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found: dict[int, str] = {}
    todo = list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found[pid] = table[pid][1]
        todo.extend(children.get(pid, []))
    return found


def watch(head: int) -> None:
    """The reaper's loop (run in its own process, a child of `head`)."""
    me = os.getpid()
    noted: dict[int, str] = {}
    while os.getppid() == head:
        noted = {p: t for p, t in descendants(head, _processes()).items() if p != me}
        time.sleep(POLL_S)
    table = _processes()
    doomed = {p for p, t in noted.items() if p in table and table[p][1] == t}
    for pid in list(doomed):
        doomed |= set(descendants(pid, table))
    for pid in doomed:
        with contextlib.suppress(ProcessLookupError):  # it ended by itself meanwhile
            os.kill(pid, signal.SIGKILL)


class Reaper:
    """The head's handle on its reaper process."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process

    @classmethod
    def start(cls) -> Reaper:
        """Start a reaper watching this process (Linux: it reads /proc)."""
        code = f"from nandlab.campaign.ray_reaper import watch; watch({os.getpid()})"
        process = subprocess.Popen(
            [sys.executable, "-c", code], stdin=subprocess.DEVNULL, start_new_session=True
        )
        return cls(process)

    def stop(self) -> None:
        """The head shut Ray down itself: the reaper is not needed any more."""
        self.process.kill()
        self.process.wait()
