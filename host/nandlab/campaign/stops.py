"""How a run stops short, and why in words a person can act on.

A run stops when a signal arrives (Ctrl-C's SIGINT, a scheduler's SIGTERM) or
when the disk refuses a write (full disk, file size limit, read-only folder).
Either way the committed units stay and `nandlab resume` goes on from there.

The CLI calls `install_signal_handlers()` first thing, so both signals raise
`errors.Interrupted` (a KeyboardInterrupt) in the main thread; without it,
SIGTERM would end Python on the spot with no clean-up at all (still safe, as a
kill -9 is, but silent). The runner catches the interrupt like any stop,
records it with `wind_down` while further signals are held off (a second
Ctrl-C must not cut the record of the first short), and raises it again with
the resume line. `reason(exc)` names the file and what refused it.
"""

from __future__ import annotations

import contextlib
import errno
import resource
import shutil
import signal
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from nandlab.errors import Interrupted, NandlabError

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

READ_ONLY_ERRNOS = frozenset({errno.EACCES, errno.EPERM, errno.EROFS})
NO_ROOM_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
_READ_ONLY = (
    "the folder is read-only for nandlab; point the command at a writable one "
    "(--out, NANDLAB_DATA_DIR)"
)


def _raise_interrupted(signum: int, frame: object) -> None:
    raise Interrupted(signum)


def install_signal_handlers() -> None:
    """SIGINT and SIGTERM raise `Interrupted` from now on (main thread only, as Python
    delivers signals there)."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, _raise_interrupted)


def signal_of(exc: KeyboardInterrupt) -> int:
    """The signal behind an interrupt: Python's own Ctrl-C handler raises a plain
    KeyboardInterrupt, which is SIGINT."""
    return exc.signum if isinstance(exc, Interrupted) else signal.SIGINT


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM are ignored inside the block (the command is already stopping);
    the previous handlers come back after it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, signal.SIG_IGN) for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            # None: a handler installed outside Python, which Python cannot put back
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)


def wind_down(*steps: Callable[[], object]) -> None:
    """Run the clean-up steps of a run that is stopping, each one whatever the others did.

    The stop's reason is already known and reported; a step that fails here (a full disk
    refuses run.json as it refused the rows) only loses what it would have recorded,
    which `nandlab resume` records again."""
    with signals_held():
        for step in steps:
            with contextlib.suppress(OSError, sqlite3.Error, NandlabError):
                step()


def is_read_only(exc: BaseException) -> bool:
    """A write refused because the folder or file is not writable (a mistake in where the
    command was pointed, not a fault)."""
    if isinstance(exc, OSError):
        return exc.errno in READ_ONLY_ERRNOS
    return isinstance(exc, sqlite3.Error) and "readonly" in str(exc)


def reason(exc: BaseException, folder: Path | None = None) -> str:
    """Why `exc` stopped a command, naming the file and the limit where the system says;
    `folder` is where the command was writing (for errors that name no file)."""
    if isinstance(exc, KeyboardInterrupt):
        return f"interrupted by {signal.Signals(signal_of(exc)).name}"
    if isinstance(exc, OSError) and exc.errno is not None:
        name = f"{exc.filename}: " if exc.filename else ""
        if exc.errno in READ_ONLY_ERRNOS:
            return f"{name}{exc.strerror}: {_READ_ONLY}"
        if exc.errno in NO_ROOM_ERRNOS:
            what = "a file size limit was hit" if exc.errno == errno.EFBIG else "the disk is full"
            named = Path(str(exc.filename)).parent if exc.filename else folder
            return f"{what}: {name}{exc.strerror}{_room(named)}"
        return f"{name}{exc.strerror or exc}"
    if isinstance(exc, sqlite3.Error):
        if is_read_only(exc):
            return f"a database refused a write ({exc}): {_READ_ONLY}"
        if "full" in str(exc):
            return f"the disk is full ({exc}){_room(folder)}"
        # SQLite names ENOSPC "full" but a write refused otherwise (a file size limit's
        # EFBIG) only "disk I/O error": say which limits could have refused it
        return f"a database write failed ({exc}){_room(folder)}"
    return str(exc) or type(exc).__name__


def _room(folder: Path | None) -> str:
    """The storage limits in force: a file size limit (ulimit -f), the free disk space."""
    notes = []
    soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    if soft != resource.RLIM_INFINITY:
        notes.append(f"a file size limit of {soft} bytes is set (ulimit -f)")
    if folder is not None:
        with contextlib.suppress(OSError):
            free = shutil.disk_usage(folder).free
            notes.append(f"{free / 1e6:.0f} MB free on the disk of {folder}")
    return ": " + "; ".join(notes) if notes else ""
