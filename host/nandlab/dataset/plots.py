"""Plots of a run's measurements, as PNG files (Agg renderer, no display).

Figures are built with `matplotlib.figure.Figure` and the Agg canvas
directly, so nothing depends on pyplot's global backend or state.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from nandlab.analysis import Rate


def _save(fig: Figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    FigureCanvasAgg(fig)
    tmp = path.with_name(f".{path.stem}.tmp.png")
    fig.savefig(tmp, dpi=110, format="png")
    tmp.replace(path)
    return path


def rber_vs_pec(rows: Iterable[Mapping[str, Any]], path: str | Path, title: str = "") -> Path:
    """RBER (log y) vs P/E cycles, one line per (retention condition, page type).

    Uses rows with operation == "rber"; errors and bits are pooled per point, drawn with
    their 95 % Wilson interval; a point with no error is a downward triangle at the
    interval's upper bound (a bound, not a measured rate).
    """
    pooled = _pool_rber(
        rows,
        lambda r: (str(r.get("retention_label") or "fresh"), str(r.get("page_type"))),
        lambda r: int(r["pec"]),
    )
    fig = _rber_curves(pooled, lambda key: f"{key[0]}, {key[1]}", "P/E cycles")
    return _finish_rber(fig, title or "RBER vs P/E cycles", Path(path))


def _pool_rber(
    rows: Iterable[Mapping[str, Any]],
    line: Callable[[Mapping[str, Any]], tuple[Any, str]],
    x: Callable[[Mapping[str, Any]], float],
) -> dict[tuple[Any, str], dict[float, list[int]]]:
    """(errors, bits) of the rber rows, pooled per line key and x value."""
    pooled: dict[tuple[Any, str], dict[float, list[int]]] = defaultdict(dict)
    for r in rows:
        if r.get("operation") != "rber":
            continue
        acc = pooled[line(r)].setdefault(x(r), [0, 0])
        acc[0] += int(r["errors_0to1"]) + int(r["errors_1to0"])
        acc[1] += int(r["bits"])
    return pooled


def _rber_curves(
    pooled: dict[tuple[Any, str], dict[float, list[int]]],
    label: Callable[[tuple[Any, str]], str],
    xlabel: str,
) -> Figure:
    """One line per key with 95 % Wilson error bars; a point with no error is a downward
    triangle at its interval's upper bound."""
    fig = Figure(figsize=(7, 4.5))
    ax = fig.add_subplot()
    for key, points in sorted(pooled.items()):
        xs = sorted(points)
        plot_rates(ax, xs, [(points[x][0], points[x][1]) for x in xs], label=label(key))
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("raw bit error rate (errors / bit)")
    return fig


def plot_rates(
    ax: Any,
    xs: Sequence[float],
    counts: Sequence[tuple[int, int]],
    *,
    label: str,
    linestyle: str = "-",
    color: str | None = None,
) -> str:
    """Error rates (errors, bits) at `xs` on `ax`: measured points with 95 % Wilson error
    bars, joined; a point with no error is a downward triangle at its interval's upper
    bound (a bound, not a measured rate). Points with no bits are left out. Returns the
    colour used, so callers can match other marks to the line."""
    rates = [(x, Rate(e, n)) for x, (e, n) in zip(xs, counts, strict=True) if n > 0]
    measured = [(x, r) for x, r in rates if r.errors > 0]
    drawn = ax.errorbar(
        [x for x, _ in measured],
        [r.errors / r.bits for _, r in measured],
        yerr=[
            [r.errors / r.bits - r.low for _, r in measured],
            [r.high - r.errors / r.bits for _, r in measured],
        ],
        marker="o", ms=3, capsize=2, linestyle=linestyle, color=color, label=label,
    )
    used = to_hex(drawn.lines[0].get_color())
    zero = [(x, r) for x, r in rates if r.errors == 0]
    if zero:
        ax.plot(
            [x for x, _ in zero], [r.high for _, r in zero], linestyle="none", marker="v",
            mfc="none", color=used, label=f"{label}: 0 errors (below the 95 % upper bound)",
        )
    return used


def _finish_rber(fig: Figure, title: str, path: Path) -> Path:
    ax = fig.axes[0]
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return _save(fig, path)


