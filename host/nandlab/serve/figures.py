"""The dashboard's interactive figures, built with Plotly from a run's rows.

Each function takes the rows (dicts, as `nandlab.dataset.run_arrow(...).to_pylist()`
gives them) and returns a `plotly.graph_objects.Figure`; the page draws its JSON with the
plotly.js that ships inside the plotly package. Rates and their 95 % intervals are
`nandlab.dataset.summary.pooled_rber`'s, the same numbers as the run's report.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from nandlab.campaign.report import compute_by_condition
from nandlab.dataset.summary import pooled_rber
from nandlab.errors import UsageError

Row = Mapping[str, Any]
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b")
LATENCY_OPS = ("read", "program", "erase")


def _figure(title: str, x: str, y: str, *, log_y: bool = False) -> go.Figure:
    fig = go.Figure()
    fig.update_layout(
        title=title,
        xaxis_title=x,
        yaxis_title=y,
        yaxis_type="log" if log_y else "linear",
        template="plotly_white",
        margin={"l": 60, "r": 20, "t": 50, "b": 50},
        legend={"orientation": "h", "y": -0.2},
    )
    return fig


def _no_data(fig: go.Figure, what: str) -> go.Figure:
    fig.add_annotation(text=f"no {what} rows in this run (yet)", showarrow=False,
                       xref="paper", yref="paper", x=0.5, y=0.5)
    return fig


def vth(rows: Iterable[Row]) -> go.Figure:
    """Vth histograms: cells per threshold-voltage bin (all states of a read summed), one
    curve per (P/E cycles, retention, block, word line)."""
    curves: dict[tuple[int, str, int, int], dict[float, int]] = defaultdict(
        lambda: defaultdict(int)
    )
    for r in rows:
        if r.get("operation") == "vth" and r.get("vth_mV") is not None:
            key = (int(r.get("pec") or 0), str(r.get("retention_label") or "fresh"),
                   int(r["block"]), int(r.get("wl") or 0))
            curves[key][float(r["vth_mV"])] += int(r.get("cells") or 0)
    fig = _figure("Vth distribution", "Vth (mV)", "cells per bin", log_y=True)
    for i, ((pec, ret, block, wl), bins) in enumerate(sorted(curves.items())):
        xs = sorted(bins)
        fig.add_trace(go.Scatter(
            x=xs, y=[bins[v] or None for v in xs], mode="lines",
            name=f"P/E {pec}, {ret}, block {block} WL {wl}",
            line={"color": COLOURS[i % len(COLOURS)], "shape": "hvh"},
        ))
    return fig if curves else _no_data(fig, "vth")


def _rate_curves(
    fig: go.Figure,
    points: Sequence[dict[str, Any]],
    group: Callable[[dict[str, Any]], str],
    x: Callable[[dict[str, Any]], float],
) -> go.Figure:
    """One line per group with its 95 % interval as a band. A point with no error has rate
    0, which a log axis cannot draw: it is a downward triangle at the interval's upper
    bound, and its band reaches down to the bottom of the plot."""
    positive = [p["rber_low"] for p in points if p["rber_low"] > 0]
    positive += [p["rber_high"] for p in points if p["rber_high"] > 0]
    floor = min(positive) / 10 if positive else 1e-12
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for p in points:
        groups[group(p)].append(p)
    for i, (name, pts) in enumerate(groups.items()):
        pts = sorted(pts, key=x)
        colour = COLOURS[i % len(COLOURS)]
        xs = [x(p) for p in pts]
        fig.add_trace(go.Scatter(x=xs, y=[p["rber_high"] for p in pts], mode="lines",
                                 line={"width": 0}, showlegend=False, hoverinfo="skip",
                                 legendgroup=name))
        fig.add_trace(go.Scatter(
            x=xs, y=[max(p["rber_low"], floor) for p in pts], mode="lines",
            line={"width": 0}, fill="tonexty", fillcolor=_transparent(colour),
            name=f"{name}: 95 % interval", legendgroup=name, hoverinfo="skip",
        ))
        fig.add_trace(go.Scatter(
            x=xs,
            y=[p["rber"] if p["rber"] else p["rber_high"] for p in pts],
            mode="lines+markers",
            marker={"symbol": ["circle" if p["rber"] else "triangle-down" for p in pts],
                    "size": 9},
            line={"color": colour},
            name=name,
            legendgroup=name,
            customdata=[p["rber_text"] for p in pts],
            hovertemplate="%{x}: %{customdata}<extra></extra>",
        ))
    return fig


def _transparent(colour: str) -> str:
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},0.2)"


def rber_vs_pec(rows: Iterable[Row]) -> go.Figure:
    """RBER vs P/E cycles, one line per (retention, page type), with 95 % bands."""
    points = pooled_rber(rows)
    fig = _figure("RBER vs P/E cycles", "P/E cycles", "RBER", log_y=True)
    if not points:
        return _no_data(fig, "rber")
    return _rate_curves(fig, points, lambda p: f"{p['retention']} {p['page_type']}",
                        lambda p: p["pec"])


def rber_vs_retention(rows: Iterable[Row]) -> go.Figure:
    """RBER vs retention age (hours at use temperature), one line per (P/E, page type)."""
    rows = list(rows)
    age = {str(r.get("retention_label") or "fresh"): float(r.get("retention_age_h") or 0.0)
           for r in rows if r.get("operation") == "rber"}
    points = pooled_rber(rows)
    fig = _figure("RBER vs retention", "retention age (h at use temperature)", "RBER",
                  log_y=True)
    if not points:
        return _no_data(fig, "rber")
    return _rate_curves(fig, points, lambda p: f"P/E {p['pec']} {p['page_type']}",
                        lambda p: age[p["retention"]])


def latency(rows: Iterable[Row]) -> go.Figure:
    """Histogram of busy times (R/B# low) per operation."""
    times: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        if r.get("operation") in LATENCY_OPS and r.get("latency_us") is not None:
            times[str(r["operation"])].append(float(r["latency_us"]))
    fig = _figure("Latency", "busy time (µs)", "operations")
    fig.update_layout(barmode="overlay")
    for i, op in enumerate(o for o in LATENCY_OPS if o in times):
        fig.add_trace(go.Histogram(x=times[op], name=f"{op} ({len(times[op])})", opacity=0.7,
                                   marker={"color": COLOURS[i]}))
    return fig if times else _no_data(fig, "latency")


def energy(rows: Iterable[Row]) -> go.Figure:
    """Histogram of energy per operation, measured (a POWER window) apart from datasheet
    estimates."""
    values: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        if r.get("operation") in LATENCY_OPS and r.get("energy_uJ") is not None:
            source = "measured" if r.get("energy_measured") else "estimate"
            values[f"{r['operation']} ({source})"].append(float(r["energy_uJ"]))
    fig = _figure("Energy per operation", "energy (µJ)", "operations")
    fig.update_layout(barmode="overlay")
    for i, name in enumerate(sorted(values)):
        fig.add_trace(go.Histogram(x=values[name], name=f"{name}: {len(values[name])}",
                                   opacity=0.7, marker={"color": COLOURS[i % len(COLOURS)]}))
    return fig if values else _no_data(fig, "energy")


def scheme_errors(rows: Iterable[Row]) -> go.Figure:
    """Bit error rate of in-flash operations per scheme, operation and cell mode, one
    series per (P/E, retention), with 95 % intervals as error bars (pooled as the
    campaign report's compute table pools them). A result with no error is a downward
    triangle at its interval's upper bound."""
    pooled = compute_by_condition(list(rows))
    fig = _figure("In-flash computing: bit errors", "scheme / operation / mode",
                  "bit error rate", log_y=True)
    series: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for p in pooled:
        series[f"P/E {p['pec']}, {p['retention']}"].append(p)
    for i, (name, pts) in enumerate(series.items()):
        ys = [p["rber"] if p["rber"] else p["rber_high"] for p in pts]
        fig.add_trace(go.Scatter(
            x=[f"{p['scheme']} {p['operation']} {p['mode']}" for p in pts],
            y=ys,
            mode="markers",
            name=name,
            marker={"symbol": ["circle" if p["rber"] else "triangle-down" for p in pts],
                    "size": 10, "color": COLOURS[i % len(COLOURS)]},
            error_y={"type": "data", "symmetric": False,
                     "array": [p["rber_high"] - y for p, y in zip(pts, ys, strict=True)],
                     "arrayminus": [y - p["rber_low"] for p, y in zip(pts, ys, strict=True)]},
            customdata=[p["rber_text"] for p in pts],
            hovertemplate="%{x}: %{customdata}<extra></extra>",
        ))
    return fig if pooled else _no_data(fig, "in-flash computing")


RUN_FIGURES: dict[str, Callable[[Iterable[Row]], go.Figure]] = {
    "vth": vth,
    "rber-pec": rber_vs_pec,
    "rber-retention": rber_vs_retention,
    "latency": latency,
    "energy": energy,
    "scheme-errors": scheme_errors,
}


def run_figure(name: str, rows: Iterable[Row]) -> go.Figure:
    """The named figure of a run (`RUN_FIGURES`); UsageError for an unknown name."""
    if name not in RUN_FIGURES:
        raise UsageError(f"no figure {name!r}: one of {', '.join(RUN_FIGURES)}")
    return RUN_FIGURES[name](rows)


BLOCKS_PER_ROW = 64


def wear_heatmap(
    chip: str, blocks: Sequence[Mapping[str, Any]], chip_blocks: int | None = None
) -> go.Figure:
    """P/E cycles per block as a heat map, 64 blocks per row, over the chip's
    `chip_blocks` when known (else up to the last worn block); blocks the ledger has no
    record of are blank (never erased by nandlab)."""
    fig = _figure(f"P/E cycles per block, chip {chip}", "block mod 64", "first block of the row")
    if not blocks:
        return _no_data(fig, "ledger")
    last = max([int(b["block"]) for b in blocks] + [(chip_blocks or 0) - 1])
    rows = last // BLOCKS_PER_ROW + 1
    z: list[list[int | None]] = [[None] * BLOCKS_PER_ROW for _ in range(rows)]
    text: list[list[str]] = [[""] * BLOCKS_PER_ROW for _ in range(rows)]
    for b in blocks:
        n = int(b["block"])
        z[n // BLOCKS_PER_ROW][n % BLOCKS_PER_ROW] = int(b["pec"])
        text[n // BLOCKS_PER_ROW][n % BLOCKS_PER_ROW] = f"block {n}"
    fig.add_trace(go.Heatmap(
        z=z, text=text, colorscale="Viridis", colorbar={"title": "P/E"},
        x=list(range(BLOCKS_PER_ROW)), y=[r * BLOCKS_PER_ROW for r in range(rows)],
        hovertemplate="%{text}: %{z} P/E cycles<extra></extra>",
    ))
    fig.update_yaxes(autorange="reversed")
    return fig
