"""Campaign loops handed to the firmware give the rows host-driven loops give.

Two virtual dies of the same profile and seed: one behind
`nandlab.transport.firmware_native.FirmwareBoard` (the firmware's C code, built for this
machine, runs the loop and sends its op programs to the die), one behind a
plain sim bench (the host runs the loop, op program by op program). The rows,
the wear and the die's data must come out the same.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from nandlab.bench import Bench
from nandlab.campaign.steps.onboard import (
    PATTERNS,
    Loop,
    disturb_loop_rows,
    hist_loop_rows,
    pe_loop_rows,
    sweep_loop_rows,
)
from nandlab.errors import RefusedOperation, UsageError
from nandlab.firmware.mailbox import Layout
from nandlab.onfi import Chip
from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.ops import pattern_bytes
from nandlab.profiles import load_profile
from nandlab.regs import REG
from nandlab.rtlsim.sim_env import TB_PROFILE
from nandlab.sequences import core
from nandlab.transport.firmware_native import LIB_NAME, FirmwareBoard
from nandlab.transport.sim import SimTransport

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
SEED, BLOCK = 5, 2


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> Path:
    build = tmp_path_factory.mktemp("fw-bridge")
    subprocess.run(["make", "-s", "-C", str(FIRMWARE), "host-lib", f"BUILD={build}"],
                   check=True, capture_output=True)
    return build / "host" / LIB_NAME


def _sim() -> SimTransport:
    return SimTransport(load_profile(TB_PROFILE), seed=SEED, dies=1, persist=False)


def _chip(bench: Bench) -> Chip:
    chip = Chip(bench.transport)
    chip.identify()
    return chip


def test_pe_loop_and_sweep_rows_match_host_driven(lib: Path) -> None:
    # a small ring: the loop takes several RUN_LOOP batches (64 // 7 = 9 cycles each)
    on_board = Bench(FirmwareBoard(_sim(), lib, Layout(ring_words=64)))
    host = Bench(_sim())
    assert on_board.has("firmware") and not host.has("firmware")
    board_chip, host_chip = _chip(on_board), _chip(host)
    geo = host_chip.geometry
    loop = Loop(ce=0, block=BLOCK, pages=2, page_bytes=geo.page_bytes,
                pattern=PATTERNS["prbs"], seed=11, chunk=32)
    cycles = 20
    got = pe_loop_rows(on_board, board_chip, loop, cycles)
    want = pe_loop_rows(host, host_chip, loop, cycles)
    assert got == want
    assert [r["cycle"] for r in got] == list(range(cycles))
    assert want[0]["erase_ns"] > 0 and want[0]["program_ns"] > 0
    beats = on_board.transport.native.read32(REG["MBX_HEARTBEAT"].offset)  # type: ignore[attr-defined]
    assert beats > cycles  # the firmware ran the loop: one beat per cycle at least
    # the chip layer counted the firmware's erases as it counts the host's
    assert board_chip.wear.take()[BLOCK].erases == host_chip.wear.take()[BLOCK].erases == cycles

    reference = host.transport.profile.read_offsets.slc_reference  # type: ignore[union-attr]
    offsets = range(0, 160, 40)  # DAC codes: the default read level up into the programmed state
    got_sweep = sweep_loop_rows(on_board, board_chip, loop, reference.feature, offsets)
    want_sweep = sweep_loop_rows(host, host_chip, loop, reference.feature, offsets)
    assert got_sweep == want_sweep
    assert [r["offset"] for r in got_sweep] == list(offsets)
    errors = [r["err_0to1"] + r["err_1to0"] for r in got_sweep]
    assert errors[0] < errors[-1], errors  # the sweep reaches into the programmed state
    # read disturb on a freshly cycled block of 4 pages: page 1 read again and again
    victim_loop = Loop(ce=0, block=BLOCK + 1, pages=4, page_bytes=geo.page_bytes,
                       pattern=PATTERNS["prbs"], seed=3, chunk=32)
    for bench, chip in ((on_board, board_chip), (host, host_chip)):
        pe_loop_rows(bench, chip, victim_loop, 1)
    got_disturb = disturb_loop_rows(on_board, board_chip, victim_loop, 1, 150, 3)
    want_disturb = disturb_loop_rows(host, host_chip, victim_loop, 1, 150, 3)
    assert got_disturb == want_disturb
    assert [(r["checkpoint"], r["reads"]) for r in got_disturb] == [(0, 150), (1, 300), (2, 450)]
    assert all(r["read_ns"] > 0 for r in got_disturb)
    # same die afterwards: a plain read of every page gives the same bytes
    for page in range(victim_loop.pages):
        assert board_chip.read_page(BLOCK + 1, page) == host_chip.read_page(BLOCK + 1, page)
    for page in range(loop.pages):
        assert board_chip.read_page(BLOCK, page) == host_chip.read_page(BLOCK, page)
    on_board.close()
    host.close()


def test_firmware_refuses_what_its_session_does_not_allow(lib: Path) -> None:
    """The role opens its own session for a P/E loop and closes it after: a bare
    RUN_LOOP afterwards is refused by the firmware, not by the host."""
    board = FirmwareBoard(_sim(), lib)
    bench = Bench(board)
    chip = _chip(bench)
    geo = chip.geometry
    loop = Loop(ce=0, block=BLOCK, pages=2, page_bytes=geo.page_bytes,
                pattern=PATTERNS["checker"], seed=1, chunk=32)
    assert len(pe_loop_rows(bench, chip, loop, 2)) == 2
    from nandlab.firmware import LoopDescriptor, LoopKind

    with pytest.raises(RefusedOperation, match="NOT_PERMITTED"):
        board.mailbox.run_loop(LoopDescriptor(kind=LoopKind.PE_CYCLE, **loop.params(chip, 1)))
    with pytest.raises(UsageError, match="no loop 'bake'"):
        bench.firmware.run_loop("bake", {})
    bench.close()


def test_pe_loop_step_in_a_campaign_rows_per_cycle(tmp_path: Path) -> None:
    """The campaign step on a bench without firmware: host-driven, one row per cycle, and
    the chip ledger's P/E count moves by the cycles run."""
    from nandlab.campaign.runner import run_campaign
    from nandlab.campaign.schema import Campaign

    def run(fresh: bool) -> list[dict]:
        campaign = Campaign.model_validate({
            "name": "pe", "bench": "sim://mlc-64l?seed=8", "fresh": fresh, "blocks": [30],
            "steps": [{"pe_loop": {"cycles": 3, "pages": 2}}]})
        return run_campaign(campaign, tmp_path / "runs").rows()

    first, second = run(True), run(False)
    rber = [r for r in first if r["operation"] == "rber"]
    assert [(r["chunk"], r["pec"]) for r in rber] == [(0, 1), (1, 2), (2, 3)]
    assert [r["pec"] for r in second if r["operation"] == "rber"] == [4, 5, 6]
    assert {r["bits"] for r in rber} == {2 * 8 * 16384}  # 2 pages of 16 KiB (the data area)
    erases = [r for r in first + second if r["operation"] == "erase"]
    assert len(erases) == 6 and all(r["latency_us"] > 0 for r in erases)
    programs = [r for r in first if r["operation"] == "program"]
    assert all(json.loads(r["detail"]) == {"pages": 2, "status_fails": 0} for r in programs)


