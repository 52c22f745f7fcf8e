"""Flash-Cosmos figures from the rows of a campaign run: Figs. 12 and 13 (MWS timing).

`nandlab report RUN_DIR` calls `report` for fig12.yaml and fig13.yaml (their
`analysis:`). Every number is recomputed from the run's rows: the SLC page reads
give tR, the `mws` rows the minimum error-free tMWS per number of WLs
(intra-block) or blocks (inter-block) and the result bits compared to find it.
Targets and tolerances: shared/CALIBRATION.md (Flash-Cosmos chip); latency
ratios within +-5 %.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

Row = Mapping[str, Any]
TIME_TOL = 0.05

FIGURES = {
    # expression of the mws rows: (figure, what is counted, paper per count, paper points)
    "intra-block": (
        "12",
        "WLs",
        {1: "<= 1.01", 2: "<= 1.01", 4: "<= 1.01", 8: "<= 1.01", 48: "1.033"},
        [(48, 1.033)],
    ),
    "inter-block": (
        "13",
        "blocks",
        {1: "~1.0", 2: "~1.0", 4: "~1.0", 32: "1.363"},
        [(32, 1.363)],
    ),
}


def yes(ok: bool | None) -> str:
    return "-" if ok is None else ("yes" if ok else "no")


def within(paper: str, ratio: float) -> bool | None:
    """Whether a measured tMWS / tR meets the paper's figure ('<= x', '~x', 'x' or none)."""
    if paper.startswith("<="):
        return ratio <= float(paper[2:]) * (1 + TIME_TOL)
    if paper.startswith("~"):
        return abs(ratio / float(paper[1:]) - 1) <= TIME_TOL
    if paper == "(curve)":
        return None
    return abs(ratio / float(paper) - 1) <= TIME_TOL


def t_read_us(rows: Sequence[Row]) -> float:
    """Mean busy time of the run's SLC page reads (tR)."""
    reads = [
        float(r["latency_us"])
        for r in rows
        if r.get("operation") == "read" and r.get("slc")
    ]
    if not reads:
        raise ValueError("no SLC page read in this run: tR is unknown")
    return sum(reads) / len(reads)


def mws_curves(rows: Sequence[Row]) -> dict[str, list[tuple[int, float, int]]]:
    """Per MWS kind (expression): (count sensed at once, tMWS / tR, bits compared), by count."""
    t_r = t_read_us(rows)
    curves: dict[str, list[tuple[int, float, int]]] = {}
    for r in rows:
        if r.get("operation") == "mws" and r.get("expression") in FIGURES:
            point = (int(r["chunk"]), float(r["latency_us"]) / t_r, int(r["bits"]))
            curves.setdefault(str(r["expression"]), []).append(point)
    return {k: sorted(v) for k, v in curves.items()}


def plot_curve(
    kind: str, points: Sequence[tuple[int, float, int]], profile: str, path: Path
) -> Path:
    fig_no, what, _, paper = FIGURES[kind]
    fig = Figure(figsize=(6, 4))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=profile)
    ax.plot([p[0] for p in paper], [p[1] for p in paper], "k*", ms=10, label="paper")
    ax.set_xlabel(f"{what} sensed at once")
    ax.set_ylabel("minimum error-free tMWS / tR (tR = SLC page read)")
    ax.set_xscale("log", base=2)
    ax.grid(True, alpha=0.3)
    ax.legend()
    ax.set_title(f"Fig. {fig_no}: {kind} MWS latency")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return path


def report(
    rows: Sequence[Row], meta: Mapping[str, Any], plots: Path
) -> tuple[str, list[Path]]:
    """report.md text and one plot per figure in the run, from its rows and run.json only."""
    curves = mws_curves(rows)
    if not curves:
        raise ValueError(
            "no MWS timing rows in this run: run a characterization/flashcosmos campaign"
        )
    t_r = t_read_us(rows)
    profile = str(meta["profile"])
    lines = [
        f"# Flash-Cosmos on the {profile} virtual chip",
        "",
        (
            f"Run `{meta['run_id']}` of `{meta['campaign_file']}` on `{meta['bench_url']}`; "
            "every number below is recomputed from its rows by "
            "characterization/flashcosmos/analysis.py (`nandlab report RUN_DIR`). Latency "
            "ratios within +-5 % (shared/CALIBRATION.md)."
        ),
        "",
    ]
    made = []
    for kind, points in curves.items():
        fig_no, what, spec, _ = FIGURES[kind]
        lines += [
            f"### Fig. {fig_no}: minimum error-free tMWS vs {what} ({kind}), x tR",
            "",
            (
                f"tR = {t_r:.2f} us (SLC page read) measured on the same bench. tMWS: busy "
                "time of an MWS at the shortest strobe (10 ns grid) with zero errors in "
                "consecutive sensings; bits: result bits compared during the search."
            ),
            "",
            f"| {what} | paper | measured | bits | within tolerance |",
            "|---|---|---|---|---|",
        ]
        for n, ratio, bits in points:
            paper = spec.get(n, "(curve)")
            lines.append(
                f"| {n} | {paper} | {ratio:.4f} | {bits:.3g} | {yes(within(paper, ratio))} |"
            )
        name = f"fig{fig_no}_tmws.png"
        made.append(plot_curve(kind, points, profile, plots / name))
        lines += ["", f"![Fig. {fig_no}](plots/{name})", ""]
    return "\n".join(lines).rstrip() + "\n", made
