"""Plots and summaries of measurement rows."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from nandlab.analysis import format_rate
from nandlab.dataset.plots import rber_vs_pec, vth_histograms
from nandlab.dataset.summary import pooled_rber, summary_markdown

PNG = b"\x89PNG\r\n\x1a\n"


def _rows():
    rows = []
    for pec, errors in ((0, 0), (3000, 5), (10000, 90)):
        for label in ("fresh", "1y@30C"):
            rows.append(
                {
                    "operation": "rber",
                    "pec": pec,
                    "retention_label": label,
                    "page_type": "LSB",
                    "bits": 1000,
                    "errors_0to1": errors,
                    "errors_1to0": 1 if errors else 0,
                    "fast_forwarded": pec > 1,
                }
            )
    rows.append({"operation": "read", "page_type": "LSB", "latency_us": 40.0, "energy_uJ": 3.0})
    return rows


def test_rber_plot_and_zero_as_bits(tmp_path: Path):
    path = rber_vs_pec(_rows(), tmp_path / "plots" / "rber.png")
    assert path.read_bytes()[:8] == PNG
    pooled = pooled_rber(_rows())
    zero = [a for a in pooled if a["pec"] == 0]
    assert zero[0]["rber_text"] == "0 in 1e+03 bits"
    assert format_rate(3, 1000) == "3.00e-03"


def test_vth_plot(tmp_path: Path):
    centers = np.arange(-500.0, 4000.0, 10.0)
    states = [
        (f"L{i}", centers, np.exp(-(((centers - m) / 100) ** 2)) * 1000)
        for i, m in enumerate((-300, 700, 2000, 3300))
    ]
    path = vth_histograms(states, tmp_path / "vth.png", windows=[("VREF0", -500, 675)])
    assert path.read_bytes()[:8] == PNG


def test_summary_markdown_has_tables():
    text = summary_markdown({"command": "demo", "profile": "mlc-64l"}, _rows())
    assert "# demo" in text and "| P/E |" in text and "## Latency" in text
    assert "0 in 1e+03 bits" in text


def test_zero_errors_are_drawn_as_upper_bounds_not_at_one_over_n() -> None:
    from nandlab.analysis import Rate
    from nandlab.dataset.plots import _pool_rber, _rber_curves

    pooled = _pool_rber(_rows(), lambda r: (r["retention_label"], "LSB"), lambda r: r["pec"])
    fig = _rber_curves(pooled, str, "P/E")
    bounds = [
        line for line in fig.axes[0].get_lines() if line.get_marker() == "v"
    ]
    assert len(bounds) == 2  # one per retention condition, each at P/E 0
    upper = Rate(0, 1000).high  # Wilson 95 %: z^2 / (n + z^2), about 3.8e-3
    assert abs(upper - 3.84 / 1003.84) < 1e-5
    for line in bounds:
        assert list(line.get_xdata()) == [0]
        assert list(line.get_ydata()) == [upper]
    measured = [line for line in fig.axes[0].get_lines() if line.get_marker() == "o"]
    assert sorted(measured[0].get_xdata()) == [3000, 10000]
