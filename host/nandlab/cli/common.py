"""What every command shares: error mapping, bench opening, --json, --yes, --out, progress
bars, tables."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from nandlab.errors import NandlabError, RefusedOperation, UsageError

if TYPE_CHECKING:
    from nandlab.onfi.chip import Chip
    from nandlab.transport.base import Transport

F = TypeVar("F", bound=Callable[..., Any])


class CliError(click.ClickException):
    """One line "error: ..." on stderr, exit 2 for usage errors and 1 for the rest."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code  # type: ignore[misc]  # click declares it per class

    def show(self, file: IO[Any] | None = None) -> None:
        first, *rest = self.format_message().splitlines() or [""]
        click.echo(f"error: {first}", err=True)
        for line in rest:
            click.echo(f"  {line.strip()}", err=True)


class NandlabGroup(click.Group):
    """A Click group that turns nandlab errors into CliError (no traceback)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except UsageError as exc:
            raise CliError(str(exc), 2) from None
        except NandlabError as exc:
            raise CliError(str(exc), 1) from None


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


def require_yes(yes: bool, what: str) -> None:
    """Refuse (exit 2) an operation that changes the chip unless --yes was given."""
    if not yes:
        raise RefusedOperation(f"{what} changes the chip: add --yes to confirm")


@contextmanager
def open_chip(url: str, fresh: bool, ce: int = 0) -> Iterator[tuple[Transport, Chip]]:
    """Open the bench at `url` and chip enable `ce`; the bench is closed (die saved) on exit."""
    from nandlab.onfi.chip import Chip
    from nandlab.transport import open_bench
    from nandlab.transport.url import with_fresh

    transport = open_bench(with_fresh(url) if fresh else url)
    try:
        yield transport, Chip(transport, ce)
    finally:
        transport.close()


def stdout_console() -> Console:
    return Console(file=sys.stdout, width=max(100, Console(file=sys.stdout).width))


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


def parse_wls(text: str) -> list[int]:
    """'0-3,8,10' -> [0, 1, 2, 3, 8, 10]; UsageError for anything else."""
    out: list[int] = []
    try:
        for part in text.split(","):
            part = part.strip()
            if "-" in part:
                a, b = (int(x) for x in part.split("-", 1))
                if b < a:
                    raise ValueError
                out.extend(range(a, b + 1))
            else:
                out.append(int(part))
    except ValueError:
        raise UsageError(
            f"WL list '{text}' is malformed: use numbers and ranges like 0-3,8,10"
        ) from None
    return out
