"""What every command shares: exit codes, bench opening, --json, --yes, --out, progress
bars, tables."""

from __future__ import annotations

import json
import logging
import os
import select
import sqlite3
import sys
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

import click
from rich.console import Console
from rich.table import Table

from nandlab.campaign.runlog import utc_formatter
from nandlab.campaign.stops import is_read_only, reason, signal_of
from nandlab.errors import NandlabError, RefusedOperation, UsageError

if TYPE_CHECKING:
    from nandlab.onfi.chip import Chip
    from nandlab.transport.base import Transport

F = TypeVar("F", bound=Callable[..., Any])


class CliError(click.ClickException):
    """One line "error: ..." on stderr and the exit code of its kind (`ending`)."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code  # type: ignore[misc]  # click declares it per class

    def show(self, file: IO[Any] | None = None) -> None:
        first, *rest = self.format_message().splitlines() or [""]
        if self.exit_code > 128 and sys.stderr.isatty():
            click.echo(err=True)  # past the terminal's echo of ^C
        click.echo(f"error: {first}", err=True)
        for line in rest:
            click.echo(f"  {line.strip()}", err=True)


class NandlabGroup(click.Group):
    """A Click group that ends every command by one convention (docs/cli.md): an error, a
    refused write or a signal becomes one `error:` line and its exit code, never a
    traceback (`--debug` adds it); a closed stdout ends quietly with 0."""

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        with command_ending(debug="--debug" in args):  # the group's own --help, --version
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: click.Context) -> Any:
        with command_ending(debug=bool(ctx.params.get("debug"))):
            return super().invoke(ctx)


@contextmanager
def command_ending(debug: bool) -> Iterator[None]:
    """Turn what ends a command early into Click's exit: CliError or a quiet Exit(0)."""
    try:
        yield
    except (click.ClickException, click.exceptions.Exit, click.Abort):
        raise
    except (Exception, KeyboardInterrupt) as exc:
        if debug:
            traceback.print_exception(exc)
        raise ending(exc) from None


def ending(exc: BaseException) -> click.ClickException | click.exceptions.Exit:
    """The exit for an exception that ended a command: 2 for what the user asked or pointed
    at (usage, input, a folder nandlab cannot write), 1 for faults (chip, bench, disk) and
    bugs, 128 + signal number for an interrupt, 0 when the reader of stdout went away."""
    if isinstance(exc, KeyboardInterrupt):
        return CliError(str(exc) or reason(exc), 128 + signal_of(exc))
    if isinstance(exc, BrokenPipeError) and stdout_closed():
        silence_stdout()
        return click.exceptions.Exit(0)
    if isinstance(exc, UsageError):
        return CliError(str(exc), 2)
    if isinstance(exc, NandlabError):
        return CliError(str(exc), 1)
    if isinstance(exc, FileNotFoundError | NotADirectoryError | IsADirectoryError):
        return CliError(reason(exc), 2)
    if isinstance(exc, OSError | sqlite3.Error):
        return CliError(reason(exc), 2 if is_read_only(exc) else 1)
    if isinstance(exc, MemoryError):
        return CliError("out of memory", 1)
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return CliError(
        f"internal error ({type(exc).__name__}: {exc}){where}: a bug in nandlab; "
        "'nandlab --debug ...' prints the traceback, please report it",
        1,
    )


