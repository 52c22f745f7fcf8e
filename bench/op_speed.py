"""Op-by-op speed of the virtual chips: the die's own busy time over CPU and wall time.

For every built-in profile, through the public API (`nandlab.onfi.Chip` on a fresh
`sim://` bench), runs each operation a few times and prints, per op, the busy time
the die reports for it (tR, tPROG, tBERS, tMWS: R/B# low, never bus transfers and
never fast-forwarded wear) divided by the CPU time and by the wall time the host
spent on the whole call (blank check, op program, dispatch, physics). Higher is
better; goal >= 10 (MWS >= 1). An operation the profile lacks prints "n/a".

Ops: page program (default: with the blank check), page read, read with offsets
(every reference moved by -3 DAC steps), soft-bit read (delta 4 steps), block
erase, and on profiles with MWS the Flash-Cosmos sensing of 1 WL of one block and
of one WL in each of 4 blocks, the blocks fully programmed in SLC mode: each WL set
sensed 3 times in a row, as a strobe search does (mws_1wl, mws_4blk), and every
sensing on a WL set not sensed before (mws_4blk_new).

For the reads and MWS it also prints the memory floor of what they must touch: per
sensing (a WL at one reference; one selected WL of an MWS), one pass over the WL's
cells reading their int16 Vth, int8 personality and int16 RTN value and packing one
bit each (bench/sense_floor.py), timed in this run, times the sensings the op did
(one per read reference of the page type; a soft-bit read senses each twice), and
cpu / floor: what the whole call costs over that floor (Python op path, die state
machine, the full physics of every cell: retention, disturb, RTN). Goal for a read
that cannot reach 10x: cpu / floor <= 1.5. The last lines say, per read op, the CPU
a 10x op would have against the floor of its sensings alone.

--paths both measures every profile twice in the same run, first with one bus call per
instruction (`SimTransport.whole_op = False`, "single"), then with the whole-op bus path
(each run of bus instructions handed to the die in one call, "whole", the default).

    .venv/bin/python bench/op_speed.py [--profiles a,b] [--pages N] [--paths whole|single|both]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from nandlab.onfi import Chip
from nandlab.onfi.testmode import TestMode
from nandlab.profiles import builtin_names, load_profile
from nandlab.transport import SimTransport, open_bench
from sense_floor import touch_floor_us

GOALS = {"mws_1wl": 1.0, "mws_4blk": 1.0, "mws_4blk_new": 1.0}


@dataclass
class Figure:
    """Sums over the calls of one op; `sensings` of the cell array they did (reads)."""

    busy_s: float = 0.0
    cpu_s: float = 0.0
    wall_s: float = 0.0
    sensings: int = 0

    def add(self, op: Callable[[], int]) -> None:
        c0, w0 = time.process_time(), time.perf_counter()
        busy_ns = op()
        self.cpu_s += time.process_time() - c0
        self.wall_s += time.perf_counter() - w0
        self.busy_s += busy_ns * 1e-9


def good_blocks(chip: Chip, count: int, plane: int | None = None) -> list[int]:
    """The first `count` blocks without the factory marker (on `plane` if given)."""
    geo = chip.geometry
    out = []
    for b in range(geo.blocks):
        if (plane is None or geo.plane_of(b) == plane) and not chip.is_bad_block(b):
            out.append(b)
            if len(out) == count:
                return out
    raise RuntimeError("not enough good blocks")


def warm_up(chip: Chip, block: int, datas: list[bytes]) -> None:
    """Every op once on a scratch block, untimed: loads the compiled kernels and draws the
    die's read-noise table (once per process / die, not per operation)."""
    chip.erase_block(block)
    for p in range(chip.geometry.bits_per_cell + 1):
        chip.program_page(block, p, datas[p])
        chip.read_page(block, p)
        if chip.profile.vendor.soft_bit_read is not None:
            chip.soft_bit_read(block, p, 4)
    chip.erase_block(block)


def measure(profile: str, pages: int, whole_op: bool) -> dict[str, Figure | None]:
    rng = np.random.default_rng(1)
    figs: dict[str, Figure | None] = {}
    with open_bench(f"sim://{profile}?seed=1&fresh=1") as bench:
        assert isinstance(bench, SimTransport)
        bench.whole_op = whole_op
        chip = Chip(bench)
        chip.identify()
        geo = chip.geometry
        n = geo.total_bytes
        block, scratch = good_blocks(chip, 2)
        pages = min(pages, geo.pages_per_block)
        datas = [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for _ in range(pages)]
        warm_up(chip, scratch, datas)
        chip.erase_block(block)
        program = figs["program"] = Figure()
        for p in range(pages):
            program.add(lambda p=p: chip.program_page(block, p, datas[p]).busy_ns)
        senses = [len(chip.profile.page_refs[p % geo.bits_per_cell]) for p in range(pages)]
        read = figs["read"] = Figure(sensings=sum(senses))
        for p in range(pages):
            read.add(lambda p=p: chip.read_page(block, p).busy_ns)
        refs = len(chip.profile.read_offsets.references)
        for r in range(refs):
            chip.set_read_offset_code(r, -3)
        offset = figs["read_offsets"] = Figure(sensings=sum(senses))
        for p in range(pages):
            offset.add(lambda p=p: chip.read_page(block, p).busy_ns)
        for r in range(refs):
            chip.set_read_offset_code(r, 0)
        if chip.profile.vendor.soft_bit_read is not None:
            soft = figs["soft_bit_read"] = Figure(sensings=2 * sum(senses))
            for p in range(pages):
                soft.add(lambda p=p: chip.soft_bit_read(block, p, 4).busy_ns)
        else:
            figs["soft_bit_read"] = None
        erase = figs["erase"] = Figure()
        for b in good_blocks(chip, 8):
            erase.add(lambda b=b: chip.erase_block(b).busy_ns)
        figs.update(measure_mws(chip, rng))
    return figs


