"""One exit-code convention for every command (docs/cli.md): 2 for bad usage or input,
with one `error:` line and never a traceback (unless --debug); 1 for faults and bugs;
128 + signal number for SIGINT / SIGTERM; 0 when the reader of stdout goes away
(`nandlab ... | head -1`)."""

from __future__ import annotations

import errno
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from nandlab.cli.app import cli
from nandlab.errors import Interrupted

URL = "sim://mlc-64l?seed=3"
ENTRY = "from nandlab.cli.main import main; main()"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """A file that is not a campaign, a folder that is not a run, one that is missing."""
    text = tmp_path / "notes.txt"
    text.write_text("not: [a campaign\n")
    folder = tmp_path / "empty-folder"
    folder.mkdir()
    return {"text": text, "folder": folder, "missing": tmp_path / "missing.yaml"}


def bad_inputs(files: dict[str, Path]) -> list[list[str]]:
    """A few wrong inputs per command: missing file, wrong type, bad URL, out of range."""
    text, folder, missing = (str(files[k]) for k in ("text", "folder", "missing"))
    return [
        ["profiles", "--nope"],
        ["info", "sim://no-such-profile"],
        ["info", "warp://somewhere"],
        ["status", "sim://mlc-64l?seed=x"],
        ["read", URL, "--block", "abc", "--page", "0"],
        ["read", URL, "--block", "999999", "--page", "0"],
        ["program", URL, "--block", "1", "--page", "0", "--in", missing, "--yes"],
        ["program", URL, "--block", "1", "--page", "0"],  # no --yes
        ["erase", "not a url", "--block", "1", "--yes"],
        ["features", "get", URL, "zz"],
        ["features", "set", URL, "0x01", "300", "--yes"],
        ["offsets", "set", URL, "nope", "10", "--yes"],
        ["vth", URL, "--block", "-1", "--wl", "0", "--yes"],
        ["rber", URL, "--block", "9", "--retention", "forever", "--yes"],
        ["demo", "--wl-count", "0"],
        ["run", missing],
        ["run", text],
        ["run", folder],
        ["resume", folder],
        ["resume", missing],
        ["report", folder],
        ["export", folder],
        ["export", folder, "--format", "xls"],
        ["ledger", "not-hex!"],
        ["doctor", "--url", "sim://mlc-64l"],
        ["doctor", "--url", "ftdi://x"],
        ["compute", URL, "--expr", "A &", "--operand", "A=1:0", "--scheme", "parabit"],
        ["compute", URL, "--operand", "A=x:y", "--expr", "A"],
        ["search", URL, "--scheme", "nope"],
        ["runs", "--out", text],
        ["query", "SELEC nothing", "--out", folder],
        ["query", "SELECT * FROM no_such_table", "--out", folder],
        ["query", "SELECT 1", "--out", text],
        ["serve", "--token-file", missing],
        ["serve", "--port", "70000"],
        ["no-such-command"],
    ]


def test_the_walk_covers_every_command(files: dict[str, Path]) -> None:
    assert set(cli.list_commands(click.Context(cli))) <= {args[0] for args in bad_inputs(files)}


def test_every_command_refuses_bad_input_with_exit_2_and_no_traceback(
    files: dict[str, Path], tmp_path: Path
) -> None:
    runner = CliRunner()
    for args in bad_inputs(files):
        result = runner.invoke(cli, [*args, *_out(args, tmp_path)])
        shown = f"nandlab {' '.join(args)} -> {result.exit_code}\n{result.output}"
        assert result.exit_code == 2, shown
        assert "Traceback" not in result.output, shown
        assert result.stderr.lstrip().lower().startswith(("error:", "usage:")), shown


def _out(args: list[str], tmp_path: Path) -> list[str]:
    """Commands that make a run folder make it under tmp_path, never in the checkout."""
    return ["--out", str(tmp_path / "runs")] if args[0] in ("vth", "rber", "demo") else []


def test_debug_adds_the_traceback_and_keeps_the_exit_code() -> None:
    args = ["read", URL, "--block", "999999", "--page", "0"]
    plain = CliRunner().invoke(cli, args)
    debug = CliRunner().invoke(cli, ["--debug", *args])
    assert plain.exit_code == debug.exit_code == 2
    assert "Traceback" not in plain.output
    assert "Traceback" in debug.stderr and "AddressError" in debug.stderr
    assert plain.stderr.splitlines()[0] in debug.stderr


def test_a_bug_is_exit_1_named_as_one(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> list[str]:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr("nandlab.cli.chip_cmds.builtin_names", broken)
    result = CliRunner().invoke(cli, ["profiles"])
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "error: internal error (ZeroDivisionError: division by zero) at test_exit_codes.py:"
    )
    assert "--debug" in result.stderr and "Traceback" not in result.output


@pytest.mark.parametrize("args", [["profiles"], ["profiles", "--json"]])
def test_closed_stdout_ends_quietly_with_0(args: list[str]) -> None:
    """`nandlab profiles | head -0`: stdout is a pipe whose reader is gone before the first
    write (rich tables and click.echo both)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run(
            [sys.executable, "-c", ENTRY, *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stderr == b""


@pytest.mark.parametrize(
    ("raised", "code", "says"),
    [
        (Interrupted(signal.SIGTERM, "run stopped: resume it"), 143, "run stopped: resume it"),
        (KeyboardInterrupt(), 130, "interrupted by SIGINT"),
        (OSError(errno.ENOSPC, "No space left on device", "/data/x"), 1, "the disk is full"),
        (OSError(errno.EFBIG, "File too large", "/data/x"), 1, "file size limit"),
        (OSError(errno.EROFS, "Read-only file system", "/data/x"), 2, "read-only"),
        (PermissionError(errno.EACCES, "Permission denied", "/data/x"), 2, "/data/x"),
        (FileNotFoundError(errno.ENOENT, "No such file or directory", "/data/x"), 2, "/data/x"),
        (sqlite3.OperationalError("attempt to write a readonly database"), 2, "read-only"),
        (sqlite3.OperationalError("disk I/O error"), 1, "a database write failed"),
        (OSError(errno.EIO, "Input/output error"), 1, "Input/output error"),
    ],
)
def test_what_ends_a_command_maps_to_its_exit_code(
    raised: BaseException, code: int, says: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing() -> list[str]:
        raise raised

    monkeypatch.setattr("nandlab.cli.chip_cmds.builtin_names", failing)
    result = CliRunner().invoke(cli, ["profiles"])
    assert result.exit_code == code, result.output
    assert result.stderr.startswith("error: ") and says in result.stderr
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.output
