"""`rtl://<profile>?firmware=<elf>`: the firmware-in-the-loop harness opened by URL.

The chip layer and the campaign hand-off run on it unchanged: the host's own
programs go through the firmware's RUN_PROGRAM, loops through its `firmware`
role, and the rows equal those of host-driven loops on a sim:// die of the
same profile and seed (busy times within three clocks a wait: the RTL counts
whole clocks and sees R/B# through two flops). The URL's ELF is a build of its
own version (minor 0x7F): the bench boots the checkout's firmware and loads it
through the mailbox, so everything below runs on the loaded image.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from nandlab.bench import Bench
from nandlab.campaign.steps.onboard import (
    PATTERNS,
    Loop,
    hist_loop_rows,
    pe_loop_rows,
    sweep_loop_rows,
)
from nandlab.onfi import Chip
from nandlab.profiles import load_profile
from nandlab.rtlsim.sim_env import TB_PROFILE
from nandlab.transport.sim import SimTransport

FIRMWARE = Path(__file__).resolve().parents[1]
SEED, BLOCK = 4, 2
CLK_NS = 10
LOADED_MINOR = 0x7F


def test_firmware_bench_by_url(tmp_path: Path) -> None:
    subprocess.run(["make", "-s", "-C", str(FIRMWARE), "all", f"BUILD={tmp_path}",
                    f"FW_CFLAGS=-DFW_VERSION_MINOR={LOADED_MINOR}u"],
                   check=True, capture_output=True)
    url = f"rtl://?profile={TB_PROFILE}&seed={SEED}&firmware={tmp_path / 'nandlab.elf'}"
    with Bench.open(url) as board, Bench(SimTransport(load_profile(TB_PROFILE), seed=SEED,
                                                      dies=1, persist=False)) as host:
        assert board.has("firmware") and not host.has("firmware")
        assert board.transport.describe()["firmware"] == (1, 0, LOADED_MINOR)  # LOAD ran
        chips = []
        for bench in (board, host):
            chip = Chip(bench.transport)
            chip.identify()  # READ ID and the parameter page through RUN_PROGRAM on the board
            chips.append(chip)
        geo = chips[1].geometry
        loop = Loop(ce=0, block=BLOCK, pages=2, page_bytes=geo.page_bytes,
                    pattern=PATTERNS["prbs"], seed=7, chunk=32)
        got, want = (pe_loop_rows(b, c, loop, 2) for b, c in zip((board, host), chips, strict=True))
        assert len(got) == len(want) == 2
        for g, w in zip(got, want, strict=True):
            assert {k: g[k] for k in ("cycle", "status_fails", "err_0to1", "err_1to0")} == \
                {k: w[k] for k in ("cycle", "status_fails", "err_0to1", "err_1to0")}
            assert abs(g["erase_ns"] - w["erase_ns"]) <= 3 * CLK_NS
            assert abs(g["program_ns"] - w["program_ns"]) <= 3 * CLK_NS * loop.pages
        feature = load_profile(TB_PROFILE).read_offsets.slc_reference.feature
        offsets = range(0, 160, 40)
        got_s, want_s = (sweep_loop_rows(b, c, loop, feature, offsets)
                         for b, c in zip((board, host), chips, strict=True))
        assert [(r["offset"], r["err_0to1"], r["err_1to0"]) for r in got_s] == \
            [(r["offset"], r["err_0to1"], r["err_1to0"]) for r in want_s]
        # the Vth histogram on PicoRV32 (CHANGE READ COLUMN and the inverted compare
        # through the real sequencer and comparator) against the host-driven one
        got_h, want_h = (hist_loop_rows(b, c, loop, feature, offsets)
                         for b, c in zip((board, host), chips, strict=True))
        assert [(r["offset"], r["ones_below"], r["zeros_below"]) for r in got_h] == \
            [(r["offset"], r["ones_below"], r["zeros_below"]) for r in want_h]
        assert want_h[0]["zeros_below"] < want_h[-1]["zeros_below"]
        # the host's own page read through the firmware: the same bytes as on sim://
        assert chips[0].read_page(BLOCK, 0).data == chips[1].read_page(BLOCK, 0).data
