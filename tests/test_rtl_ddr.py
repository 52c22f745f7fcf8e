"""`rtl://` in the DDR interfaces: op programs select them end to end, the eye role scans.

One Icarus simulation of nandlab_ctrl (100 MHz) with the tiny test die: the
chip layer negotiates the fastest interface the die and the bench offer
(NV-DDR3, SET FEATURES 01h / 02h then TIMING, read back), reads the ID and
the parameter page over DQS bursts, programs and reads a page, each compared
with `sim://` on a die of the same profile and seed; then the bench's `eye`
role sweeps the DQS capture delay on a parameter page read: the taps that
read it without a bit error are one window inside the die's output window
(tDQSQ..tQH after its DQS edge), and the taps outside it read bit errors.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from nandlab.onfi import Chip
from nandlab.onfi_spec.nvddr_timing import ddr
from nandlab.ops import Pattern, pattern_bytes
from nandlab.rtlsim.eye import widest_window
from nandlab.rtlsim.programs import Programs, compare
from nandlab.rtlsim.sim_env import TB_PROFILE as PROFILE
from nandlab.transport.rtl import RtlTransport, open_rtl
from nandlab.transport.sim import SimTransport

SEED = 9
SCAN_STEP = 32


@pytest.fixture(scope="module")
def benches() -> Iterator[tuple[RtlTransport, SimTransport]]:
    rtl = open_rtl(f"rtl://?profile={PROFILE}&seed={SEED}&sim=icarus")
    sim = SimTransport(str(PROFILE), seed=SEED, persist=False)
    try:
        yield rtl, sim
    finally:
        rtl.close()
        sim.close()


def test_negotiated_ddr_runs_like_sim(benches: tuple[RtlTransport, SimTransport]) -> None:
    rtl, sim = benches
    chips = [Chip(bench) for bench in (rtl, sim)]
    chosen = [chip.negotiate_interface() for chip in chips]
    assert chosen[0].interface == chosen[1].interface == "nv-ddr3", chosen
    assert chosen[0].mode == chosen[1].mode == 10
    progs = Programs(rtl.profile)
    progs.mode = 5  # the SDR figures of DDR programs' delays (programs.set_interface)
    n = progs.page_bytes
    data = pattern_bytes(Pattern.prbs(), 4, n)
    for name, program in (
        ("read id 20h", progs.read_id(0x20, 4)),
        ("parameter page", progs.parameter_page(256)),
        ("erase", progs.erase(3)),
        ("program", progs.program_page(3, 1, data)),
        ("read", progs.read_page(3, 1)),
    ):
        got, want = rtl.run(program), sim.run(program)
        problems = compare(got, want, rtl.clock_period_ns)
        assert not problems, f"{name}: " + "; ".join(problems)
    assert rtl.run(progs.read_page(3, 1)).data[0] == data


def test_eye_role_finds_the_die_window(benches: tuple[RtlTransport, SimTransport]) -> None:
    rtl, sim = benches
    eye = rtl.roles.eye
    assert eye is not None and eye.lanes == 1
    progs = Programs(rtl.profile)
    read = progs.parameter_page(32)
    expected = sim.run(read).data[0]
    taps = list(range(0, eye.taps, SCAN_STEP))
    errors = []
    for tap in taps:
        eye.set_capture_delay(0, tap)
        errors.append(eye.lane_bit_errors(read, expected)[0])
    window = widest_window(taps, [e == 0 for e in errors])
    t = ddr("nv-ddr3", 10)
    lo, hi = t.tDQSQ / eye.tap_ps, t.tQH / eye.tap_ps
    assert window is not None and lo <= window[0] and window[1] <= hi + 1, (window, lo, hi)
    assert errors[0] > 0 and errors[-1] > 0, errors