def stdout_closed() -> bool:
    """stdout is a pipe whose reader has gone (`nandlab ... | head -1`): Linux reports
    POLLERR on the write end of a pipe without readers."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # an in-memory stdout (tests) has none
        return False
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & select.POLLERR for _, events in poller.poll(0))


def silence_stdout() -> None:
    """Point stdout at devnull, so the interpreter's last flush at exit writes nowhere
    instead of failing again (as Python's docs on SIGPIPE advise)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def setup_logging(verbose: int, quiet: bool, log_file: Path | None) -> None:
    """The `nandlab` logger: stderr at INFO (what a long step is doing), DEBUG with -v,
    WARNING with -q; --log-file appends everything (DEBUG). Library code only logs."""
    logger = logging.getLogger("nandlab")
    for old in list(logger.handlers):  # one invocation's handlers (CliRunner runs many)
        logger.removeHandler(old)
        old.close()
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    console = logging.StreamHandler(sys.stderr)
    console.setLevel(logging.WARNING if quiet else logging.DEBUG if verbose else logging.INFO)
    console.setFormatter(utc_formatter())
    logger.addHandler(console)
    if log_file is not None:
        try:
            handler = logging.FileHandler(log_file, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"--log-file {log_file}: {exc.strerror or exc}") from None
        handler.setFormatter(utc_formatter())
        logger.addHandler(handler)


def json_option(f: F) -> F:
    return click.option(
        "--json", "as_json", is_flag=True, help="Print exactly one JSON document instead of tables."
    )(f)


def fresh_option(f: F) -> F:
    return click.option(
        "--fresh", is_flag=True, help="Start from a fresh virtual die (adds fresh=1 to the URL)."
    )(f)


def chip_args(f: F) -> F:
    """The URL argument, --fresh and --json: what every command on one chip takes."""
    return click.argument("url")(fresh_option(json_option(f)))


def yes_option(f: F) -> F:
    return click.option("--yes", is_flag=True, help="Confirm an operation that changes the chip.")(
        f
    )


def dry_run_option(f: F) -> F:
    return click.option(
        "--dry-run",
        is_flag=True,
        help="Print the plan (operations, chip time at most, P/E cycles added per block) "
        "and change nothing.",
    )(f)


def require_yes(yes: bool, what: str) -> None:
    """Refuse (exit 2) an operation that changes the chip unless --yes was given."""
    if not yes:
        raise RefusedOperation(f"{what} changes the chip: add --yes to confirm")


@contextmanager
def open_chip(
    url: str, fresh: bool, ce: int = 0, *, read_only: bool = False
) -> Iterator[tuple[Transport, Chip]]:
    """Open the bench at `url` and chip enable `ce`; the bench is closed (die saved) on exit.

    The erases the command ran, even one that failed half-way, go into the chip ledger
    first; a fresh virtual die makes the ledger forget the chip's earlier wear. The chip
    is locked (by its unique ID) while open. `read_only`: the command changes nothing: a
    virtual die's image is shared with other readers and not written, and --fresh gives a
    fresh die in memory only, so the ledger is left alone."""
    from nandlab.onfi.chip import Chip
    from nandlab.transport import open_bench
    from nandlab.transport.url import with_fresh

    context = click.get_current_context(silent=True)
    command = context.info_name if context is not None and context.info_name else "nandlab"
    if not read_only:
        # here, not at the top: a read-only command never opens the ledger
        from nandlab.ledger import book_wear, check_ledger, forget_fresh_die, one_off_id
        from nandlab.locks import chip_lock

        run_id = one_off_id(command)
        check_ledger()
    transport = open_bench(with_fresh(url) if fresh else url, read_only=read_only)
    chip = Chip(transport, ce)
    try:
        if read_only:
            yield transport, chip
            return
        with chip_lock(chip.identification.unique_id):
            if fresh and url.startswith("sim:"):
                forget_fresh_die(chip, run_id)
            try:
                yield transport, chip
            finally:
                book_wear(chip, run_id, command)
    finally:
        transport.close()


class _StdoutConsole(Console):
    """Rich's console on stdout, leaving a closed pipe to `ending` (rich would exit 1)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError


def stdout_console() -> Console:
    return _StdoutConsole(file=sys.stdout, width=max(100, Console(file=sys.stdout).width))


def print_json(doc: Any) -> None:
    click.echo(json.dumps(doc, indent=2, default=_json_default))


def _json_default(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, bytes):
        return value.hex()
    return str(value)


class StepBars:
    """One progress bar per campaign step on stderr, with the time left estimated from its
    units; `enabled=False` shows nothing. Use the instance as a run's `on_progress`."""

    def __init__(self, enabled: bool) -> None:
        # here, not at the top: only campaign commands show bars (rich.progress ~9 ms)
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),
            console=Console(file=sys.stderr),
            disable=not enabled,
        )
        self._tasks: dict[int, Any] = {}

    def __enter__(self) -> StepBars:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def __call__(self, label: str, done: int, total: int, step: int) -> None:
        if step not in self._tasks:
            self._tasks[step] = self._progress.add_task(label, total=total)
        self._progress.update(self._tasks[step], completed=done)


