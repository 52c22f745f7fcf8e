"""The data-eye step: per-lane pass windows found by sweeping the capture delay.

The step is checked against a Protocol fake whose windows are given, and against
the virtual die's output model (vchip.pin_timing_ddr.DdrOutputModel) with a skew
injected on one lane, whose windows follow from the spec table: [tDQSQ, tQH]
after the DQS edge, moved by the skew. A bench without capture-delay control is
refused before the run starts."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from nandlab.boards import load_board
from nandlab.boards.model import Board
from nandlab.campaign.report import report
from nandlab.campaign.runner import start_run
from nandlab.campaign.steps.eye import windows
from nandlab.dataset.store import RunStore
from nandlab.errors import UsageError
from nandlab.onfi.results import data_records
from nandlab.onfi_spec.ddr_features import decode_timing_mode
from nandlab.onfi_spec.nvddr_timing import ddr
from nandlab.ops import Program
from nandlab.transport.roles import Roles
from nandlab.transport.sim import SimTransport
from nandlab.transport.url import parse_sim_url
from nandlab.vchip.die import VirtualDie
from nandlab.vchip.pin_timing_ddr import DdrOutputModel

TAPS, TAP_PS, LANES = 96, 25.0, 2  # 2.4 ns of taps: past NV-DDR2 mode 7's tQH + skew

CAMPAIGN = """\
name: eye
bench: sim://tlc-48l?seed=1
seed: 1
blocks: [10]
steps:
  - cycle: {pec: 1}
  - program: {wls: 0, mode: slc}
  - eye: {wl: 0, bytes: 512, modes: [{interface: nv-ddr3, mode: 8}, {interface: nv-ddr2, mode: 7}]}
"""


def selected(die: VirtualDie) -> tuple[str, int] | None:
    """(interface, mode) the die's feature 01h holds."""
    return decode_timing_mode(die.feature(0x01)[0])


def popcount(a: bytes, b: bytes) -> int:
    x = np.frombuffer(a, np.uint8) ^ np.frombuffer(b, np.uint8)
    return int(np.unpackbits(x).sum())


class EyeBase:
    """What both scanners share: taps per lane, and one DATA record per program."""

    lanes, taps, tap_ps = LANES, TAPS, TAP_PS

    def __init__(self, bench: SimTransport) -> None:
        self.bench = bench
        self.tap = [0] * LANES
        self.programs = 0

    def set_capture_delay(self, lane: int, tap: int) -> None:
        assert 0 <= tap < TAPS
        self.tap[lane] = tap

    def read(self, program: Program) -> bytes:
        self.programs += 1
        (data,) = data_records(self.bench.run(program))
        return data


class WindowFake(EyeBase):
    """Protocol fake: lane l reads right exactly at taps `good[l]`, else 3 bits per byte wrong."""

    good = (range(10, 31), range(20, 46))

    def lane_bit_errors(self, program: Program, expected: bytes) -> tuple[int, ...]:
        data = self.read(program)
        return tuple(
            popcount(data[lane::LANES], expected[lane::LANES])
            + (0 if self.tap[lane] in self.good[lane] else 3 * len(data[lane::LANES]))
            for lane in range(LANES)
        )


class DieModelEye(EyeBase):
    """The die's output model with `skew_ps` per lane: a capture before the lane's window reads
    the byte before, one after it the byte after (what a real DDR capture does)."""

    skew_ps = (0, 300)

    def lane_bit_errors(self, program: Program, expected: bytes) -> tuple[int, ...]:
        data = self.read(program)
        iface, mode = selected(self.bench.dies[0])
        model = DdrOutputModel(ddr(iface, mode), self.skew_ps)
        got = bytearray(data)
        for lane in range(LANES):
            delay = self.tap[lane] * TAP_PS
            if model.capture_ok(lane, round(delay)):
                continue
            early = delay - self.skew_ps[lane] < model.timing.tDQSQ
            for i in range(lane, len(data), LANES):
                j = i - 1 if early else i + 1
                got[i] = data[j] if 0 <= j < len(data) else 0xFF
        return tuple(popcount(got[lane::LANES], expected[lane::LANES]) for lane in range(LANES))


def bench_with(scanner: type[EyeBase], board: Board | None = None
               ) -> Callable[[str], SimTransport]:
    """A sim bench with the eye role (and the board file `board`, as an FPGA bench names one)."""

    class SimWithEye(SimTransport):
        def __init__(self, url: str) -> None:
            o = parse_sim_url(url)
            super().__init__(o.profile, seed=o.seed, url=url)
            self.scanner = scanner(self)
            self.board = board

        @property
        def roles(self) -> Roles:
            return Roles(**{**super().roles.__dict__, "eye": self.scanner})

    return SimWithEye


def run_rows(tmp_path: Path, opener: Callable[[str], SimTransport] | None,
             campaign: str = CAMPAIGN) -> list[dict[str, Any]]:
    (tmp_path / "eye.yaml").write_text(campaign)
    kw = {} if opener is None else {"opener": opener}
    result = start_run(tmp_path / "eye.yaml", tmp_path / "runs", run_id="e", **kw)
    assert result.status == "complete"
    store = RunStore(tmp_path / "runs" / "e")
    try:
        return [r for r in store.rows() if str(r.get("operation", "")).startswith("eye")]
    finally:
        store.close()


def test_windows_takes_the_longest_run_at_the_floor() -> None:
    assert windows([5, 0, 0, 3, 0, 0, 0, 4]) == (4, 6, 0)
    assert windows([2, 2, 2]) == (0, 2, 2)
    assert windows([]) is None