def vth_histograms(
    states: Sequence[tuple[str, np.ndarray, np.ndarray]],
    path: str | Path,
    title: str = "",
    windows: Sequence[tuple[str, float, float]] = (),
    styles: Sequence[Mapping[str, Any]] = (),
) -> Path:
    """One histogram per state (log y): `states` holds (name, bin centers mV, counts).

    `windows` (reference name, low mV, high mV) are shaded to show which
    voltages each reference's offset sweep covered. `styles`, if given, holds
    matplotlib line keywords per series (e.g. color, linestyle).
    """
    fig = Figure(figsize=(10, 4.8))
    ax = fig.add_subplot()
    for i, (lo_name, lo, hi) in enumerate(windows):
        ax.axvspan(lo, hi, color="grey", alpha=0.06 + 0.05 * (i % 2), lw=0)
        ax.text(
            (lo + hi) / 2,
            1.0,
            lo_name,
            transform=ax.get_xaxis_transform(),
            ha="center",
            va="bottom",
            fontsize=7,
        )
    for i, (name, centers, counts) in enumerate(states):
        c = np.asarray(counts, dtype=float)
        if c.sum() <= 0:
            continue
        style = dict(styles[i]) if i < len(styles) else {}
        ax.step(np.asarray(centers), np.where(c > 0, c, np.nan), where="mid", label=name, **style)
    ax.set_yscale("log")
    ax.set_xlabel("threshold voltage Vth (mV)")
    ax.set_ylabel("cells per bin")
    ax.set_title(title or "Vth distribution", pad=14)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.tight_layout()
    return _save(fig, Path(path))


def rber_vs_retention(rows: Iterable[Mapping[str, Any]], path: str | Path, title: str = "") -> Path:
    """RBER (log y) vs retention age (hours at use temperature, log x; fresh drawn at 0.1 h),
    one line per (P/E, page type). Points with no error are downward triangles at their
    95 % upper bound."""
    pooled = _pool_rber(
        rows,
        lambda r: (int(r.get("pec") or 0), str(r.get("page_type"))),
        lambda r: max(float(r.get("retention_age_h") or 0.0), 0.1),
    )
    fig = _rber_curves(
        pooled,
        lambda key: f"P/E {key[0]}, {key[1]}",
        "retention age (hours at use temperature; fresh shown at 0.1 h)",
    )
    fig.axes[0].set_xscale("log")
    return _finish_rber(fig, title or "RBER vs retention", Path(path))


def bars(
    labels: Sequence[str], values: Sequence[float], path: str | Path, ylabel: str, title: str
) -> Path:
    """A labelled bar chart (e.g. latency or energy per operation), value printed on each bar."""
    fig = Figure(figsize=(max(6, 0.9 * len(labels) + 2), 4.5))
    ax = fig.add_subplot()
    x = np.arange(len(labels))
    drawn = ax.bar(x, values, color="tab:blue")
    ax.bar_label(drawn, fmt="%.3g", fontsize=7)
    ax.set_xticks(x, labels, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    return _save(fig, Path(path))


def data_eye(rows: Iterable[Mapping[str, Any]], path: str | Path, title: str = "") -> Path:
    """Bit errors vs capture delay, one panel per interface mode and one line per byte lane,
    the lane's pass window shaded (rows eye_scan and eye_window of the eye step)."""
    rows = list(rows)
    modes = sorted({(str(r["interface"]), int(r["timing_mode"])) for r in rows
                    if r.get("operation") == "eye_window"})
    fig = Figure(figsize=(7, 2.6 * max(1, len(modes)) + 0.6))
    for k, (iface, mode) in enumerate(modes):
        ax = fig.add_subplot(len(modes), 1, k + 1)
        mine = [r for r in rows if (r.get("interface"), r.get("timing_mode")) == (iface, mode)]
        for lane in sorted({int(r["lane"]) for r in mine}):
            scan = sorted((float(r["capture_delay_ps"]), int(r["bit_errors"])) for r in mine
                          if r["operation"] == "eye_scan" and r["lane"] == lane)
            color = f"C{lane % 10}"
            ax.plot([s[0] for s in scan], [s[1] for s in scan], color=color,
                    label=f"lane {lane}")
            for w in (r for r in mine if r["operation"] == "eye_window" and r["lane"] == lane):
                ax.axvspan(float(w["window_start_ps"]), float(w["window_end_ps"]), color=color,
                           alpha=0.15)
        rate = next(float(r["data_rate_mts"]) for r in mine)
        ax.set_yscale("symlog", linthresh=1)
        ax.set_ylabel("bit errors")
        ax.set_title(f"{iface} mode {mode} ({rate:g} MT/s)", fontsize=9)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    if modes:
        fig.axes[-1].set_xlabel("capture delay after the DQS edge (ps)")
    fig.suptitle(title or "data eye")
    fig.tight_layout()
    return _save(fig, Path(path))
