"""Search-in-Memory through the FPGA path: the SiM op programs give byte-identical answers
on `rtl://` (the RTL controller under Verilator, virtual dies on its ONFI pins, timing
checked on every edge) and on `sim://`, and the scheme accepts an rtl bench."""

from __future__ import annotations

from nandlab.onfi import Chip
from nandlab.onfi.address import ChipGeometry
from nandlab.onfi_spec import search as fmt
from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.ops import Program
from nandlab.profiles import load_profile
from nandlab.schemes.sim_search import SimSearch
from nandlab.sequences import core
from nandlab.sequences import search as seq
from nandlab.transport.rtl import open_rtl
from nandlab.transport.sim import SimTransport


def _session() -> Program:
    """page-open, searches, page-open-cache / close and a gather on a page of a fresh die
    (erased: what programming a page through the slow RTL bus would spare)."""
    prof = load_profile("slc-search")
    s, t, geo = prof.vendor.search, sdr(0), ChipGeometry.from_profile(prof)
    assert s is not None
    row = geo.row_bytes(5, 0)
    prog = Program().ce(0) + core.reset(t, 10**7)
    prog += seq.page_open(t, s, row, fmt.SAMPLE_BYTES, 10**7)
    for key, mask, threshold in (
        (b"\xff" * 8, b"\xff" * 8, 0),
        (b"\x12" * 8, b"\x0f" * 8, 3),
        (b"\0" * 8, b"\0" * 8, 0),
    ):
        prog += seq.search(t, s, key, mask, threshold, 10**7)
    prog += seq.page_open_cache(t, s, geo.row_bytes(5, 1), 10**7)
    prog += seq.page_close(t, s, fmt.SAMPLE_BYTES)
    return prog + seq.gather(t, s, fmt.chunk_map([0, 9, 63]))


def test_sim_search_programs_on_rtl_match_sim() -> None:
    rtl = open_rtl("rtl://slc-search?seed=3&sim=verilator")
    sim = SimTransport("slc-search", seed=3, persist=False)
    try:
        got, want = rtl.run(_session()), sim.run(_session())
        assert not got.errors and not want.errors
        assert [bytes(d) for d in got.data] == [bytes(d) for d in want.data]
        # the mask-0 search matches every slot; the gather returns 3 chunks with their ECC
        data = [bytes(d) for d in got.data]
        assert data[3] == b"\xff" * fmt.BITMAP_BYTES
        assert len(data[-1]) == 3 * fmt.GATHER_UNIT
        assert SimSearch.unsupported(Chip(rtl)) is None
    finally:
        rtl.close()
        sim.close()
