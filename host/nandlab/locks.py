"""Advisory locks on what two commands must not change at once: a chip, a run folder.

A lock is flock(2) on a small lock file that stays in place. The kernel drops a
flock when its holder's file is closed, which includes the holder dying (kill -9,
a crash): a lock file left behind by a dead process blocks nobody, so there is
nothing to clean up. The file's content is only a note for the refusal message
(pid, host, run, command of the exclusive holder); it is never trusted to decide
who holds the lock.

Exclusive locks are for commands that change the chip or run; shared locks for
commands that only read (several readers at once, no writer). Within one process
a lock is re-entrant: a campaign holds its chip for the whole run while its bench
is closed and opened again at every checkpoint, and each open asks again.

A read-only data folder cannot hold a new lock file: a shared lock there is
skipped (no command of ours can be changing a folder nobody may write), an
exclusive one is refused with ReadOnlyDataError.
"""

from __future__ import annotations

import errno
import fcntl
import itertools
import json
import os
import socket
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from nandlab.errors import InUseError, ReadOnlyDataError
from nandlab.paths import data_root

_READ_ONLY_ERRNOS = (errno.EACCES, errno.EPERM, errno.EROFS)


_serials = itertools.count(1)


@dataclass
class _Held:
    fd: int | None  # None: a shared lock skipped on a read-only folder
    writable: bool  # fd open for writing (the holder's note); False on a read-only folder
    shared: bool
    count: int
    serial: int = field(default_factory=lambda: next(_serials))


_held: dict[str, _Held] = {}
"""Locks this process holds, by lock file path (re-entrancy)."""


class Lock:
    """One acquisition of a lock; `release()` once (idempotent), or use as a context manager."""

    def __init__(self, key: str) -> None:
        self._key: str | None = key

    def release(self) -> None:
        key, self._key = self._key, None
        if key is None:
            return
        held = _held[key]
        held.count -= 1
        if held.count == 0:
            del _held[key]
            if held.fd is not None:
                os.close(held.fd)  # closing the file drops the flock

    def __enter__(self) -> Lock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def acquire(path: Path, what: str, *, shared: bool = False, run: str | None = None) -> Lock:
    """Take the lock file `path` for `what` (e.g. "chip sim/mlc-64l-seed3"), without waiting.

    Raises InUseError naming the holder when another process holds it in a conflicting
    mode, ReadOnlyDataError when an exclusive lock cannot be created. `run` is the run id
    the refusal message of a later command names.
    """
    key = os.path.abspath(path)
    held = _held.get(key)
    if held is not None:
        if held.shared and not shared:
            _upgrade(held, path, what)
        held.count += 1
        return Lock(key)
    fd, writable = _open(path, what, shared)
    if fd is not None:
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise InUseError(_refusal(path, what)) from None
        if not shared:
            _write_note(fd, run)
    _held[key] = _Held(fd, writable, shared, 1)
    return Lock(key)


def hold_serial(path: Path) -> int | None:
    """An id of this process's present hold of the exclusive lock `path` (None when it
    holds none): equal ids at two moments mean the lock was held all the time between."""
    held = _held.get(os.path.abspath(path))
    return held.serial if held is not None and not held.shared else None


def chip_lock(unique_id: str, *, run: str | None = None, root: Path | None = None) -> Lock:
    """The exclusive lock of a chip by its unique ID: its ledger entries and bad-block table
    (`<data dir>/chips/<unique id>/lock`), for any bench, real or virtual."""
    return acquire(data_root(root) / "chips" / unique_id / "lock", f"chip {unique_id}", run=run)


def _open(path: Path, what: str, shared: bool) -> tuple[int | None, bool]:
    """The lock file's descriptor (None: none to open) and whether it is open for writing."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o666), True
    except OSError as exc:
        if exc.errno not in _READ_ONLY_ERRNOS:
            raise
    if not shared:
        raise _read_only(path, what)
    try:
        return os.open(path, os.O_RDONLY), False
    except FileNotFoundError:
        return None, False  # nobody ever took it for writing: nothing to coordinate with


def _read_only(path: Path, what: str) -> ReadOnlyDataError:
    return ReadOnlyDataError(
        f"{what} cannot be changed: its folder {path.parent} is read-only (or not "
        f"yours). Commands that only read (info, status, read, ledger) work there"
    )


def _upgrade(held: _Held, path: Path, what: str) -> None:
    if held.fd is None or not held.writable:
        raise _read_only(path, what)
    try:
        fcntl.flock(held.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise InUseError(_refusal(path, what)) from None
    held.shared = False
    _write_note(held.fd, None)


def _write_note(fd: int, run: str | None) -> None:
    note = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "run": run,
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "since_utc": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    data = json.dumps(note).encode()
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)
    except OSError:
        pass  # the note only words a refusal; a full disk must not leave the lock half-taken


def holder(path: Path) -> dict[str, object] | None:
    """The note of the last exclusive holder of `path` (None when there is none or it is
    unreadable); it may be stale: only the flock says whether someone holds the lock."""
    try:
        note = json.loads(Path(path).read_bytes())
    except (OSError, ValueError):
        return None
    return note if isinstance(note, dict) else None


def _alive(note: dict[str, object]) -> bool:
    """Whether the note's process may still run (a note from another host is believed)."""
    pid = note.get("pid")
    if note.get("host") != socket.gethostname() or not isinstance(pid, int):
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _refusal(path: Path, what: str) -> str:
    note = holder(path)
    if note is None or not _alive(note):  # held by readers, who leave no note
        return f"{what} is in use by another command (lock {path}); wait for it to finish"
    by = f"run {note['run']}" if note.get("run") else f"'{note.get('command')}'"
    return (
        f"{what} is in use by {by} (pid {note.get('pid')} on host {note.get('host')}, "
        f"since {note.get('since_utc')}); wait for it to finish, or stop it first"
    )
