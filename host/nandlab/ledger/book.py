"""Booking a chip's wear into the ledger after commands that are not campaign runs.

The chip layer counts every erase a target runs (`onfi.wear.WearTally`); a
campaign run books its chips' counts after each unit, and a one-off command
(`nandlab erase`, `program`, `read`...) books them here when it closes the
bench, so the ledger sees every P/E cycle whichever command caused it.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from nandlab.ledger.db import Ledger, ledger_path

if TYPE_CHECKING:
    from nandlab.onfi.chip import Chip


def one_off_id(command: str) -> str:
    """The ledger's run id of a one-off command: its name, UTC time (µs) and process id."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    return f"{command}-{stamp}-{os.getpid()}"


def check_ledger(root: Path | None = None) -> None:
    """DamagedFileError now, before a command changes a chip, if the ledger is damaged
    (it would only fail after the chip changed, when the wear is booked)."""
    path = ledger_path(root)
    if path.exists():
        Ledger(path).close()


def book_wear(chip: Chip, run_id: str, unit: str, *, root: Path | None = None) -> None:
    """Write the P/E cycles `chip` ran since its tally was last taken as events of
    (`run_id`, `unit`); nothing is opened when there are none (a read leaves no trace)."""
    wear = chip.wear.take()
    if not wear:
        return
    uid = chip.identification.unique_id
    profile = chip.transport.profile
    url = chip.transport.url
    with Ledger(ledger_path(root)) as book:
        book.touch_chip(uid, profile.name if profile else "", url.startswith("sim:"), url)
        book.record_wear(uid, run_id, unit, wear)


def forget_fresh_die(chip: Chip, run_id: str, *, root: Path | None = None) -> None:
    """A virtual die was started fresh: the ledger forgets its wear and bad-block table."""
    with Ledger(ledger_path(root)) as book:
        book.reset_chip(chip.identification.unique_id, run_id, "virtual die started fresh")
