"""PiF / CoX-PM: the paper's claims beside the figures a run of pif.yaml measures.

`nandlab report RUN_DIR` calls `report` (pif.yaml names this file as its `analysis:`).
Everything is recomputed from the run's rows (steps `cox_pm`): nothing here knows an
answer. Targets are those of shared/CALIBRATION.md (PiF / CoX-PM chip):

- Fig. 7: mean raw bit errors per 1 KiB codeword per (P/E, retention): below the in-chip
  decoder's 72-bit limit everywhere but at 2K P/E with 12 months of retention. Our
  bit-flipping decoder reaches 42 errors at a frame-error rate <= 1e-3 (docs/codes.md), not
  72, so the table also says where the mean passes 42.
- Table 2: the in-chip decoder's failure rate (read_when_matched outcome "decoding failure")
  per condition; every answer, from the chip or from the controller's fallback, right.
- Bytes to the host per page scanned vs a full read of every page.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from nandlab.dataset.basis import basis_line, fitted_to, mark_tables, model_sources

Row = Mapping[str, Any]
PAPER_LIMIT, OUR_LIMIT = 72, 42
HOURS_PER_MONTH = 730.0
PLOT = "pif_fig7.png"


def _detail(r: Row) -> dict[str, Any]:
    return json.loads(r.get("detail") or "{}")


def _condition(r: Row) -> tuple[int, int]:
    """(P/E cycles rounded to hundreds, retention in whole months)."""
    pec = int(round(int(r["pec"]) / 100.0) * 100)
    return pec, round(float(r.get("retention_age_h") or 0.0) / HOURS_PER_MONTH)


def fig7(rows: Sequence[Row]) -> dict[tuple[int, int], dict[str, float]]:
    """Per condition: codewords, mean and largest raw bit errors per 1 KiB codeword."""
    per: dict[tuple[int, int], list[int]] = defaultdict(list)
    for r in rows:
        if r.get("operation") == "cox-pm:page":
            per[_condition(r)] += _detail(r)["codeword_errors"]
    return {
        c: {"codewords": len(e), "mean": sum(e) / len(e), "max": max(e)}
        for c, e in sorted(per.items())
    }


def table2(rows: Sequence[Row]) -> dict[tuple[int, int], dict[str, Any]]:
    """Per condition: pages scanned, in-chip decoding failures, wrong and missing answers,
    bytes to the host and the busy time per page."""
    out: dict[tuple[int, int], dict[str, Any]] = {}
    for r in rows:
        if r.get("operation") != "cox-pm:match":
            continue
        d = _detail(r)
        c = out.setdefault(
            _condition(r),
            {"pages": 0, "failures": 0, "wrong": 0, "uncorrectable": 0, "matched": 0,
             "host_bytes": 0, "baseline_bytes": 0, "busy_us": 0.0, "chip_busy_us": [],
             "energy_uJ": 0.0},
        )  # fmt: skip
        c["pages"] += 1
        if d["path"] == "uncorrectable":
            c["uncorrectable"] += 1
            continue
        c["failures"] += d["path"] == "fallback"
        c["wrong"] += int(r.get("errors_0to1") or 0) + int(r.get("errors_1to0") or 0)
        c["matched"] += bool(d["matched"])
        c["host_bytes"] += int(d["host_bytes"])
        c["baseline_bytes"] += int(d["baseline_host_bytes"])
        c["busy_us"] += float(r["latency_us"])
        c["energy_uJ"] += float(r["energy_uJ"])
        if d["path"] == "chip":
            c["chip_busy_us"].append(float(r["latency_us"]))
    return dict(sorted(out.items()))


def _label(c: tuple[int, int]) -> str:
    return f"{c[0] // 1000}K P/E, {c[1]} mo" if c[0] >= 1000 else f"fresh, {c[1]} mo"


def compare(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """The paper's claims beside what the run measured."""
    f7, t2 = fig7(rows), table2(rows)
    worst = max(f7, key=lambda c: (c[0], c[1])) if f7 else None
    over = [c for c, v in f7.items() if v["mean"] > PAPER_LIMIT]
    over_ours = [c for c, v in f7.items() if v["mean"] > OUR_LIMIT]
    wrong = sum(v["wrong"] for v in t2.values())
    unc = sum(v["uncorrectable"] for v in t2.values())
    pages = sum(v["pages"] for v in t2.values())
    host = sum(v["host_bytes"] for v in t2.values())
    base = sum(v["baseline_bytes"] for v in t2.values())
    # a scan's first page also carries the first sensing, its last only the last decode
    chip_busy = [b for v in t2.values() for b in v["chip_busy_us"]]
    mean_busy = sum(chip_busy) / len(chip_busy) if chip_busy else 0.0
    return [
        {
            "figure": "Fig. 7",
            "quantity": "conditions with mean raw errors / 1 KiB > 72",
            "paper": "only 2K P/E + 12 months",
            "measured": ", ".join(_label(c) for c in over) or "none",
            "within": over == [worst] if worst is not None else None,
        },
        {
            "figure": "Fig. 7",
            "quantity": f"conditions with mean > {OUR_LIMIT} (our bit-flipping decoder's limit)",
            "paper": "-",
            "measured": ", ".join(_label(c) for c in over_ours) or "none",
            "within": None,
        },
        {
            "figure": "Table 2",
            "quantity": "wrong answers (chip or fallback) / pages scanned",
            "paper": "0 (fallback always right)",
            "measured": f"{wrong} / {pages} ({unc} uncorrectable)",
            "within": wrong == 0 and unc == 0,
        },
        {
            "figure": "Sec. 3.2",
            "quantity": "mean busy per page, chip path, cache form (us)",
            "paper": "<= tR 45 us (40 us decode + match hidden behind the next sensing)",
            "measured": f"{mean_busy:.1f}" if chip_busy else "no chip answer",
            "within": bool(chip_busy) and mean_busy <= 45.0 + 1e-9,
        },
        {
            "figure": "bytes",
            "quantity": "bytes to the host / full reads of every page",
            "paper": "only matched pages move",
            "measured": f"{host} / {base} ({host / base:.3f})" if base else "-",
            "within": None,
        },
    ]


