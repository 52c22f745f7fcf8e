"""Warm-up cycles end to end on `rtl://`: a board file that asks for them, negotiation,
the RTL PHY's extra strobe cycles and the virtual die that expects them on its pins.

The tiny test die takes up to 4 warm-up cycles each way (parameter page byte 159
= 33h). A board asking 2 cycles before data out and 4 before data in makes
negotiation write feature 02h P2 = 32h and tell the bench (TIMING); every DDR
burst then opens with 4 (out) or 8 (in) edges that carry no data. The die on the
pins drops those edges and its checker (strict: a violation fails the program)
wants SET FEATURES' burst to carry them, so ID, features, the parameter page and a
page written and read back only match `sim://` if the PHY sends exactly the
warm-up the die was configured with. The return to SDR is a SET FEATURES in
NV-DDR3 with warm-up and repeated bytes.
"""

from __future__ import annotations

from nandlab.boards.model import BoardInterfaces
from nandlab.onfi import Chip
from nandlab.onfi.interface import board_modes
from nandlab.ops import Pattern, pattern_bytes
from nandlab.rtlsim.programs import Programs, compare
from nandlab.rtlsim.sim_env import TB_PROFILE as PROFILE
from nandlab.transport.rtl import open_rtl
from nandlab.transport.sim import SimTransport

SEED = 9
BOARD = BoardInterfaces(sdr_modes=[0, 1, 2, 3, 4, 5], nv_ddr3_modes=list(range(11)),
                        warmup_out_cycles=2, warmup_in_cycles=4)


def test_warm_up_cycles_run_end_to_end() -> None:
    rtl = open_rtl(f"rtl://?profile={PROFILE}&seed={SEED}&sim=icarus")
    sim = SimTransport(str(PROFILE), seed=SEED, persist=False)
    try:
        chips = [Chip(bench) for bench in (rtl, sim)]
        got = [chip.negotiate_interface(board_modes(BOARD)) for chip in chips]
        for g in got:
            assert (g.interface, g.mode) == ("nv-ddr3", 10), g.reason
            assert g.config is not None
            assert (g.config.warmup_out, g.config.warmup_in) == (2, 3)  # 2 and 4 cycles
        assert chips[0].get_feature(0x02) == bytes([0x06, 0x32, 0, 0])
        progs = Programs(rtl.profile)
        progs.mode = 5  # the SDR figures of DDR programs' delays (programs.set_interface)
        data = pattern_bytes(Pattern.prbs(), 5, progs.page_bytes)
        for name, program in (
            ("read id 20h", progs.read_id(0x20, 4)),
            ("parameter page", progs.parameter_page(256)),
            ("erase", progs.erase(3)),
            ("program", progs.program_page(3, 2, data)),
            ("read", progs.read_page(3, 2)),
        ):
            problems = compare(rtl.run(program), sim.run(program), rtl.clock_period_ns)
            assert not problems, f"{name}: " + "; ".join(problems)
        assert rtl.run(progs.read_page(3, 2)).data[0] == data
        chips[0].set_timing_mode(0)  # SET FEATURES 01h in NV-DDR3: warm-up + repeated bytes
        assert chips[0].read_id(0x20, 4) == b"ONFI"
    finally:
        rtl.close()
        sim.close()