def out_option(default: Path | None, help: str) -> Callable[[F], F]:
    """--out FOLDER: where the run directory is made."""
    return click.option(
        "--out",
        type=click.Path(file_okay=False, path_type=Path),
        default=default,
        show_default=default is not None,
        help=help,
    )


def print_table(
    title: str,
    columns: Mapping[str, Callable[[Any], str]],
    items: Iterable[Any],
    **table_options: Any,
) -> None:
    """A rich table on stdout: one row per item, each column's text made by its function
    (columns after the first are right-aligned)."""
    table = Table(title=title, **table_options)
    for i, col in enumerate(columns):
        table.add_column(col, justify="left" if i == 0 else "right")
    for item in items:
        table.add_row(*(cell(item) for cell in columns.values()))
    stdout_console().print(table)


def parse_int(text: str, what: str, lo: int, hi: int) -> int:
    """Parse 160, 0xA0 or A0h; UsageError naming the range when it is not an integer in lo..hi."""
    t = text.strip().lower()
    try:
        value = int(t[:-1], 16) if t.endswith("h") else int(t, 0)
    except ValueError:
        value = None
    if value is None or not lo <= value <= hi:
        raise UsageError(
            f"{what} '{text}' is not allowed: give an integer in {lo}..{hi} "
            f"(0x{lo:02X}..0x{hi:02X}; decimal, 0x.. or ..h)"
        )
    return value


MAX_ADDRESSES = 1 << 16
"""More addresses than any list a command takes (every WL of a block, every block of a
plane); a longer list is a typo (0-99999999) refused before anything is built."""


def parse_addresses(text: str, what: str, lo: int = 0, hi: int = (1 << 24) - 1) -> list[int]:
    """'0-9,20' -> [0, ..., 9, 20]: the one parser of every address list on the command line
    (--block, --wl, --scratch). UsageError naming the option, the allowed form and the bounds
    lo..hi; the chip's own geometry is checked where the chip is known."""
    out: list[int] = []
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        if not first.isdigit() or (dash and not last.isdigit()) or len(first + last) > 18:
            raise UsageError(f"{what} '{text}' is malformed: give numbers and ranges like 0-9,20")
        a, b = int(first), int(last) if dash else int(first)
        if b < a:
            raise UsageError(f"{what} '{text}': the range {a}-{b} runs backwards")
        if a < lo or b > hi:
            raise UsageError(f"{what} '{text}' is out of range: allowed {lo}..{hi}")
        if len(out) + b - a + 1 > MAX_ADDRESSES:
            raise UsageError(f"{what} '{text}' lists more than {MAX_ADDRESSES} addresses")
        out.extend(range(a, b + 1))
    return out


class AddressList(click.ParamType):
    """An option taking an address list ('0-9,20'), parsed by `parse_addresses`."""

    name = "LIST"

    def __init__(self, hi: int = (1 << 24) - 1) -> None:
        self.hi = hi

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, list):
            return value
        what = param.opts[0] if param is not None else "address list"
        try:
            return parse_addresses(str(value), what, 0, self.hi)
        except UsageError as exc:
            self.fail(str(exc), param, ctx)
