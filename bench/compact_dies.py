"""Memory of a fully programmed virtual die: today's cell state against the information floor.

For each built-in profile (native mode, every page type of every WL programmed with
random data), printed per die and per block:
- floor: the host data a full die holds, cells x bits per cell (the programmed level is
  all a die must keep per cell; personality and noise can be regenerated from a seed);
- today: the bytes the virtual die keeps per programmed WL (measured: one WL programmed
  through `CellArray.program`, the nbytes of its stored arrays, and the size of its block's
  .npz image document), x WLs per block, x blocks;
- the goal of issue 16 item 2: a full die in <= 2 GiB of RAM and of disk.

    .venv/bin/python bench/compact_dies.py
"""

from __future__ import annotations

import numpy as np
from nandlab.profiles import builtin_names, load_profile
from nandlab.vchip import CellArray
from nandlab.vchip.array_image import cells_bytes

GOAL_BYTES = 2 * 2**30
BLOCK, WL = 1, 0


def measured_per_wl(name: str) -> tuple[int, int]:
    """(bytes in memory, bytes of the block's image document) of one programmed WL."""
    profile = load_profile(name)
    g = profile.geometry
    array = CellArray(profile, seed=1)
    rng = np.random.default_rng(1)
    n = g.page_bytes + g.spare_bytes
    pages = {pt: rng.integers(0, 256, n, dtype=np.uint8) for pt in range(g.bits_per_cell)}
    assert array.program(BLOCK, WL, pages, slc=False).ok
    blk = array._blocks[BLOCK]  # the bench weighs the stored state itself
    wl = blk.wls[WL]
    memory = wl.vth.nbytes + wl.personality.nbytes + wl.level.nbytes
    return memory, len(cells_bytes(blk))


def gib(n: float) -> str:
    return f"{n / 2**30:,.1f} GiB"


def main() -> None:
    print(f"# goal: a fully programmed die in <= {gib(GOAL_BYTES)} (RAM and disk)")
    print(f"{'profile':<15}{'blocks':>7}{'WLs':>5}{'cells/WL':>10}{'b/cell':>7}"
          f"{'floor/blk':>12}{'today/blk':>12}{'floor/die':>13}{'today/die':>13}"
          f"{'disk/die':>13}  fits")
    for name in builtin_names():
        g = load_profile(name).geometry
        wls, cells, bits = g.wls_per_block, g.cells_per_wl, g.bits_per_cell
        floor_blk = wls * cells * bits / 8
        mem_wl, disk_wl = measured_per_wl(name)
        today_blk, disk_blk = wls * mem_wl, wls * disk_wl
        floor_die, today_die, disk_die = (g.blocks * x for x in (floor_blk, today_blk, disk_blk))
        fits = "floor only" if floor_die <= GOAL_BYTES < today_die else (
            "yes" if today_die <= GOAL_BYTES else "no, not even the floor")
        print(f"{name:<15}{g.blocks:>7}{wls:>5}{cells:>10,}{bits:>7}"
              f"{floor_blk / 2**20:>9.1f} MiB{today_blk / 2**20:>9.1f} MiB"
              f"{gib(floor_die):>13}{gib(today_die):>13}{gib(disk_die):>13}  {fits}")
        print(f"#   {name}: {mem_wl / cells:.2f} bytes a cell in memory "
              f"({bits / 8:.3f} at the floor: x{mem_wl / cells / (bits / 8):.1f})")
    print("# random host data cannot be stored below the floor: past 2 GiB a full die fits only"
          " when its data is itself regenerated from a seed (a seeded DIN pattern, kept per WL"
          " in place of the levels)")


if __name__ == "__main__":
    main()