def test_vth_histogram_on_board_equals_the_host_histogram(lib: Path) -> None:
    """The firmware's on-board histogram (vth_hist loop: per offset, the cells written 1 /
    written 0 that read 1) equals the host-driven loop's, and equals the histogram the
    host computes itself from raw page reads of a third die of the same seed (the
    hw/hls/vth_hist logic, here over the pattern's bits), offset by offset."""
    benches = [Bench(FirmwareBoard(_sim(), lib)), Bench(_sim()), Bench(_sim())]
    chips = [_chip(b) for b in benches]
    geo = chips[1].geometry
    loop = Loop(ce=0, block=BLOCK, pages=2, page_bytes=geo.page_bytes,
                pattern=PATTERNS["prbs"], seed=11, chunk=32)
    for bench, chip in zip(benches, chips, strict=True):
        pe_loop_rows(bench, chip, loop, 3)
    feature = benches[1].transport.profile.read_offsets.slc_reference.feature  # type: ignore[union-attr]
    offsets = range(-80, 160, 40)  # signed 8-bit DAC codes, as the sweep
    got = hist_loop_rows(benches[0], chips[0], loop, feature, offsets)
    want = hist_loop_rows(benches[1], chips[1], loop, feature, offsets)
    assert got == want
    # the host's own histogram from raw reads
    t, raw_chip = sdr(0), chips[2]
    written = np.frombuffer(pattern_bytes(loop.pattern, loop.seed, loop.page_bytes), np.uint8)
    raw_rows = []
    for offset in offsets:
        raw_chip.run(core.set_features(t, feature, bytes([offset & 0xFF, 0, 0, 0]),
                                       loop.timeout_ns), "offset")
        ones = zeros = 0
        for page in range(loop.pages):
            res = raw_chip.run(core.page_read(t, geo.full_address(BLOCK, page), loop.page_bytes,
                                              loop.timeout_ns), "raw read")
            read = np.frombuffer(res.data[0], np.uint8)
            ones += int(np.unpackbits(written & read).sum())
            zeros += int(np.unpackbits(~written & read).sum())
        raw_rows.append((offset, ones, zeros))
    assert [(r["offset"], r["ones_below"], r["zeros_below"]) for r in got] == raw_rows
    ones_total = int(np.unpackbits(written).sum()) * loop.pages
    # low offsets: the erased cells read 1, the programmed not; high: both read 1
    assert got[0]["ones_below"] > 0.99 * ones_total
    assert got[0]["zeros_below"] < got[-1]["zeros_below"]
    assert [r["zeros_below"] for r in got] == sorted(r["zeros_below"] for r in got)
    for b in benches:
        b.close()
