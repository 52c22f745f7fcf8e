"""A read-only data folder: info, read and ledger work and change nothing; a command that
would change the chip is refused before it touches it (issue 20, finding 7)."""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import Result

URL = "sim://mlc-64l?seed=61"


def _drop_dac_override() -> None:
    """In the child: root without CAP_DAC_OVERRIDE, so file modes bind it as anyone."""
    pr_capbset_drop, cap_dac_override = 24, 1  # linux/prctl.h, linux/capability.h
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(pr_capbset_drop, cap_dac_override, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _nandlab(*commands: tuple[str, ...]) -> list[tuple[int, str, str]]:
    """Run the commands side by side (readers share the chip) in children that cannot
    write the folder; their (exit code, stdout, stderr)."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", "from nandlab.cli.main import main; main()", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=_drop_dac_override if os.geteuid() == 0 else None,  # noqa: PLW1509 - no threads here
        )
        for args in commands
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    return [(p.returncode, o.decode(), e.decode()) for p, (o, e) in zip(procs, outs, strict=True)]


def _digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        digest.update(str(path.relative_to(folder)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.fixture
def read_only_data(data_dir: Path, run: Callable[..., Result]) -> Iterator[Path]:
    """The data folder of a die with block 12 erased and its page 0 programmed, then made
    read-only."""
    for args in (("erase", URL, "--block", "12", "--fresh"),
                 ("program", URL, "--block", "12", "--page", "0", "--pattern", "random")):
        done = run(*args, "--yes")
        assert done.exit_code == 0, done.output
    paths = [data_dir, *data_dir.rglob("*")]
    for path in paths:
        path.chmod(path.stat().st_mode & ~0o222)
    yield data_dir
    for path in paths:
        path.chmod(path.stat().st_mode | 0o200)


def test_read_only_data_folder(read_only_data: Path) -> None:
    before = _digest(read_only_data)
    read = ("read", URL, "--block", "12", "--page", "0", "--json")
    info, *reads, ledger, erase = _nandlab(
        ("info", URL, "--json"), read, read, ("ledger", URL, "--json"),
        ("erase", URL, "--block", "12", "--yes"),
    )
    assert info[0] == 0 and json.loads(info[1])["unique_id"], info[2]
    for code, _, err in reads:
        assert code == 0, err
        assert "read-only" in err and "not saved" in err
    # the die's state was not saved: both reads start from the same state
    docs = [json.loads(out) for _, out, _ in reads]
    assert docs[0]["sha256"] == docs[1]["sha256"] and docs[0]["zero_bits"] > 0
    assert ledger[0] == 0, ledger[2]
    assert [(b["block"], b["pec"]) for b in json.loads(ledger[1])["blocks"]] == [(12, 1)]
    code, _, err = erase
    assert code == 2 and "Traceback" not in err
    assert err.startswith("error: ") and "read-only" in err and str(read_only_data) in err
    assert _digest(read_only_data) == before
