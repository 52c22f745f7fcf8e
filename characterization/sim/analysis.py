"""Search-in-Memory: the paper's claims beside the figures a run of sim.yaml measures.

`nandlab report RUN_DIR` calls `report` (sim.yaml names this file as its `analysis:`).
Everything is recomputed from the run's rows (steps `sim_search`): nothing here knows an
answer. Targets are those of shared/CALIBRATION.md (Search-in-Memory chip):

- Sec. III: search bit-exact against the host reference on error-free pages (pages whose
  raw full read shows no bit error).
- Sec. IV-C: every corrupted page (raw bit errors > 0) caught, i.e. read in full, by every
  query on it; no wrong answer. Counted per policy: the verification read alone, and with
  the paper's age margin.
- Sec. VII-B: bytes per point query, in-chip path: 64 B bitmap + 64 B chunk to the host
  vs 8 KiB (64x), and on the chip bus with the 256 B verification read (~21x); the bytes
  are those the op programs moved, the baseline those two full page reads returned.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from nandlab.dataset.basis import basis_line, mark_tables

Row = Mapping[str, Any]
HOST_RATIO, CHIP_RATIO = 64.0, 21.0
PLOT = "sim_pages.png"


def _detail(r: Row) -> dict[str, Any]:
    return json.loads(r.get("detail") or "{}")


def _policy(r: Row) -> str:
    age = _detail(r).get("max_age_h")
    return (
        "verification read" if age is None else f"verification read + age < {age:g} h"
    )


def _errors(r: Row) -> int:
    return int(r.get("errors_0to1") or 0) + int(r.get("errors_1to0") or 0)


def _key(r: Row) -> tuple[str, int, int]:
    return (str(r["step"]), int(r["block"]), int(r["page"]))


def pages(rows: Sequence[Row]) -> dict[tuple[str, int, int], dict[str, Any]]:
    """Per (step, block, key page): raw bit errors, condition, policy and its queries."""
    out: dict[tuple[str, int, int], dict[str, Any]] = {}
    for r in rows:
        if r.get("operation") == "sim-search:page":
            out[_key(r)] = {
                "raw": _errors(r),
                "pec": int(r["pec"]),
                "retention": str(r["retention_label"]),
                "policy": _policy(r),
                "queries": [],
            }
    for r in rows:
        op = str(r.get("operation", ""))
        if op.startswith("sim-search:") and op != "sim-search:page" and _key(r) in out:
            out[_key(r)]["queries"].append(r)
    return out


def _path(q: Row) -> str:
    return str(_detail(q).get("path", ""))


def compare(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """The claims with what the rows measure."""
    ps = pages(rows)
    claims: list[dict[str, Any]] = []
    clean_masks = [
        q
        for p in ps.values()
        if p["raw"] == 0
        for q in p["queries"]
        if q["operation"] == "sim-search:mask" and q.get("bits")
    ]
    wrong_slots = sum(_errors(q) for q in clean_masks)
    claims.append(
        {
            "figure": "Sec. III",
            "quantity": "masked searches on error-free pages, slots wrong",
            "paper": "0 (bit-exact)",
            "measured": f"{wrong_slots} in {len(clean_masks)} searches",
            "within": wrong_slots == 0 and bool(clean_masks),
        }
    )
    for policy in sorted({p["policy"] for p in ps.values()}):
        mine = [p for p in ps.values() if p["policy"] == policy]
        corrupted = [p for p in mine if p["raw"] > 0]
        caught = [p for p in corrupted if all(_path(q) != "chip" for q in p["queries"])]
        queries = [q for p in mine for q in p["queries"]]
        wrong = sum(1 for q in queries if _errors(q) > 0)
        unc = sum(1 for q in queries if _path(q) == "uncorrectable")
        claims.append(
            {
                "figure": "Sec. IV-C",
                "quantity": f"corrupted pages caught ({policy})",
                "paper": "all",
                "measured": f"{len(caught)} of {len(corrupted)}",
                "within": len(caught) == len(corrupted),
            }
        )
        claims.append(
            {
                "figure": "Sec. IV-C",
                "quantity": f"wrong answers ({policy})",
                "paper": "0",
                "measured": f"{wrong} of {len(queries)} (uncorrectable, no answer: {unc})",
                "within": wrong == 0,
            }
        )
    found = [
        q
        for p in ps.values()
        for q in p["queries"]
        if q["operation"] == "sim-search:point"
        and _path(q) == "chip"
        and _detail(q)["found"]
    ]
    points = [_detail(q) for q in found]
    if points:
        n = len(points)
        host = sum(d["host"] for d in points) / n
        chip = sum(d["chip_out"] for d in points) / n
        base = sum(d["baseline_chip_out"] for d in points) / n
        claims.append(
            {
                "figure": "Sec. VII-B",
                "quantity": f"host link per point query: {host:.0f} B vs {base:.0f} B ({n} queries)",
                "paper": f"{HOST_RATIO:.0f}x",
                "measured": f"{base / host:.1f}x",
                "within": abs(base / host - HOST_RATIO) < 0.5,
            }
        )
        claims.append(
            {
                "figure": "Sec. VII-B",
                "quantity": f"chip bus out per point query: {chip:.0f} B vs {base:.0f} B",
                "paper": f"~{CHIP_RATIO:.0f}x",
                "measured": f"{base / chip:.1f}x",
                "within": abs(base / chip - CHIP_RATIO) < 1.0,
            }
        )
        bus = sum(d["bus_us"] for d in points) / n
        base_bus = sum(d["baseline_bus_us"] for d in points) / n
        claims.append(
            {
                "figure": "Sec. VII-B",
                "quantity": "I/O time per point query: SiM bytes in and out at the match-mode "
                "rate vs the full reads at the storage-mode rate (vendor.search)",
                "paper": "-",
                "measured": f"{bus:.2f} µs vs {base_bus:.2f} µs",
                "within": None,
            }
        )
        busy = sum(float(q["latency_us"]) for q in found) / n
        energy = sum(float(q["energy_uJ"]) for q in found) / n
        claims.append(
            {
                "figure": "Sec. VII-B",
                "quantity": "chip busy per point query (2 page-opens + search), datasheet energy",
                "paper": "-",
                "measured": f"{busy:.1f} µs, {energy:.3f} µJ",
                "within": None,
            }
        )
    return claims


def conditions(rows: Sequence[Row]) -> list[str]:
    """Markdown table: per wear, retention and policy, pages, raw errors and the paths."""
    groups: dict[tuple[int, str, str], list[dict[str, Any]]] = defaultdict(list)
    for p in pages(rows).values():
        groups[(p["pec"], p["retention"], p["policy"])].append(p)
    lines = [
        (
            "| P/E | retention | policy | pages | raw bit errors / page (mean, max) "
            "| queries | in-chip | full read | retries / full read | uncorrectable | wrong |"
        ),
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (pec, ret, policy), ps in sorted(groups.items()):
        qs = [q for p in ps for q in p["queries"]]
        full = [q for q in qs if _path(q).startswith("fallback")]
        retries = sum(int(_detail(q).get("retries", 0)) for q in full)
        raw = [p["raw"] for p in ps]
        lines.append(
            f"| {pec} | {ret} | {policy} | {len(ps)} | {sum(raw) / len(raw):.1f}, {max(raw)} "
            f"| {len(qs)} | {sum(1 for q in qs if _path(q) == 'chip')} | {len(full)} "
            f"| {retries / len(full) if full else 0:.1f} "
            f"| {sum(1 for q in qs if _path(q) == 'uncorrectable')} "
            f"| {sum(1 for q in qs if _errors(q) > 0)} |"
        )
    return lines


def plot_pages(rows: Sequence[Row], path: Path) -> Path:
    """Raw bit errors per key page against the share of its queries answered in the chip."""
    fig = Figure(figsize=(6.4, 3.6))
    ax = fig.add_subplot()
    for policy in sorted({p["policy"] for p in pages(rows).values()}):
        ps = [p for p in pages(rows).values() if p["policy"] == policy]
        xs = [p["raw"] for p in ps]
        ys = [
            sum(_path(q) == "chip" for q in p["queries"]) / max(len(p["queries"]), 1)
            for p in ps
        ]
        ax.scatter(xs, ys, label=policy, alpha=0.7)
    ax.set_xscale("symlog", linthresh=1)
    ax.set_xlabel("raw bit errors in the key page (full read)")
    ax.set_ylabel("queries answered in the chip")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    FigureCanvasAgg(fig).print_png(str(path))
    return path


def basis(heading: str, row: str) -> str | None:
    """No slc-search parameter was tuned to any row (docs/model-cards/slc-search.md): the
    search and gather results, the error handling and the bytes moved follow from the page
    format and the scheme."""
    return None


def report(
    rows: Sequence[Row], meta: Mapping[str, Any], plots: Path
) -> tuple[str, list[Path]]:
    """report.md text and its plot, from the run's rows and run.json only."""
    lines = [
        "# Search-in-Memory reproduced on a virtual chip",
        "",
        (
            f"Run `{meta['run_id']}` of `{meta['campaign_file']}` on `{meta['bench_url']}`; "
            "every number below is recomputed from its rows by "
            "characterization/sim/analysis.py (`nandlab report RUN_DIR`)."
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
    lines += ["", "## Per condition", "", *conditions(rows)]
    made = [plot_pages(rows, plots / PLOT)]
    lines += ["", f"![pages](plots/{PLOT})"]
    lines = mark_tables(lines, basis)
    lines[3:3] = ["", basis_line(lines)]
    return "\n".join(lines) + "\n", made
