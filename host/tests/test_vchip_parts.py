"""The parts of a virtual die on their own: cell-mode commands, byte streams, the drift cache."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from nandlab.profiles import load_profile
from nandlab.profiles.model import SlcMode
from nandlab.vchip.address import AddressMap, CellMode
from nandlab.vchip.identity import ByteStream
from nandlab.vchip.sensing import DriftCache


def test_cell_modes_are_sticky_and_exclusive() -> None:
    p = load_profile("tlc-48l")
    slc, mlc = p.vendor.slc_mode, p.vendor.mlc_mode
    assert slc is not None and mlc is not None
    a = AddressMap(p.geometry, p.vendor)
    g = p.geometry
    assert a.pages_in_mode() == g.pages_per_block
    a.mode_command(slc.enter_cmd)
    assert a.mode is CellMode.SLC and a.pages_in_mode() == g.wls_per_block
    a.mode_command(mlc.exit_cmd)  # leaving a mode the die is not in changes nothing
    assert a.mode is CellMode.SLC
    a.mode_command(mlc.enter_cmd)  # entering one mode leaves the other
    assert a.mode is CellMode.MLC and a.pages_in_mode() == 2 * g.wls_per_block
    a.mode_command(0x00)  # not a mode command
    assert a.mode is CellMode.MLC
    a.mode_command(mlc.exit_cmd)
    assert a.mode is CellMode.NATIVE


def test_shared_mode_byte_slc_entry_first() -> None:
    p = load_profile("tlc-48l")
    slc = p.vendor.slc_mode
    assert slc is not None
    vendor = p.vendor.model_copy(
        update={"mlc_mode": SlcMode(enter_cmd=slc.exit_cmd, exit_cmd=slc.enter_cmd)}
    )
    a = AddressMap(p.geometry, vendor)
    a.mode_command(slc.enter_cmd)  # SLC entry, not MLC exit
    assert a.mode is CellMode.SLC
    a.mode_command(slc.exit_cmd)  # SLC exit, not MLC entry
    assert a.mode is CellMode.NATIVE


def test_byte_stream_repeats_or_pads() -> None:
    s = ByteStream(b"ABC")
    assert s.take(2) + s.take(5) == b"ABCABCA"
    f = ByteStream(b"\x01\x02", wrap=False)
    assert f.take(1) + f.take(3) == b"\x01\x02\x00\x00"


def test_drift_cache_keeps_the_last_wls() -> None:
    cache = DriftCache(cells=8, capacity=2)
    fills: list[tuple[int, int]] = []

    def fill(where: tuple[int, int], value: float) -> Callable[[np.ndarray], None]:
        def f(out: np.ndarray) -> None:
            fills.append(where)
            out[:] = value

        return f

    a = cache.get((1, 0), "k", fill((1, 0), 1.0))
    assert cache.get((1, 0), "k", fill((1, 0), 9.0)) is a and float(a[0]) == 1.0  # a hit
    b = cache.get((1, 1), "k", fill((1, 1), 2.0))
    again = cache.get((1, 0), "k2", fill((1, 0), 3.0))  # a new key refills in place
    assert again is a and float(a[0]) == 3.0
    c = cache.get((2, 0), "k", fill((2, 0), 4.0))  # full: the oldest entry's buffer is reused
    assert c is b and set(cache.entries) == {(1, 0), (2, 0)}
    assert fills == [(1, 0), (1, 1), (1, 0), (2, 0)]
