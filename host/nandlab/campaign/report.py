"""`nandlab report`: summary.md (tables a person reads first) and PNG plots of a run."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nandlab.analysis import BitErrors, pool_bit_errors
from nandlab.campaign.export import require_finished
from nandlab.campaign.runner import read_meta
from nandlab.campaign.schema import parse_campaign
from nandlab.dataset.columns import PARTIAL_REPORT, PLOTS, SUMMARY
from nandlab.dataset.parts import verify_parts
from nandlab.dataset.plots import bars, data_eye, rber_vs_pec, rber_vs_retention, vth_histograms
from nandlab.dataset.store import RunStore, verify_dataset
from nandlab.dataset.summary import (
    _md_table,
    latency_markdown,
    pooled_latency,
    summary_markdown,
)
from nandlab.errors import UsageError
from nandlab.paths import write_atomic

Row = Mapping[str, Any]
REPORT = "report.md"
"""The campaign's own analysis writes this beside summary.md (see `analysis_report`)."""


def rber_by_condition(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """Pooled RBER per (mode, P/E, retention, disturb reads, temperature, page type)."""

    def key(r: Row) -> tuple[Any, ...] | None:
        if r.get("operation") != "rber":
            return None
        return (
            str(r.get("mode") or "-"),
            int(r.get("pec") or 0),
            str(r.get("retention_label") or "fresh"),
            int(r.get("disturb_reads") or 0),
            float(r.get("temp_C") or 0.0),
            str(r.get("page_type")),
        )

    names = ("mode", "pec", "retention", "disturb_reads", "temp_C", "page_type")
    return [
        {**dict(zip(names, k, strict=True)), **e.as_row(), "pages": n, **e.rate_columns()}
        for k, (e, n) in pool_bit_errors(rows, key).items()
    ]


def compute_by_condition(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """Pooled in-flash operation results per (scheme, operation, mode, P/E, retention)."""

    def key(r: Row) -> tuple[Any, ...] | None:
        if r.get("scheme") is None or r.get("bits") is None:
            return None
        return (
            str(r["scheme"]),
            str(r["operation"]).removeprefix("compute:"),
            str(r.get("mode") or "-"),
            int(r.get("pec") or 0),
            str(r.get("retention_label") or "fresh"),
            str(r.get("reference") or "written"),
        )

    cost: dict[tuple[Any, ...], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for r in rows:
        k = key(r)
        if k is not None:
            c = cost[k]
            c[0] += int(r.get("sensings") or 0)
            c[1] += float(r.get("latency_us") or 0.0)
            c[2] += float(r.get("energy_uJ") or 0.0)
    out = []
    for k, (e, n) in pool_bit_errors(rows, key).items():
        sensings, us, uJ = cost[k]
        kib = e.bits / n / 8 / 1024
        out.append(
            {
                **dict(zip(("scheme", "operation", "mode", "pec", "retention", "reference"), k,
                           strict=True)),
                "runs": n,
                **e.as_row(),
                **e.rate_columns(),
                "sensings": sensings / n,
                "latency_us": us / n,
                "energy_uJ_per_KiB": uJ / n / kib if kib else None,
            }
        )
    return out


Column = tuple[str, Callable[[Mapping[str, Any]], str]]
"""A report table's column: its header and how a row of the table reads in it."""


def _field(key: str, spec: str = "") -> Callable[[Mapping[str, Any]], str]:
    return lambda row: format(row[key], spec)


def _table(columns: Sequence[Column], rows: Sequence[Mapping[str, Any]]) -> str:
    return _md_table([h for h, _ in columns], [[cell(r) for _, cell in columns] for r in rows])


_CONDITION: list[Column] = [("P/E", _field("pec")), ("retention", _field("retention"))]
_ERRORS: list[Column] = [
    ("bits", _field("bits")),
    ("errors 0->1", _field("errors_0to1")),
    ("errors 1->0", _field("errors_1to0")),
    ("RBER", _field("rber_text")),
    ("95 % interval", lambda r: f"{r['rber_low']:.2g} - {r['rber_high']:.2g}"),
]
_RBER_COLUMNS: list[Column] = [
    ("mode", _field("mode")),
    *_CONDITION,
    ("disturb reads", _field("disturb_reads")),
    ("page type", _field("page_type")),
    ("pages", _field("pages")),
    *_ERRORS,
]
_COMPUTE_COLUMNS: list[Column] = [
    ("scheme", _field("scheme")),
    ("operation", _field("operation")),
    ("mode", _field("mode")),
    *_CONDITION,
    ("reference", _field("reference")),
    ("runs", _field("runs")),
    *_ERRORS,
    ("sensings", _field("sensings", ".2g")),
    ("latency µs", _field("latency_us", ".1f")),
    (
        "energy µJ/KiB",
        lambda c: "-" if c["energy_uJ_per_KiB"] is None else f"{c['energy_uJ_per_KiB']:.3f}",
    ),
]


def report(
    run_dir: str | Path, out: str | Path | None = None, *, partial: bool = False
) -> tuple[Path, list[Path]]:
    """Write summary.md and plots/*.png of a run into `out` (default: the run folder, or its
    partial-report/ folder for an unfinished run, which needs `partial`); their paths.

    The run is only read (its store opened read-only), so an archived read-only run works
    with an `out` elsewhere."""
    run = Path(run_dir)
    meta = read_meta(run)
    unfinished = require_finished(run, meta, partial)
    verify_dataset(run, meta)
    if unfinished:
        verify_parts(run)
    folder = Path(out) if out is not None else run / PARTIAL_REPORT if unfinished else run
    if out is None and not os.access(run, os.W_OK):
        raise UsageError(f"run folder {run} is read-only: give --out DIR for the report")
    store = RunStore(run, readonly=True)
    try:
        rows = store.rows()
        n_units, chip_ns, wall = store.totals()
    finally:
        store.close()
    notes = [
        f"campaign: `{meta['campaign']}` ({meta['campaign_file']}), "
        f"status **{meta.get('status')}**, "
        f"{n_units} of {meta['units']} units",
        f"chips: {', '.join(c['unique_id'] for c in meta['chips'])}; blocks {meta['blocks']}",
        f"chip time {chip_ns / 1e9:.4g} s over {wall:.3g} s of unit wall time",
    ]
    if unfinished:
        notes.insert(0, f"**partial**: the rows of {n_units} committed units, the run unfinished")
    text = summary_markdown({**meta, "command": f"campaign {meta['campaign']}"}, [], notes)
    parts = [text.rstrip().replace("- measurement rows: 0", f"- measurement rows: {len(rows)}")]
    rber = rber_by_condition(rows)
    if rber:
        parts += [
            "",
            "## RBER by condition",
            "",
            "Every rate says how many bits it rests on; 0 errors read '0 in N bits'. The "
            "interval is the rate's 95 % Wilson score interval (with 0 errors: up to its "
            "upper bound).",
            "",
        ]
        parts.append(_table(_RBER_COLUMNS, rber))
    retry = [r for r in rows if r.get("operation") == "read_retry"]
    if retry:
        parts += ["", "## Read retry: best offsets", ""]
        parts.append(
            _md_table(
                ["P/E", "retention", "block", "WL", "page type", "offset codes", "bits", "RBER"],
                [
                    [
                        str(r.get("pec")),
                        str(r.get("retention_label")),
                        str(r["block"]),
                        str(r["wl"]),
                        str(r["page_type"]),
                        str(r.get("offsets")),
                        str(r["bits"]),
                        str(BitErrors.from_row(r).rate()),
                    ]
                    for r in retry
                ],
            )
        )
    stats = pooled_latency(rows, split_energy=True)
    if stats:
        parts += [
            "",
            "## Latency and energy by operation",
            "",
            "energy: *measured* over the POWER window, or *estimated* from the profile's "
            "supply current x busy time.",
            "",
        ]
        parts.append(latency_markdown(stats))
    compute = compute_by_condition(rows)
    if compute:
        parts += [
            "",
            "## In-flash operations",
            "",
            "Each result is compared bit by bit with the operation evaluated on the host: "
            "reference *written* uses the data written (the operation's error rate), *read* "
            "what plain reads of the operands return (the scheme's logic alone). Sensings, "
            "busy time and energy are per operation on one WL (energy per KiB of result).",
            "",
        ]
        parts.append(_table(_COMPUTE_COLUMNS, compute))
    eye = [r for r in rows if r.get("operation") == "eye_window"]
    if eye:
        parts += ["", "## Data eye", "",
                  "Per byte lane, the capture delays after DQS that read the page register "
                  "with no more errors than the lane's best tap (the array's own errors).", ""]
        parts.append(_md_table(
            ["interface", "MT/s", "block", "lane", "window (ps)", "width (ps)", "floor"],
            [[f"{r['interface']} mode {r['timing_mode']}", f"{r['data_rate_mts']:g}",
              str(r["block"]), str(r["lane"]),
              f"{r['window_start_ps']:g} - {r['window_end_ps']:g}", f"{r['window_ps']:g}",
              f"{r['bit_errors']} in {r['bits']} bits"] for r in eye]))
    ff = sorted({int(r["pec"]) for r in rows if r.get("fast_forwarded") and r.get("pec")})
    if ff:
        parts += [
            "",
            f"Wear fast-forwarded on the virtual die (all but the last cycle) for P/E "
            f"{ff}; the dataset's fast_forwarded column says so per row.",
        ]
    summary = folder / SUMMARY
    write_atomic(summary, ("\n".join(parts) + "\n").encode())
    eye_plot = [data_eye(rows, folder / PLOTS / "data_eye.png", f"{meta['campaign']}: data eye")
                ] if eye else []
    return summary, _plots(folder / PLOTS, rows, rber, stats, meta) + _compute_plots(
        folder / PLOTS, compute, meta
    ) + eye_plot + analysis_report(folder, meta, rows)


def analysis_report(out: Path, meta: Mapping[str, Any], rows: list[dict[str, Any]]) -> list[Path]:
    """Run the campaign file's `analysis:` module, if it names one: report.md in `out`, and its
    plots in `out`/plots.

    The module (a paper reproduction's tables and figures) defines
    `report(rows, meta, plots_dir) -> (markdown, [plot paths])` and sees only the rows and
    run.json. It is found in the campaign file's folder, as run.json recorded it.
    """
    name = parse_campaign(meta["campaign_text"], meta["campaign_file"]).campaign.analysis
    if name is None:
        return []
    campaign_dir = meta.get("campaign_dir") or Path(meta["campaign_file"]).resolve().parent
    path = Path(campaign_dir) / name
    if not path.is_file():
        raise UsageError(f"the campaign's analysis {path} is missing: restore the campaign files")
    module_name = "nandlab_analysis_" + hashlib.sha256(str(path).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and pickling look their module up there
    spec.loader.exec_module(module)
    try:
        text, plots = module.report(rows, dict(meta), out / PLOTS)
    except ValueError as exc:  # the analysis found nothing of its figures in the rows
        raise UsageError(f"the campaign's analysis {path}: {exc}") from None
    write_atomic(out / REPORT, text.encode())
    return list(plots)


def _plots(
    folder: Path,
    rows: Sequence[Row],
    rber: list[dict[str, Any]],
    stats: list[dict[str, Any]],
    meta: Mapping[str, Any],
) -> list[Path]:
    out: list[Path] = []
    name = meta["campaign"]
    if rber:
        out.append(rber_vs_pec(rows, folder / "rber_vs_pec.png", f"{name}: RBER vs P/E cycles"))
        out.append(
            rber_vs_retention(
                rows, folder / "rber_vs_retention.png", f"{name}: RBER vs retention age"
            )
        )
    hist: dict[tuple[Any, ...], dict[str, dict[float, int]]] = defaultdict(
        lambda: defaultdict(dict)
    )
    for r in rows:
        if r.get("operation") == "vth" and r.get("vth_mV") is not None:
            key = (r.get("pec"), r.get("retention_label"), r["block"], r["wl"])
            hist[key][str(r["state"])][float(r["vth_mV"])] = int(r["cells"])
    for (pec, ret, block, wl), states in hist.items():
        series = [
            (s, np.array(sorted(v)), np.array([v[k] for k in sorted(v)]))
            for s, v in sorted(states.items())
        ]
        out.append(
            vth_histograms(
                series,
                folder / f"vth_pec{pec}_{_slug(ret)}_b{block}_wl{wl}.png",
                title=f"{name}: Vth per state, block {block} WL {wl}, P/E {pec}, {ret}",
            )
        )
    if stats:
        labels = [f"{s['operation']} {s['page_type']}" for s in stats]
        out.append(
            bars(
                labels,
                [s["mean_us"] for s in stats],
                folder / "latency.png",
                "mean busy time (µs)",
                f"{name}: latency by operation",
            )
        )
        measured = [s for s in stats if s["mean_energy_uJ"] is not None]
        if measured:
            out.append(
                bars(
                    [
                        f"{s['operation']} {s['page_type']}" + ("" if s["measured"] else " (est.)")
                        for s in measured
                    ],
                    [s["mean_energy_uJ"] for s in measured],
                    folder / "energy.png",
                    "mean energy per operation (µJ)",
                    f"{name}: energy by operation",
                )
            )
    return out


def _compute_plots(
    folder: Path, compute: list[dict[str, Any]], meta: Mapping[str, Any]
) -> list[Path]:
    """Latency and energy per in-flash operation (first condition of each), as bars."""
    if not compute:
        return []
    first: dict[tuple[str, str], dict[str, Any]] = {}
    for c in compute:
        if c["reference"] == "written":
            first.setdefault((c["scheme"], c["operation"]), c)
    labels = [f"{scheme} {op}" for scheme, op in first]
    name = meta["campaign"]
    out = [
        bars(
            labels,
            [c["latency_us"] for c in first.values()],
            folder / "compute_latency.png",
            "busy time per operation (µs)",
            f"{name}: in-flash operation latency",
        )
    ]
    if all(c["energy_uJ_per_KiB"] is not None for c in first.values()):
        out.append(
            bars(
                labels,
                [c["energy_uJ_per_KiB"] for c in first.values()],
                folder / "compute_energy.png",
                "energy per KiB of result (µJ/KiB)",
                f"{name}: in-flash operation energy",
            )
        )
    return out


def _slug(label: object) -> str:
    return str(label).replace("@", "at").replace("+", "_")
