"""Reproduce ParaBit Table 1 (truth table), Fig. 13a (XNOR / XOR latency) and Fig. 17
(bit errors per 8 KiB WL after XOR at 5K P/E) on the virtual planar MLC.

    python characterization/parabit/reproduce.py --wls 64
"""

from __future__ import annotations

import argparse

import numpy as np
from nandlab.onfi import Chip
from nandlab.schemes.base import Plan
from nandlab.schemes.compute import store_operands
from nandlab.schemes.parabit import ParaBit
from nandlab.transport import open_bench


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--wls", type=int, default=64)
    args = ap.parse_args()
    with open_bench("sim://mlc-planar?seed=17&fresh=1") as bench:
        chip = Chip(bench)
        pb = ParaBit(chip, allow_test_mode=True)
        st = store_operands(chip, {"A": "random:1", "B": "random:2"}, block=100)
        a, b = st["A"].bits, st["B"].bits
        want = {"AND": a & b, "OR": a | b, "XNOR": 1 - (a ^ b), "NAND": 1 - (a & b),
                "NOR": 1 - (a | b), "XOR": a ^ b, "NOT-LSB": 1 - a, "NOT-MSB": 1 - b}
        print("Table 1 (exact on error-free cells)")
        for op, w in want.items():
            plan = Plan("parabit", op)
            e = int(np.count_nonzero(pb.operation(op, 100, 0, plan) != w))
            print(f"  {op:8s} errors {e} in {w.size} bits, {plan.sensings} sensings, "
                  f"{plan.latency_us:.1f} us{'  <- Fig. 13a paper ~100 us' if op in ('XOR', 'XNOR') else ''}")
        bench.fast_forward_wear(0, 102, 5000)
        specs = {f"W{i}": f"random:{50 + i}" for i in range(2 * args.wls)}
        st = store_operands(chip, specs, block=102)
        per_wl = []
        for wl in range(args.wls):
            x, y = st[f"W{2 * wl}"].bits, st[f"W{2 * wl + 1}"].bits
            got = pb.operation("XOR", 102, wl, Plan("parabit", "XOR"))
            per_wl.append(int(np.count_nonzero(got != (x ^ y))))
        mean, mx = float(np.mean(per_wl)), max(per_wl)
        ok = 0.945 / 2 <= mean <= 0.945 * 2
        print(f"Fig. 17 (5K P/E, XOR): paper mean 0.945 max 5 per 8 KiB WL; measured mean {mean:.3f} "
              f"max {mx} over {args.wls} WLs ({args.wls * a.size} bits) {'within' if ok else 'MISS'}")


if __name__ == "__main__":
    main()
