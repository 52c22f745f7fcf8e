"""ParaBit: the paper's figures beside the ones measured by a run of parabit.yaml.

`nandlab report RUN_DIR` calls `report` (parabit.yaml names this file as its
`analysis:`). Everything is recomputed from the run's rows (one row per
operation and WL): nothing here knows an answer. Targets and tolerances are
those of shared/CALIBRATION.md (ParaBit chip): the truth table exact on
error-free cells (each result against the operation on what plain reads of its
operands return, so a cell's raw bit error does not count against the logic),
XNOR / XOR latency ~100 us (+-5 %), Fig. 17 bit errors per 8 KiB WL after XOR
at 5K P/E cycles mean ~0.945 and max ~5 (error counts within a factor of 2).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from nandlab.dataset.basis import (
    basis_line,
    fitted,
    fitted_to,
    mark_tables,
    model_sources,
)

TRUTH_TABLE_OPS = ("AND", "OR", "XNOR", "NAND", "NOR", "XOR", "NOT", "NOT-MSB")
LATENCY_US = 100.0
FIG17_MEAN, FIG17_MAX, FIG17_PEC = 0.945, 5, 5000
FIG17_PLOT = "fig17_xor_errors.png"

Row = Mapping[str, Any]


def within_factor(measured: float, target: float, factor: float = 2.0) -> bool:
    return target / factor <= measured <= target * factor


def parabit_rows(rows: Sequence[Row]) -> list[Row]:
    return [r for r in rows if r.get("scheme") == "parabit"]


def _errors(r: Row) -> int:
    return int(r["errors_0to1"]) + int(r["errors_1to0"])


def _split(rows: Sequence[Row]) -> tuple[dict[str, list[Row]], dict[str, list[Row]]]:
    """Rows per operation: (against the data written, against plain reads of the operands)."""
    written: dict[str, list[Row]] = defaultdict(list)
    logic: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        op = str(r["operation"]).removeprefix("compute:")
        (logic if r.get("reference") == "read" else written)[op].append(r)
    return written, logic


def fig17_errors(rows: Sequence[Row]) -> list[int]:
    """Bit errors of each WL's XOR at FIG17_PEC P/E cycles (against the data written)."""
    written, _ = _split(parabit_rows(rows))
    return [_errors(r) for r in written.get("XOR", []) if int(r["pec"]) == FIG17_PEC]


def compare(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """One dict per checked claim: figure, quantity, paper, measured, bits, within."""
    rows = parabit_rows(rows)
    if not rows:
        raise ValueError(
            "no ParaBit rows in this run: run characterization/parabit/parabit.yaml"
        )
    fresh_pec = min(int(r["pec"]) for r in rows)
    written, logic = _split(rows)
    out: list[dict[str, Any]] = []
    for op in TRUTH_TABLE_OPS:
        fresh = [r for r in logic.get(op, []) if int(r["pec"]) == fresh_pec]
        bits = sum(int(r["bits"]) for r in fresh)
        errors = sum(_errors(r) for r in fresh)
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
        lat = [float(r["latency_us"]) for r in written.get(op, [])]
        mean = sum(lat) / len(lat) if lat else float("nan")
        sens = {int(r["sensings"]) for r in written.get(op, [])}
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
    per_wl = fig17_errors(rows)
    worn = [r for r in written.get("XOR", []) if int(r["pec"]) == FIG17_PEC]
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


def plot_fig17(per_wl: Sequence[int], path: Path) -> Path:
    """Histogram of XOR bit errors per WL at FIG17_PEC P/E, the paper's mean marked."""
    fig = Figure(figsize=(6, 4))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    top = max(per_wl)
    ax.hist(per_wl, bins=range(top + 2), align="left", rwidth=0.8, color="tab:blue")
    ax.axvline(
        sum(per_wl) / len(per_wl), color="tab:blue", ls="--", label="measured mean"
    )
    ax.axvline(FIG17_MEAN, color="k", ls=":", label=f"paper mean {FIG17_MEAN}")
    ax.set_xlabel("bit errors per 8 KiB WL after XOR")
    ax.set_ylabel("WLs")
    ax.set_title(f"ParaBit Fig. 17: XOR at {FIG17_PEC} P/E cycles ({len(per_wl)} WLs)")
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return path


REPO = Path(__file__).resolve().parents[2]


def basis_of(profile: str) -> Callable[[str, str], str | None]:
    """basis(heading, row) for `profile`: Fig. 17 from docs/model-cards/ (the parameters fitted
    to it); Fig. 13a's latency is the profile's sensing time, set from the paper's; Table 1
    follows from the latch logic alone (predicted)."""
    sources = model_sources(REPO)

    def basis(heading: str, row: str) -> str | None:
        if "| Fig. 13a |" in row:
            return fitted("timing.t_sense_us")
        if "| Fig. 17 |" in row:
            return fitted_to(sources, profile, r"Fig\. 17")
        return None

    return basis


def report(
    rows: Sequence[Row], meta: Mapping[str, Any], plots: Path
) -> tuple[str, list[Path]]:
    """report.md text and the Fig. 17 plot, from the run's rows and run.json only."""
    claims = compare(rows)
    lines = [
        "# ParaBit reproduced on a virtual chip",
        "",
        (
            f"Run `{meta['run_id']}` of `{meta['campaign_file']}` on `{meta['bench_url']}`; "
            "every number below is recomputed from its rows by "
            "characterization/parabit/analysis.py (`nandlab report RUN_DIR`)."
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
    made = []
    per_wl = fig17_errors(rows)
    if per_wl:
        made.append(plot_fig17(per_wl, plots / FIG17_PLOT))
        lines += ["", f"![Fig. 17](plots/{FIG17_PLOT})"]
    lines = mark_tables(lines, basis_of(str(meta['profile'])))
    lines[3:3] = ["", basis_line(lines)]
    return "\n".join(lines) + "\n", made