def measure_mws(chip: Chip, rng: np.random.Generator) -> dict[str, Figure | None]:
    if chip.profile.vendor.mws is None:
        return {"mws_1wl": None, "mws_4blk": None, "mws_4blk_new": None}
    geo = chip.geometry
    blocks = good_blocks(chip, 4, plane=0)
    wls = geo.pages_in_mode(True)
    for b in blocks:
        chip.erase_block(b)
        for wl in range(wls):
            data = rng.integers(0, 256, geo.total_bytes, dtype=np.uint8).tobytes()
            chip.program_page(b, wl, data, slc=True, blank_check=False)
    tm = TestMode(chip, allow_test_mode=True)
    tm.mws([(blocks[0], [wls - 1])])  # untimed: loads the MWS kernels
    one, four, fresh = Figure(sensings=12), Figure(sensings=12 * 4), Figure(sensings=9 * 4)
    for k in range(4):  # as a strobe search senses: the same WLs a few times in a row
        for _ in range(3):
            one.add(lambda k=k: tm.mws([(blocks[0], [k])]).busy_ns)
            four.add(lambda k=k: tm.mws([(b, [k]) for b in blocks]).busy_ns)
    for k in range(4, 13):  # every sensing on WLs not sensed before
        fresh.add(lambda k=k: tm.mws([(b, [k]) for b in blocks]).busy_ns)
    return {"mws_1wl": one, "mws_4blk": four, "mws_4blk_new": fresh}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profiles", default=",".join(builtin_names()))
    ap.add_argument("--pages", type=int, default=24, help="pages programmed and read per op")
    ap.add_argument("--paths", choices=("whole", "single", "both"), default="whole",
                    help="bus path: whole-op (default), one call per instruction, or both")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["NANDLAB_DATA_DIR"] = tmp  # bad-block tables and images stay out of ~
        print("# busy / CPU and busy / wall per op (higher is better; goal >= 10, MWS >= 1)")
        paths = {"whole": [True], "single": [False], "both": [False, True]}[args.paths]
        print(f"{'profile':<11} {'path':<6} {'op':<14} {'busy_ms':>9} {'cpu_ms':>9} {'wall_ms':>9} "
              f"{'busy/cpu':>9} {'busy/wall':>9}  {'goal':<6} {'floor_ms':>9} {'cpu/floor':>9}")
        short: list[str] = []
        for profile in args.profiles.split(","):
            floor_s = touch_floor_us(load_profile(profile).geometry.cells_per_wl) * 1e-6
            for whole_op, op, fig in [
                (w, op, fig) for w in paths for op, fig in measure(profile, args.pages, w).items()
            ]:
                path = "whole" if whole_op else "single"
                if fig is None:
                    print(f"{profile:<11} {path:<6} {op:<14} {'n/a':>9}")
                    continue
                goal = GOALS.get(op, 10.0)
                ratio = fig.busy_s / fig.cpu_s
                verdict = "ok" if ratio >= goal else f"< {goal:g}"
                floor = (
                    f" {fig.sensings * floor_s * 1e3:9.2f} "
                    f"{fig.cpu_s / (fig.sensings * floor_s):9.3g}" if fig.sensings else ""
                )
                print(
                    f"{profile:<11} {path:<6} {op:<14} {fig.busy_s * 1e3:9.2f} {fig.cpu_s * 1e3:9.2f} "
                    f"{fig.wall_s * 1e3:9.2f} {ratio:9.3g} {fig.busy_s / fig.wall_s:9.3g}  "
                    f"{verdict:<6}{floor}"
                )
                if fig.sensings and ratio < goal:
                    budget, least = fig.busy_s / goal, fig.sensings * floor_s
                    why = "the floor alone is over it" if least > budget else "under the floor"
                    short.append(
                        f"#   {profile} {path} {op}: {goal:g}x allows {budget * 1e3:.3f} ms CPU, the "
                        f"floor of its {fig.sensings} sensings is {least * 1e3:.3f} ms ({why})"
                    )
        if short:
            print("# ops under their goal: the CPU the goal allows against the floor of what they")
            print("# touch (where the floor alone is over it, the goal is cpu / floor <= 1.5)")
            print("\n".join(short))


if __name__ == "__main__":
    main()
