"""READ PARAMETER PAGE is busy for at most the tR the page itself declares (ONFI bounds
it by tR): after the first identification the host times its waits from that page, so a
part whose declared tR is short (slc-search 16 us, the RTL test die ~1 us) must still
answer a second identification."""

from __future__ import annotations

from pathlib import Path

import pytest

import nandlab.rtlsim
from nandlab.onfi.chip import Chip
from nandlab.onfi.results import busy_steps
from nandlab.profiles import builtin_names
from nandlab.sequences import core
from nandlab.transport import open_bench

TINY = Path(nandlab.rtlsim.__file__).parent / "slc-tb-tiny.yaml"


@pytest.mark.parametrize("profile", [*builtin_names(), str(TINY)])
def test_parameter_page_busy_stays_within_the_declared_tR(profile: str) -> None:
    chip = Chip(open_bench(f"sim://{profile}?seed=1"))
    first = chip.identify()
    assert chip.identify() == first  # the second one waits with the page's own tR
    declared_ns = first.fields["t_r_us"] * 1000
    results = chip.run(
        core.read_parameter_page(chip.sdr, 256, 10 * declared_ns), "READ PARAMETER PAGE"
    )
    (busy,) = busy_steps(results)
    assert 0 < busy <= declared_ns
