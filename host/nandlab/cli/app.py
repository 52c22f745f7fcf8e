"""The `nandlab` command group: every command, and the global options.

`nandlab.cli.main` is the console script's entry point; it imports this module only after
its signal handlers are in, because importing the commands takes about a second.
"""

from __future__ import annotations

import click

import nandlab
from nandlab.cli import (
    campaign_cmds,
    catalog_cmds,
    chip_cmds,
    compute_cmds,
    doctor_cmds,
    run_cmds,
    serve_cmds,
)
from nandlab.cli.common import NandlabGroup


@click.group(cls=NandlabGroup, context_settings={"help_option_names": ["-h", "--help"]})
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


for command in (
    chip_cmds.profiles,
    chip_cmds.info,
    chip_cmds.status,
    chip_cmds.read,
    chip_cmds.program,
    chip_cmds.erase,
    chip_cmds.features,
    chip_cmds.offsets,
    campaign_cmds.vth,
    campaign_cmds.rber,
    campaign_cmds.demo,
    *run_cmds.COMMANDS,
    *catalog_cmds.COMMANDS,
    doctor_cmds.doctor,
    compute_cmds.compute,
    *serve_cmds.COMMANDS,
):
    cli.add_command(command)
