"""The `nandlab` command group: every command, and the global options.

`nandlab.cli.main` is the console script's entry point; it imports this module only after
its signal handlers are in. The commands themselves are imported when one runs (or shows
its own help): their modules bring numpy, numba, pyarrow, matplotlib..., which `nandlab
--help` and a chip command do not need. The group's help lists them from `COMMANDS`.
"""

from __future__ import annotations

import importlib

import click

import nandlab
from nandlab.cli.common import NandlabGroup

COMMANDS: dict[str, tuple[str, str]] = {
    # name: (module under nandlab.cli, the command's short help as Click derives it:
    # the first sentence of its docstring; host/tests/test_cli_cold_start.py compares)
    "profiles": ("chip_cmds", "List the built-in chip profiles."),
    "info": (
        "chip_cmds",
        "Identify the chip: READ ID, ONFI parameter page (CRC), geometry, timing, unique ID.",
    ),
    "status": ("chip_cmds", "READ STATUS (70h)."),
    "read": ("chip_cmds", "READ one page (data + spare)."),
    "program": ("chip_cmds", "PROGRAM one page with a pattern or a file's bytes."),
    "erase": ("chip_cmds", "ERASE one block."),
    "features": ("chip_cmds", "GET / SET FEATURES."),
    "offsets": ("chip_cmds", "Read-reference offsets (SET FEATURES), in mV."),
    "vth": (
        "campaign_cmds",
        "Measure one WL's Vth distribution by sweeping every read-reference offset.",
    ),
    "rber": (
        "campaign_cmds",
        "Cycle a block to --pec P/E cycles, program WLs, age them (--retention), count bit "
        "errors.",
    ),
    "demo": (
        "campaign_cmds",
        "Demo campaign on a fresh virtual MLC: RBER and Vth at 1/3K/10K P/E, fresh and 1y@30C.",
    ),
    "run": (
        "run_cmds",
        "Run a campaign file; rows are committed per unit (resume with `nandlab resume`).",
    ),
    "resume": ("run_cmds", "Finish an interrupted run: no row lost, none duplicated."),
    "report": ("run_cmds", "Write summary.md and plots/*.png of a run."),
    "export": (
        "run_cmds",
        "Export a run's measurement rows as Parquet, CSV or HDF5 into a new file (with a "
        ".sha256 beside it); never over the run's own files, never fewer rows than it holds.",
    ),
    "ledger": (
        "run_cmds",
        "History of a chip: a bench URL (identifies CE 0) or a chip unique ID (hex).",
    ),
    "runs": ("catalog_cmds", "List the runs of a folder: id, start, campaign, chip, status, rows."),
    "query": (
        "catalog_cmds",
        "Run SQL (DuckDB) over the runs of a folder: table `rows` holds every row of every "
        "complete run (column run_id names the run), table `runs` the catalogue.",
    ),
    "doctor": (
        "doctor_cmds",
        "Tell what stops a real FT2232H bench (libusb, permissions, ftdi_sio, device, chip).",
    ),
    "compute": (
        "compute_cmds",
        "Evaluate an expression over operands stored on the chip, in flash.",
    ),
    "serve": (
        "serve_cmds",
        "Serve the dashboard: the run catalogue, live progress, plots, the chip ledger, and "
        "campaigns started, stopped and resumed from the page (as `nandlab run` / `resume` "
        "processes, which keep running when the dashboard stops).",
    ),
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
def cli(debug: bool) -> None:
    """nandlab: NAND flash characterization on real or virtual chips.

    Benches open by URL, e.g. sim://mlc-64l?seed=3 (a virtual die; its state
    persists between commands unless --fresh is given).

    Exit codes: 0 done, 1 chip / bench / disk fault, 2 bad usage or input,
    130 interrupted (Ctrl-C), 143 terminated (SIGTERM); an interrupted run
    continues with `nandlab resume RUN_DIR`.
    """

