"""`rtl://` with a Toggle (JEDEC) die: identification, Toggle negotiation, ID and page data.

One Icarus simulation of nandlab_ctrl (100 MHz) with the tiny test die made a
Toggle part (identity standard jedec, Toggle grades 0-7, no NV-DDR2 / NV-DDR3):
the chip layer identifies it through the JEDEC page at ECh / 40h, negotiates
Toggle grade 7 (TIMING with interface TOGGLE, verified by READ ID 40h read back
at that rate), then reads the ID and the JEDEC page over DQS bursts, erases,
programs and reads a page; every result is compared with `sim://` on a die of
the same profile and seed, and the pin checker runs the Toggle grade's rules.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from nandlab.onfi import Chip
from nandlab.ops import Pattern, pattern_bytes
from nandlab.rtlsim.programs import Programs, compare
from nandlab.rtlsim.sim_env import TB_PROFILE
from nandlab.transport.rtl import RtlTransport, open_rtl
from nandlab.transport.sim import SimTransport

SEED = 9


@pytest.fixture(scope="module")
def benches(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RtlTransport, SimTransport]]:
    doc = yaml.safe_load(TB_PROFILE.read_text())
    doc["name"] = "slc-tb-tiny-toggle"
    doc["identity"]["standard"] = "jedec"
    doc["interfaces"] = {"toggle_modes": list(range(8)), "differential_re": True,
                         "differential_dqs": True, "source": "test die: every Toggle grade"}
    profile: Path = tmp_path_factory.mktemp("toggle") / "slc-tb-tiny-toggle.yaml"
    profile.write_text(yaml.safe_dump(doc))
    rtl = open_rtl(f"rtl://?profile={profile}&seed={SEED}&sim=icarus")
    sim = SimTransport(str(profile), seed=SEED, persist=False)
    try:
        yield rtl, sim
    finally:
        rtl.close()
        sim.close()


def test_toggle_part_on_rtl_runs_like_sim(benches: tuple[RtlTransport, SimTransport]) -> None:
    rtl, sim = benches
    chips = [Chip(bench) for bench in (rtl, sim)]
    idents = [chip.identify() for chip in chips]
    assert idents[0].parameter_page == idents[1].parameter_page
    assert idents[0].fields["standard"] == "jedec"
    chosen = [chip.negotiate_interface() for chip in chips]
    assert [(c.interface, c.mode) for c in chosen] == [("toggle2", 7)] * 2, chosen
    progs = Programs(rtl.profile)
    progs.mode = 5  # the SDR figures of DDR programs' delays (programs.set_interface)
    n = progs.page_bytes
    data = pattern_bytes(Pattern.prbs(), 4, n)
    for name, program in (
        ("read id 40h", progs.read_id(0x40, 5)),
        ("read id 00h", progs.read_id(0x00, 6)),
        ("erase", progs.erase(3)),
        ("program", progs.program_page(3, 1, data)),
        ("read", progs.read_page(3, 1)),
    ):
        got, want = rtl.run(program), sim.run(program)
        problems = compare(got, want, rtl.clock_period_ns)
        assert not problems, f"{name}: " + "; ".join(problems)
    assert rtl.run(progs.read_page(3, 1)).data[0] == data
