"""The sim bench's whole-op bus path (`VirtualDie.run_bus`) against one call per instruction.

A script of every op kind the Chip API issues (identify, features and timing, erase,
program with the blank check, read, read with offsets, soft-bit read, SLC program and
read, cache and multi-plane forms, copyback, MWS in test mode) runs on two benches of
the same seed, one per path, over two dies; every result, the bench clock, each die's
clock, R/B# time and power log must agree. Raw programs add what the Chip API does not
send: a WAIT_RDY timeout, a POWER window and MARKs around bus instructions, a bus
instruction before any CE.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from nandlab.onfi import Chip
from nandlab.onfi.testmode import TestMode
from nandlab.ops import ErrorCode, ErrorRecord, Program, Results
from nandlab.transport import SimTransport

PROFILE = "tlc-48l"  # MWS, soft-bit read, SLC mode, cache and multi-plane forms


@pytest.fixture(autouse=True)
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path))
    return tmp_path


def _bench(whole_op: bool) -> SimTransport:
    bench = SimTransport(PROFILE, seed=3, dies=2, fresh=True, persist=False)
    bench.whole_op = whole_op
    return bench


@pytest.fixture
def benches() -> Iterator[tuple[SimTransport, SimTransport]]:
    with _bench(True) as whole, _bench(False) as single:
        yield whole, single


def _script(bench: SimTransport) -> list[Any]:
    """Every op kind through the public API on both dies; what each returned."""
    rng = np.random.default_rng(7)
    seen: list[Any] = []
    for ce in (1, 0):
        chip = Chip(bench, ce)
        chip.identify()
        geo = chip.geometry
        n = geo.total_bytes
        chip.set_timing_mode(4)
        seen.append(chip.get_feature(0x01))
        data = [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for _ in range(8)]
        b0, b1 = 2, 3  # planes 0 and 1
        seen += [chip.erase_block(b0), chip.erase_block(b1)]
        for page in range(3):
            seen.append(chip.program_page(b0, page, data[page]))
        seen += [chip.read_page(b0, page) for page in range(3)]
        seen.append(chip.read_page(b0, 1, column=100, length=17))
        chip.set_read_offset_code(0, -3)
        seen.append(chip.read_page(b0, 0))
        chip.set_read_offset_code(0, 0)
        seen.append(chip.soft_bit_read(b0, 1, 4))
        seen.append(chip.program_page(b1, 0, data[3], slc=True))
        seen.append(chip.read_page(b1, 0, slc=True))
        seen.append(chip.program_cache(b0, 3, data[4:7]))
        seen.append(chip.read_cache_sequential(b0, 3, 3))
        seen.append(chip.erase_multiplane([4, 5]))
        seen.append(chip.program_multiplane([4, 5], 0, data[:2]))
        seen.append(chip.read_multiplane([4, 5], 0))
        seen.append(chip.copyback(b0, 0, 4, 1))
        tm = TestMode(chip, allow_test_mode=True)
        seen.append(tm.mws([(b1, [0])]))
        seen += [chip.status(), chip.status_enhanced(b1)]
    return seen


def _die_state(bench: SimTransport) -> list[Any]:
    """Each die's clock, R/B#, power phases logged, energy and supply current (10 ns means)."""
    out: list[Any] = [bench.now_ns]
    for die in bench.dies:
        out += [die.now_ns, die.busy_until_ns, die.last_busy_ns, len(die.power)]
        out += [die.energy_nJ(0, bench.now_ns), die.current_trace(0, bench.now_ns, 10).tobytes()]
    return out


def test_api_script_same_on_both_paths(
    benches: tuple[SimTransport, SimTransport], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole, single = benches
    # each run scans for bad blocks itself: a bad-block table saved by the other would
    # spare it the scan's reads (their read disturb shows in the data)
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path / "whole"))
    seen_whole = _script(whole)
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path / "single"))
    seen_single = _script(single)
    assert seen_whole == seen_single
    assert _die_state(whole) == _die_state(single)


def _raw(bench: SimTransport) -> list[Results]:
    row = (4 << 8).to_bytes(3, "little")  # block 4 (the erase's block address)
    return [
        bench.run(Program().cmd(0x70)),  # no CE: ERROR NO_TARGET on both paths
        bench.run(
            Program().ce(0).mark(1).power_start(500).cmd(0x60).addr(row).cmd(0xD0)
            .delay(100).wait_rdy(1_000_000_000).mark(2).cmd(0x70).dout(1).power_stop()
        ),
        # tBERS is far longer than 1 us: the WAIT_RDY times out, nothing after it runs
        bench.run(Program().ce(0).cmd(0x60).addr(row).cmd(0xD0).wait_rdy(1000).cmd(0x70)),
        bench.run(Program().ce(1).cmd(0xFF).wait_rdy(1_000_000_000).ce(0).cmd(0x70).dout(2)),
    ]


def test_raw_programs_same_on_both_paths(benches: tuple[SimTransport, SimTransport]) -> None:
    whole, single = benches
    got, want = _raw(whole), _raw(single)
    assert got == want
    assert got[0][0] == ErrorRecord(ErrorCode.NO_TARGET, 0)
    assert got[2][-2] == ErrorRecord(ErrorCode.TIMEOUT, 4)
    assert got[1].power and got[1].power[0].samples_uA
    assert _die_state(whole) == _die_state(single)


def test_whole_op_path_differs_only_in_calls(benches: tuple[SimTransport, SimTransport]) -> None:
    """The comparison would see a clock difference: one extra delay on one path shows."""
    whole, single = benches
    whole.run(Program().ce(0).cmd(0x70).delay(1).dout(1))
    single.run(Program().ce(0).cmd(0x70).dout(1))
    assert _die_state(whole) != _die_state(single)
