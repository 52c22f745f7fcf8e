"""Catalogue commands: `nandlab runs` (the runs of a data folder) and `nandlab query` (SQL
over their rows, DuckDB)."""

from __future__ import annotations

import csv
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import click

from nandlab.cli.common import json_option, print_json, stdout_console

RUNS_DIR = click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("runs"),
    show_default=True,
    help="Folder holding the run folders (the --out of `nandlab run`).",
)


@click.command("runs")
@RUNS_DIR
@json_option
def runs(out: Path, as_json: bool) -> None:
    """List the runs of a folder: id, campaign, chip, status, rows.

    \b
    Example:
      nandlab runs --out runs --json
    """
    from rich.table import Table

    from nandlab.dataset.catalog import catalog

    entries = catalog(out)
    if as_json:
        print_json([asdict(e) for e in entries])
        return
    table = Table("run", "start (UTC)", "campaign", "profile", "chip", "status", "rows")
    for e in entries:
        table.add_row(
            e.run_id,
            e.start_utc or "-",
            e.campaign or "-",
            e.profile or "-",
            e.chips or "-",
            e.status,
            "?" if e.rows is None else str(e.rows),
        )
    stdout_console().print(table)


@click.command("query")
@click.argument("sql")
@RUNS_DIR
@json_option
@click.option("--csv", "as_csv", is_flag=True, help="Print the result as CSV.")
def query(sql: str, out: Path, as_json: bool, as_csv: bool) -> None:
    """Run SQL (DuckDB) over the rows of a folder's runs.

    Table `rows` holds every committed row of every run, complete or not (column run_id
    names the run), table `runs` the catalogue (its status tells complete runs).

    \b
    Example:
      nandlab query "SELECT run_id, pec, SUM(errors_0to1 + errors_1to0) / SUM(bits)
        AS rber FROM rows WHERE operation = 'rber' GROUP BY ALL ORDER BY ALL"
    """
    from nandlab.dataset.catalog import query as run_query

    result = run_query(out, sql).to_pylist()
    if as_json:
        print_json(json.loads(json.dumps(result, default=str)))
        return
    names = list(result[0]) if result else []
    if as_csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(names)
        writer.writerows([_cell(r[n]) for n in names] for r in result)
        return
    from rich.table import Table

    table = Table(*names)
    for r in result:
        table.add_row(*(_cell(r[n]) for n in names))
    stdout_console().print(table)


def _cell(value: Any) -> str:
    return "" if value is None else str(value)


COMMANDS = (runs, query)