def test_windows_of_the_protocol_fake(tmp_path: Path) -> None:
    rows = run_rows(tmp_path, bench_with(WindowFake))
    wins = [r for r in rows if r["operation"] == "eye_window"]
    assert [(r["interface"], r["timing_mode"], r["lane"]) for r in wins] == [
        ("nv-ddr3", 8, 0), ("nv-ddr3", 8, 1), ("nv-ddr2", 7, 0), ("nv-ddr2", 7, 1)]
    for r in wins:
        good = WindowFake.good[r["lane"]]
        assert (r["window_start_ps"], r["window_end_ps"]) == (good[0] * TAP_PS, good[-1] * TAP_PS)
        assert r["bits"] == 8 * 256
    scans = [r for r in rows if r["operation"] == "eye_scan"]
    for r in wins:  # the floor is the array's own errors, common to every passing tap
        lane = [s for s in scans if (s["interface"], s["lane"]) == (r["interface"], r["lane"])]
        assert r["bit_errors"] == min(s["bit_errors"] for s in lane) < 3 * 256
    assert len(scans) == 2 * LANES * TAPS
    assert {r["data_rate_mts"] for r in rows} == {533.0, 400.0}


def test_windows_of_the_die_model_with_a_skewed_lane(tmp_path: Path) -> None:
    rows = run_rows(tmp_path, bench_with(DieModelEye))
    for r in (r for r in rows if r["operation"] == "eye_window"):
        t = ddr(r["interface"], r["timing_mode"])
        skew = DieModelEye.skew_ps[r["lane"]]
        first = -(-(t.tDQSQ + skew) // int(TAP_PS))  # first tap inside [tDQSQ, tQH] + skew
        last = (t.tQH + skew) // int(TAP_PS)
        assert (r["window_start_ps"], r["window_end_ps"]) == (first * TAP_PS, last * TAP_PS), r
        assert r["window_ps"] == pytest.approx((last - first) * TAP_PS)
    ddr3 = [r["window_ps"] for r in rows if r["operation"] == "eye_window"
            and r["interface"] == "nv-ddr3"]
    ddr2 = [r["window_ps"] for r in rows if r["operation"] == "eye_window"
            and r["interface"] == "nv-ddr2"]
    assert max(ddr3) < min(ddr2)  # the faster mode leaves the narrower eye
    summary, plots = report(tmp_path / "runs" / "e")
    text = summary.read_text()
    assert "## Data eye" in text and "| nv-ddr3 mode 8 | 533 | 10 | 1 | 600 - 1675 | 1075 |" in text
    assert any(p.name == "data_eye.png" and p.stat().st_size > 10_000 for p in plots)


def test_without_modes_the_fastest_shared_interface_is_scanned(tmp_path: Path) -> None:
    campaign = CAMPAIGN.split("  - eye:")[0] + "  - eye: {wl: 0, bytes: 256, tap_step: 8}\n"
    rows = run_rows(tmp_path, bench_with(WindowFake), campaign)
    assert {(r["interface"], r["timing_mode"]) for r in rows} == {("nv-ddr3", 8)}
    assert sorted({r["capture_tap"] for r in rows if r["operation"] == "eye_scan"}) == list(
        range(0, TAPS, 8))


def test_the_benchs_board_file_bounds_the_scan_and_sets_its_warmup(tmp_path: Path) -> None:
    """A bench naming the 1.8 V KCU105 board (NV-DDR2 only) with warm-up: the step without
    modes scans NV-DDR2 mode 7, not the part's NV-DDR3 mode 8, and the die took the board's
    warm-up (feature 02h P2: input 2 cycles = code 2 in bits 7:4, output 1 cycle = code 1)."""
    data = load_board("kcu105-fmc-nand").model_dump()
    data["interfaces"].update(warmup_out_cycles=1, warmup_in_cycles=2)
    benches: list[SimTransport] = []

    def opener(url: str) -> SimTransport:
        benches.append(bench_with(WindowFake, Board.model_validate(data))(url))
        return benches[-1]

    campaign = CAMPAIGN.split("  - eye:")[0] + "  - eye: {wl: 0, bytes: 256, tap_step: 16}\n"
    rows = run_rows(tmp_path, opener, campaign)
    assert {(r["interface"], r["timing_mode"]) for r in rows} == {("nv-ddr2", 7)}
    assert benches[-1].dies[0].feature(0x02)[1] == 0x21


def test_a_toggle_part_is_scanned_at_its_speed_grades(tmp_path: Path) -> None:
    campaign = CAMPAIGN.replace("sim://tlc-48l?", "sim://tlc-48l-toggle?").split("  - eye:")[0]
    campaign += ("  - eye: {wl: 0, bytes: 256, tap_step: 16, modes: [{interface: toggle2, mode: 7},"
                 " {interface: toggle2, mode: 4}]}\n")
    rows = run_rows(tmp_path, bench_with(WindowFake), campaign)
    wins = [r for r in rows if r["operation"] == "eye_window"]
    assert [(r["interface"], r["timing_mode"], r["data_rate_mts"]) for r in wins] == [
        ("toggle2", 7, 400.0)] * LANES + [("toggle2", 4, 200.0)] * LANES
    for r in wins:  # the scanned taps (every 16th) inside the lane's good range
        passing = [t for t in range(0, TAPS, 16) if t in WindowFake.good[r["lane"]]]
        assert (r["window_start_ps"], r["window_end_ps"]) == (passing[0] * TAP_PS,
                                                              passing[-1] * TAP_PS)


def test_a_bench_without_capture_delay_control_is_refused_before_the_run(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="has no capture-delay control"):
        run_rows(tmp_path, None)
