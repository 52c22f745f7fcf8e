"""`nandlab`: the command line entry point (Click group).

Exit codes: 0 success, 1 a bench or chip fault, 2 a usage error (bad URL,
profile, address, value, or a chip-changing command without --yes).
"""

from __future__ import annotations

import click

import nandlab
from nandlab.cli import campaign_cmds, chip_cmds, compute_cmds, doctor_cmds, run_cmds
from nandlab.cli.common import NandlabGroup


@click.group(cls=NandlabGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(nandlab.__version__, prog_name="nandlab")
def cli() -> None:
    """nandlab: NAND flash characterization on real or virtual chips.

    Benches open by URL, e.g. sim://mlc-64l?seed=3 (a virtual die; its state
    persists between commands unless --fresh is given).
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
    doctor_cmds.doctor,
    compute_cmds.compute,
):
    cli.add_command(command)


def main() -> None:
    cli()
