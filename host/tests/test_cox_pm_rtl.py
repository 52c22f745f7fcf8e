"""CoX-PM through the FPGA path: the CoX-PM op programs give byte-identical answers on `rtl://`
(the RTL controller under Icarus, virtual dies on its ONFI pins, timing checked on every
edge) and on `sim://`, and the scheme accepts an rtl bench."""

from __future__ import annotations

from nandlab.onfi import Chip
from nandlab.onfi.address import ChipGeometry
from nandlab.onfi_spec import coxpm as fmt
from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.ops import Program
from nandlab.profiles import load_profile
from nandlab.schemes.cox_pm import CoxPmScan
from nandlab.sequences import core
from nandlab.sequences import coxpm as seq
from nandlab.transport.rtl import open_rtl
from nandlab.transport.sim import SimTransport


def _session() -> Program:
    """set_pattern (a good list, then a malformed one, then the good one again), the single,
    cache and last forms of read_when_matched on erased pages of a fresh die (what programming
    a page through the slow RTL bus would spare): all FFh is no codeword, so each is a
    decoding failure and its data out the sensed page."""
    prof = load_profile("tlc-coxpm")
    c, t, geo = prof.vendor.coxpm, sdr(0), ChipGeometry.from_profile(prof)
    assert c is not None
    good = fmt.pattern_bytes([b"needle", b"\xff" * 32])
    prog = Program().ce(0) + core.reset(t, 10**7)
    prog += seq.set_pattern(t, c, good, 10**7)
    prog += seq.set_pattern(t, c, b"\x09", 10**7)
    prog += seq.set_pattern(t, c, good, 10**7)
    prog += seq.read_when_matched(t, c, geo.row_bytes(5, 0), 10**7) + seq.outcome_data(t, 32)
    prog += seq.read_when_matched_cache(t, c, geo.row_bytes(5, 1), 10**7)
    prog += seq.read_when_matched_cache(t, c, geo.row_bytes(5, 2), 10**7)
    prog += seq.outcome_data(t, 16)
    return prog + seq.read_when_matched_last(t, c, 10**7) + seq.outcome_data(t, 16)


def test_cox_pm_programs_on_rtl_match_sim() -> None:
    rtl = open_rtl("rtl://tlc-coxpm?seed=3&sim=icarus")
    sim = SimTransport("tlc-coxpm", seed=3, persist=False)
    try:
        got, want = rtl.run(_session()), sim.run(_session())
        assert not got.errors and not want.errors
        data = [bytes(d) for d in got.data]
        assert data == [bytes(d) for d in want.data]
        statuses = [data[i][0] for i in (0, 1, 2, 3, 5, 6, 8)]
        assert [s & 1 for s in statuses[:3]] == [0, 1, 0]  # the malformed list FAILs
        outcomes = [fmt.outcome_of(s) for s in statuses[3:]]
        failure, none = fmt.Outcome.DECODING_FAILURE, fmt.Outcome.NOT_MATCHED
        assert outcomes == [failure, none, failure, failure]
        assert data[4] == b"\xff" * 32 and data[7] == data[9] == b"\xff" * 16
        assert CoxPmScan.unsupported(Chip(rtl)) is None
    finally:
        rtl.close()
        sim.close()
