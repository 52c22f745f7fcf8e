"""ParaBit: the paper's figures beside the ones measured by a run of parabit.yaml.

    python characterization/parabit/compare.py RUN_DIR [--out report.md]

Everything is recomputed from the run's raw rows (measurements.parquet, one row
per operation and WL): nothing here knows an answer. Targets and tolerances
are those of shared/CALIBRATION.md (ParaBit chip): the truth table exact on
error-free cells (each result against the operation on what plain reads of
its operands return, so a cell's raw bit error does not count against the
logic),
XNOR / XOR latency ~100 us (+-5 %), Fig. 17 bit errors per 8 KiB WL after XOR
at 5K P/E cycles mean ~0.945 and max ~5 (error counts within a factor of 2).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

TRUTH_TABLE_OPS = ("AND", "OR", "XNOR", "NAND", "NOR", "XOR", "NOT", "NOT-MSB")
LATENCY_US = 100.0
FIG17_MEAN, FIG17_MAX, FIG17_PEC = 0.945, 5, 5000


def within_factor(measured: float, target: float, factor: float = 2.0) -> bool:
    return target / factor <= measured <= target * factor


def load_rows(run_dir: Path) -> list[dict[str, Any]]:
    rows = pq.read_table(run_dir / "measurements.parquet").to_pylist()
    return [r for r in rows if r.get("scheme") == "parabit"]


def compare(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One dict per checked claim: figure, quantity, paper, measured, bits, within."""
    if not rows:
        raise SystemExit("no ParaBit rows in this run: run characterization/parabit/parabit.yaml")
    fresh_pec = min(int(r["pec"]) for r in rows)
    by_op: dict[str, list[dict[str, Any]]] = defaultdict(list)  # against the data written
    logic: dict[str, list[dict[str, Any]]] = defaultdict(list)  # against plain reads
    for r in rows:
        op = str(r["operation"]).removeprefix("compute:")
        (logic if r.get("reference") == "read" else by_op)[op].append(r)
    out: list[dict[str, Any]] = []
    for op in TRUTH_TABLE_OPS:
        fresh = [r for r in logic.get(op, []) if int(r["pec"]) == fresh_pec]
        bits = sum(int(r["bits"]) for r in fresh)
        errors = sum(int(r["errors_0to1"]) + int(r["errors_1to0"]) for r in fresh)
        out.append(
            {
                "figure": "Table 1",
                "quantity": f"{op} vs the same operation on plain reads, P/E {fresh_pec}",
                "paper": "exact",
                "measured": f"{errors} errors",
                "bits": bits,
                "within": bits > 0 and errors == 0,
            }
        )
    for op in ("XNOR", "XOR"):
        lat = [float(r["latency_us"]) for r in by_op.get(op, [])]
        mean = sum(lat) / len(lat) if lat else float("nan")
        sens = {int(r["sensings"]) for r in by_op.get(op, [])}
        out.append(
            {
                "figure": "Fig. 13a",
                "quantity": f"{op} latency, µs ({'/'.join(map(str, sorted(sens)))} sensings)",
                "paper": f"~{LATENCY_US:g}",
                "measured": f"{mean:.1f}",
                "bits": None,
                "within": abs(mean / LATENCY_US - 1) <= 0.05,
            }
        )
    worn = [r for r in by_op.get("XOR", []) if int(r["pec"]) == FIG17_PEC]
    per_wl = [int(r["errors_0to1"]) + int(r["errors_1to0"]) for r in worn]
    bits = sum(int(r["bits"]) for r in worn)
    if per_wl:
        mean = sum(per_wl) / len(per_wl)
        out.append(
            {
                "figure": "Fig. 17",
                "quantity": f"mean bit errors per 8 KiB WL, XOR at {FIG17_PEC} P/E "
                f"({len(per_wl)} WLs)",
                "paper": f"{FIG17_MEAN}",
                "measured": f"{mean:.3f}",
                "bits": bits,
                "within": within_factor(mean, FIG17_MEAN),
            }
        )
        out.append(
            {
                "figure": "Fig. 17",
                "quantity": f"max bit errors per 8 KiB WL, XOR at {FIG17_PEC} P/E",
                "paper": f"{FIG17_MAX}",
                "measured": f"{max(per_wl)}",
                "bits": bits,
                "within": within_factor(max(per_wl), FIG17_MAX),
            }
        )
    return out


def markdown(run_dir: Path, claims: list[dict[str, Any]]) -> str:
    meta = json.loads((run_dir / "run.json").read_text())
    lines = [
        "# ParaBit reproduced on a virtual chip",
        "",
        (
            f"Run `{run_dir.name}` of `{meta.get('campaign_file', 'parabit.yaml')}` on "
            f"`{meta.get('bench_url')}`; every number below is recomputed from its "
            "measurements.parquet by characterization/parabit/compare.py."
        ),
        "",
        "| figure | quantity | paper | measured | bits | within tolerance |",
        "|---|---|---|---|---|---|",
    ]
    for c in claims:
        bits = "-" if c["bits"] is None else f"{c['bits']:.3g}"
        lines.append(
            f"| {c['figure']} | {c['quantity']} | {c['paper']} | {c['measured']} | {bits} | "
            f"{'yes' if c['within'] else 'no'} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--out", type=Path, help="also write the table to this markdown file")
    args = ap.parse_args()
    text = markdown(args.run_dir, compare(load_rows(args.run_dir)))
    print(text, end="")
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
