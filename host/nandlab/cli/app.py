"""The `nandlab` command group: every command, and the global options.

`nandlab.cli.main` is the console script's entry point; it imports this module only after
its signal handlers are in. The commands themselves are imported when one runs (or shows
its own help): their modules bring numpy, numba, pyarrow, matplotlib..., which `nandlab
--help` and a chip command do not need. The group's help lists them from `COMMANDS`.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import click

import nandlab
from nandlab.cli.common import NandlabGroup, setup_logging

COMMANDS: dict[str, tuple[str, str]] = {
    # name: (module under nandlab.cli, the first paragraph of the command's docstring, which
    # Click lists as its short help: one sentence that fits the command list untruncated;
    # host/tests/test_cli_cold_start.py compares, tests/test_cli_conventions.py checks the fit)
    "profiles": ("chip_cmds", "List the built-in chip profiles."),
    "info": ("chip_cmds", "Identify the chip: READ ID, parameter page, geometry, timing."),
    "status": ("chip_cmds", "READ STATUS (70h)."),
    "read": ("chip_cmds", "READ one page (data + spare)."),
    "program": ("chip_cmds", "PROGRAM one page with a pattern or a file's bytes."),
    "erase": ("chip_cmds", "ERASE blocks, in the order given."),
    "features": ("feature_cmds", "GET / SET FEATURES."),
    "offsets": ("feature_cmds", "Read-reference offsets (SET FEATURES), in mV."),
    "vth": ("campaign_cmds", "Measure one WL's Vth distribution over the read offsets."),
    "rber": ("campaign_cmds", "Cycle a block, program WLs, age them, count bit errors."),
    "demo": ("campaign_cmds", "Demo campaign on a fresh virtual MLC: RBER and Vth vs P/E."),
    "run": ("run_cmds", "Run a campaign file, its rows committed unit by unit."),
    "resume": ("run_cmds", "Finish an interrupted run: no row lost, none duplicated."),
    "report": ("run_cmds", "Write summary.md and plots/*.png of a run."),
    "export": ("run_cmds", "Export a run's rows as Parquet, CSV or HDF5 into a new file."),
    "ledger": ("run_cmds", "History of a chip, by bench URL or chip unique ID."),
    "runs": ("catalog_cmds", "List the runs of a folder: id, campaign, chip, status, rows."),
    "query": ("catalog_cmds", "Run SQL (DuckDB) over the rows of a folder's runs."),
    "doctor": ("doctor_cmds", "Tell what stops a real FT2232H bench from working."),
    "compute": ("compute_cmds", "Evaluate an expression over operands stored in flash."),
    "search": ("search_cmds", "Search data stored in flash, inside the chip (cox-pm, sim-search)."),
    "serve": ("serve_cmds", "Serve the dashboard: runs, live progress, plots, ledger."),
}


class LazyGroup(NandlabGroup):
    """A group whose commands are imported from their module on first use (`COMMANDS`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)  # Click's order

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module = importlib.import_module(f"nandlab.cli.{entry[0]}")
        command = getattr(module, cmd_name.replace("-", "_"))
        assert isinstance(command, click.Command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from `COMMANDS`, without importing a command module."""
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [
            # a stand-in command shortens the text exactly as the real one would
            (name, click.Command(name, help=text).get_short_help_str(limit))
            for name, (_, text) in sorted(COMMANDS.items())
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(nandlab.__version__, prog_name="nandlab")
@click.option(
    "--debug",
    is_flag=True,
    help="On an error, also print Python's traceback (for a bug report); exit codes stay.",
)
@click.option(
    "-v", "--verbose", count=True, help="Log more on stderr: -v debug details of every step."
)
@click.option("-q", "--quiet", is_flag=True, help="Log only warnings and errors on stderr.")
@click.option(
    "--log-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also append the full log (debug level, UTC timestamps) to this file.",
)
def cli(debug: bool, verbose: int, quiet: bool, log_file: Path | None) -> None:
    """nandlab: NAND flash characterization on real or virtual chips.

    Benches open by URL, e.g. sim://mlc-64l?seed=3 (a virtual die; its state
    persists between commands unless --fresh is given).

    Exit codes: 0 done, 1 chip / bench / disk fault, 2 bad usage or input,
    130 interrupted (Ctrl-C), 143 terminated (SIGTERM); an interrupted run
    continues with `nandlab resume RUN_DIR`.

    Logs go to stderr with UTC timestamps (-v more, -q less, --log-file a
    copy); a run also keeps its log in RUN_DIR/run.log.

    \b
    Shell completion (bash; zsh and fish alike with zsh_source / fish_source):
      eval "$(_NANDLAB_COMPLETE=bash_source nandlab)"

    \b
    Example:
      nandlab info sim://mlc-64l
      nandlab -v run campaign.yaml --yes
    """
    setup_logging(verbose, quiet, log_file)
