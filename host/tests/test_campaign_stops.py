"""campaign.stops: SIGINT / SIGTERM raise Interrupted, held off while a stop is recorded;
wind_down runs every clean-up step; reasons name the file and the limit in force."""

from __future__ import annotations

import errno
import os
import resource
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from nandlab.campaign import stops
from nandlab.errors import Interrupted, TransportError


@pytest.fixture
def own_handlers() -> Iterator[None]:
    """Whatever a test installs, the process gets its own handlers back."""
    previous = {s: signal.getsignal(s) for s in stops.STOP_SIGNALS}
    yield
    for s, handler in previous.items():
        signal.signal(s, handler)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_installed_handlers_raise_interrupted_with_the_signal(
    signum: int, own_handlers: None
) -> None:
    stops.install_signal_handlers()
    with pytest.raises(Interrupted) as info:
        os.kill(os.getpid(), signum)
    assert info.value.signum == signum
    assert isinstance(info.value, KeyboardInterrupt)
    assert str(info.value) == f"interrupted by {signal.Signals(signum).name}"
    assert stops.signal_of(info.value) == signum
    assert stops.signal_of(KeyboardInterrupt()) == signal.SIGINT


def test_signals_are_held_off_while_a_stop_is_recorded(own_handlers: None) -> None:
    stops.install_signal_handlers()
    done = []
    stops.wind_down(lambda: os.kill(os.getpid(), signal.SIGINT), lambda: done.append("rest"))
    assert done == ["rest"]
    with pytest.raises(Interrupted):  # and the handlers are back afterwards
        os.kill(os.getpid(), signal.SIGTERM)


def test_wind_down_runs_every_step_but_lets_a_bug_through() -> None:
    ran: list[str] = []

    def disk_full() -> None:
        ran.append("meta")
        raise OSError(errno.ENOSPC, "No space left on device")

    def bench_gone() -> None:
        ran.append("close")
        raise TransportError("link lost")

    stops.wind_down(disk_full, bench_gone, lambda: ran.append("ledger"))
    assert ran == ["meta", "close", "ledger"]
    with pytest.raises(ZeroDivisionError):
        stops.wind_down(lambda: 1 / 0)


def test_reasons_name_the_file_and_the_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "run.sqlite"
    full = stops.reason(OSError(errno.ENOSPC, "No space left on device", str(target)))
    assert full.startswith(f"the disk is full: {target}: No space left on device")
    assert f"MB free on the disk of {tmp_path}" in full
    monkeypatch.setattr(
        stops.resource, "getrlimit", lambda which: (4096, resource.RLIM_INFINITY)
    )
    big = stops.reason(OSError(errno.EFBIG, "File too large"), tmp_path)
    assert big.startswith("a file size limit was hit: File too large")
    assert "a file size limit of 4096 bytes is set (ulimit -f)" in big
    ro = OSError(errno.EROFS, "Read-only file system", str(target))
    assert stops.is_read_only(ro)
    assert stops.reason(ro).startswith(f"{target}: Read-only file system: the folder is read-only")
    assert not stops.is_read_only(OSError(errno.ENOSPC, "No space left on device"))
    assert stops.reason(Interrupted(signal.SIGTERM)) == "interrupted by SIGTERM"
    assert stops.reason(TransportError("link lost")) == "link lost"
