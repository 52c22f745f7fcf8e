"""nandlab.locks: exclusive / shared flocks between processes, the holder's note in the
refusal, nothing left that blocks after a holder dies, re-entrant within a process."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from nandlab.errors import InUseError, ReadOnlyDataError
from nandlab.locks import acquire

HOLD = (
    "import sys; from pathlib import Path; from nandlab.locks import acquire; "
    "acquire(Path(sys.argv[1]), 'chip t', shared=sys.argv[2] == '1', run='r1'); "
    "print('held', flush=True); sys.stdin.read()"
)


class Holder:
    """Another process holding the lock until `release()` (or a kill)."""

    def __init__(self, path: Path, shared: bool = False) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(path), "1" if shared else "0"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline() == b"held\n"

    def release(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        assert self.proc.wait(timeout=60) == 0


@pytest.fixture
def lock_file(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "chip" / "lock"


def test_exclusive_refuses_others_and_names_the_holder(lock_file: Path) -> None:
    holder = Holder(lock_file)
    for shared in (False, True):
        with pytest.raises(InUseError) as info:
            acquire(lock_file, "chip t", shared=shared)
        message = str(info.value)
        assert message.startswith("chip t is in use by run r1 (pid ")
        assert f"pid {holder.proc.pid} on host " in message
    holder.release()
    acquire(lock_file, "chip t").release()


def test_readers_share_and_keep_writers_out(lock_file: Path) -> None:
    lock_file.parent.mkdir(parents=True)
    lock_file.write_text(json.dumps({"pid": 2**22 + 12345, "host": os.uname().nodename}))
    reader = Holder(lock_file, shared=True)
    acquire(lock_file, "chip t", shared=True).release()
    with pytest.raises(InUseError) as info:
        acquire(lock_file, "chip t")
    # readers leave no note; the stale note of a process that is gone is not quoted
    assert "in use by another command" in str(info.value)
    reader.release()


def test_a_killed_holder_blocks_nobody(lock_file: Path) -> None:
    holder = Holder(lock_file)
    holder.proc.send_signal(signal.SIGKILL)
    holder.proc.wait()
    assert json.loads(lock_file.read_text())["pid"] == holder.proc.pid  # the note stays
    with acquire(lock_file, "chip t", run="r2"):
        assert json.loads(lock_file.read_text())["run"] == "r2"


def _probe(lock_file: Path) -> int:
    """Exit code of another process taking the lock and letting go (0: it got it)."""
    args = [sys.executable, "-c", HOLD.replace("sys.stdin.read()", "pass"), str(lock_file), "0"]
    return subprocess.run(args, check=False, capture_output=True).returncode


def test_reentrant_within_a_process(lock_file: Path) -> None:
    outer = acquire(lock_file, "chip t")
    inner = acquire(lock_file, "chip t")
    inner.release()
    inner.release()  # idempotent: the outer hold stays
    assert _probe(lock_file) != 0
    outer.release()
    assert _probe(lock_file) == 0


def test_read_only_folder(lock_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_open = os.open

    def no_create(path: str, flags: int, mode: int = 0o777) -> int:
        if flags & os.O_CREAT:
            raise PermissionError(errno.EACCES, "read-only", path)
        return real_open(path, flags, mode)

    monkeypatch.setattr(os, "open", no_create)
    with pytest.raises(ReadOnlyDataError, match="is read-only"):
        acquire(lock_file, "chip t")
    acquire(lock_file, "chip t", shared=True).release()  # no lock file: nobody to wait for
    monkeypatch.setattr(os, "open", real_open)
    acquire(lock_file, "chip t").release()  # a writer once made the file
    monkeypatch.setattr(os, "open", no_create)
    reader = acquire(lock_file, "chip t", shared=True)  # its file opened read-only
    with pytest.raises(ReadOnlyDataError, match="is read-only"):
        acquire(lock_file, "chip t")
    reader.release()
