"""A whole virtual FT2232H bench in one call, for tests and bench scripts.

    >>> with virtual_ftdi_bench("ft2232h-bga", "mlc-64l") as (bench, device):  # doctest: +SKIP
    ...     Chip(bench).identify()

The die is built from the profile, the FT2232H from the board file, the
device is plugged in as a pyusb backend and the bench opened by its URL, so
everything from pyftdi up runs as on a real bench.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from nandlab.boards import load_board
from nandlab.profiles import load_profile
from nandlab.transport.ftdi import FtdiTransport
from nandlab.vchip.die import VirtualDie
from nandlab.vusb.backend import plugged
from nandlab.vusb.ft2232h import VirtualFt2232h


def bench_url(board: str, profile: str, interface: int = 1, busy: str = "sample") -> str:
    """The ftdi:// URL of a bench with this board and profile (busy: see FtdiOptions)."""
    return f"ftdi://ftdi:2232h/{interface}?board={board}&profile={profile}&busy={busy}"


@contextmanager
def virtual_ftdi_bench(board: str = "ft2232h-bga", profile: str = "mlc-64l", *, seed: int = 0,
                       record_edges: bool = False, stuck_busy: bool = False,
                       busy: str = "sample") -> Iterator[tuple[FtdiTransport, VirtualFt2232h]]:
    """Open an ftdi:// bench on a virtual FT2232H with a fresh virtual die."""
    board_model = load_board(board)
    die = VirtualDie(load_profile(profile), seed, 0)
    device = VirtualFt2232h(board_model, die, record_edges=record_edges, stuck_busy=stuck_busy)
    interface = getattr(board_model.controller, "interface", 1)
    with plugged(device):
        bench = FtdiTransport.from_url(bench_url(board, profile, interface, busy))
        try:
            yield bench, device
        finally:
            bench.close()