def conditions(rows: Sequence[Row]) -> list[str]:
    f7, t2 = fig7(rows), table2(rows)
    lines = [
        ("| condition | codewords | mean raw errors / 1 KiB | max | pages | in-chip decode "
        "failures | failure rate | wrong | uncorrectable | matched | busy / page (us) | "
        "energy / page (uJ) |"),
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in sorted(set(f7) | set(t2)):
        e = f7.get(c, {"codewords": 0, "mean": 0.0, "max": 0})
        t = t2.get(c)
        if t is None:
            continue
        n = t["pages"]
        lines.append(
            f"| {_label(c)} | {e['codewords']} | {e['mean']:.1f} | {e['max']} | {n} | "
            f"{t['failures']} | {t['failures'] / n:.2f} | {t['wrong']} | {t['uncorrectable']} | "
            f"{t['matched']} | {t['busy_us'] / n:.1f} | {t['energy_uJ'] / n:.2f} |"
        )
    return lines


def plot_fig7(rows: Sequence[Row], path: Path) -> Path:
    f7 = fig7(rows)
    fig = Figure(figsize=(6.4, 4.0))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for pec in sorted({c[0] for c in f7}):
        pts = sorted((m, v["mean"]) for (p, m), v in f7.items() if p == pec)
        ax.plot([m for m, _ in pts], [v for _, v in pts], marker="o", label=f"{pec} P/E")
    ax.axhline(PAPER_LIMIT, color="k", linestyle="--", label="paper's in-chip limit (72)")
    ax.axhline(OUR_LIMIT, color="grey", linestyle=":", label="our bit-flipping decoder (42)")
    ax.set_xlabel("retention (months at 30 C)")
    ax.set_ylabel("mean raw bit errors per 1 KiB codeword")
    ax.set_title("CoX-PM Fig. 7 on tlc-coxpm")
    ax.legend(fontsize="small", loc="center left")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    return path


REPO = Path(__file__).resolve().parents[2]


def basis_of(profile: str) -> Callable[[str, str], str | None]:
    """basis(heading, row) for `profile`: Fig. 7 from docs/model-cards/ (the parameters fitted
    to it); the rest predicted. Sec. 3.2's busy time is predicted: the die is given the
    paper's decode time (40 us a page), and whether the cache form hides it behind the next
    sensing is the pipeline's doing, not a tuned parameter."""
    sources = model_sources(REPO)

    def basis(heading: str, row: str) -> str | None:
        return fitted_to(sources, profile, r"Fig\. 7") if "| Fig. 7 |" in row else None

    return basis


def report(
    rows: Sequence[Row], meta: Mapping[str, Any], plots: Path
) -> tuple[str, list[Path]]:
    """report.md text and its plot, from the run's rows and run.json only."""
    lines = [
        "# PiF / CoX-PM reproduced on a virtual chip",
        "",
        (
            f"Run `{meta['run_id']}` of `{meta['campaign_file']}` on `{meta['bench_url']}`; "
            "every number below is recomputed from its rows by "
            "characterization/pif/analysis.py (`nandlab report RUN_DIR`)."
        ),
        "",
        "| figure | quantity | paper | measured | as the paper |",
        "|---|---|---|---|---|",
    ]
    for c in compare(rows):
        lines.append(
            f"| {c['figure']} | {c['quantity']} | {c['paper']} | {c['measured']} | "
            f"{'-' if c['within'] is None else 'yes' if c['within'] else 'no'} |"
        )
    lines += [
        "",
        "The in-chip decoder here is the bit-flipping decoder of docs/codes.md, capped at 17",
        "passes per 1 KiB sub-page (40 us per page at 500 MHz): it reaches 42 raw errors per",
        "codeword at a frame-error rate <= 1e-3, not the paper's 72, so it fails from lower",
        "wear and retention than the paper's; the controller's fallback (soft-bit read,",
        "min-sum, read-retry) answers those pages.",
        "",
        "## Per condition",
        "",
        *conditions(rows),
    ]
    made = [plot_fig7(rows, plots / PLOT)]
    lines += ["", f"![Fig. 7](plots/{PLOT})"]
    lines = mark_tables(lines, basis_of(str(meta['profile'])))
    lines[3:3] = ["", basis_line(lines)]
    return "\n".join(lines) + "\n", made
