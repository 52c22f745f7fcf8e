"""`nandlab`: the console script's entry point.

Light on purpose: the signal handlers go in before the command modules are imported
(about a second of numpy, numba, pyarrow...), so a Ctrl-C or SIGTERM during start-up
ends as cleanly as one during a run. Exit codes (docs/cli.md): 0 done, 1 a chip, bench
or disk fault, 2 bad usage or input, 128 + signal number when a signal stopped the
command (130 SIGINT, 143 SIGTERM); a closed stdout (`nandlab ... | head -1`) is no error.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from nandlab.campaign.stops import install_signal_handlers, reason, signal_of

if TYPE_CHECKING:
    import click


def main() -> None:
    install_signal_handlers()
    try:
        from nandlab.cli.app import cli

        status = _run(cli)
    except KeyboardInterrupt as exc:
        # only before a command starts (the group ends every command itself): nothing
        # was opened or written yet
        print(f"error: {reason(exc)}", file=sys.stderr)
        status = 128 + signal_of(exc)
    sys.exit(status)


def _run(cli: click.Group) -> int:
    from nandlab.cli.common import silence_stdout

    status: object = 0
    try:
        cli.main(prog_name="nandlab")
    except SystemExit as done:  # Click's standalone mode always ends this way
        status = done.code
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader went away after the last write: the rest was not wanted
        silence_stdout()
        return 0
    return status if isinstance(status, int) else 1
