"""Summaries of measurement rows: pooled RBER, latency, Vth moments, summary.md (the
arithmetic is `nandlab.analysis`'s)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from nandlab.analysis import LatencyStats, pool_bit_errors

Row = Mapping[str, Any]


def pooled_rber(rows: Iterable[Row]) -> list[dict[str, Any]]:
    """Pool rows with operation "rber" per (pec, retention, page type), in measuring order;
    the RBER with its 95 % interval (`nandlab.analysis.Rate`)."""
    flags: dict[tuple[int, str, str], bool] = {}

    def key(r: Row) -> tuple[int, str, str] | None:
        if r.get("operation") != "rber":
            return None
        k = (int(r["pec"]), str(r.get("retention_label") or "fresh"), str(r["page_type"]))
        flags.setdefault(k, bool(r.get("fast_forwarded")))
        return k

    return [
        {
            "pec": k[0],
            "retention": k[1],
            "page_type": k[2],
            "fast_forwarded": flags[k],
            "pages": n,
            **e.as_row(),
            **e.rate_columns(),
        }
        for k, (e, n) in pool_bit_errors(rows, key).items()
    ]


def pooled_latency(rows: Iterable[Row], *, split_energy: bool = False) -> list[dict[str, Any]]:
    """Latency statistics (µs) and mean energy (µJ) per operation and page type, in measuring
    order; with `split_energy`, also per energy source (`measured`: a POWER window, else the
    datasheet estimate), sorted."""
    acc: dict[tuple[str, str, bool], list[tuple[float, float | None]]] = defaultdict(list)
    for r in rows:
        if r.get("operation") in ("read", "program", "erase") and r.get("latency_us") is not None:
            measured = split_energy and bool(r.get("energy_measured"))
            key = (str(r["operation"]), str(r.get("page_type") or "-"), measured)
            acc[key].append((float(r["latency_us"]), r.get("energy_uJ")))
    out = []
    for (op, page_type, measured), values in sorted(acc.items()) if split_energy else acc.items():
        lat = LatencyStats.of(v[0] for v in values)
        energy = [float(v[1]) for v in values if v[1] is not None]
        out.append(
            {
                "operation": op,
                "page_type": page_type,
                **({"measured": measured} if split_energy else {}),
                "n": lat.n,
                "mean_us": lat.mean_us,
                "min_us": lat.min_us,
                "p99_us": lat.p99_us,
                "max_us": lat.max_us,
                "mean_energy_uJ": sum(energy) / len(energy) if energy else None,
            }
        )
    return out


def vth_moments(rows: Iterable[Row]) -> list[dict[str, Any]]:
    """Mean and sigma (mV) per (pec, retention, block, wl, state) from "vth" histogram rows."""
    acc: dict[tuple[int, str, int, int, str], list[tuple[float, int]]] = defaultdict(list)
    for r in rows:
        if r.get("operation") == "vth" and r.get("vth_mV") is not None:
            key = (
                int(r.get("pec") or 0),
                str(r.get("retention_label") or "fresh"),
                int(r["block"]),
                int(r["wl"]),
                str(r["state"]),
            )
            acc[key].append((float(r["vth_mV"]), int(r["cells"])))
    out = []
    for (pec, retention, block, wl, state), bins in acc.items():
        n = sum(c for _, c in bins)
        if n == 0:
            continue
        mean = sum(v * c for v, c in bins) / n
        var = sum(c * (v - mean) ** 2 for v, c in bins) / n
        out.append(
            {
                "pec": pec,
                "retention": retention,
                "block": block,
                "wl": wl,
                "state": state,
                "cells_in_range": n,
                "mean_mV": mean,
                "sigma_mV": var**0.5,
            }
        )
    return out


def _md_table(header: list[str], body: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    return "\n".join(lines)


def summary_markdown(
    meta: Mapping[str, Any], rows: Sequence[Row], notes: Iterable[str] = ()
) -> str:
    """The run's summary.md: what ran, then RBER, Vth and latency tables."""
    parts = [f"# {meta.get('command', 'nandlab run')}", ""]
    for key in ("profile", "bench_url", "seed", "nandlab_version", "start_utc", "stop_utc"):
        if meta.get(key) is not None:
            parts.append(f"- {key}: `{meta[key]}`")
    parts.append(f"- measurement rows: {len(rows)}")
    parts += [f"- {n}" for n in notes]
    rber = pooled_rber(rows)
    if rber:
        parts += ["", "## Raw bit error rate", ""]
        parts.append(
            _md_table(
                ["P/E", "retention", "page type", "bits", "errors 0->1", "errors 1->0", "RBER"],
                [
                    [
                        str(a["pec"]) + (" (ff)" if a["fast_forwarded"] else ""),
                        a["retention"],
                        a["page_type"],
                        f"{a['bits']}",
                        str(a["errors_0to1"]),
                        str(a["errors_1to0"]),
                        a["rber_text"],
                    ]
                    for a in rber
                ],
            )
        )
        parts.append("")
        parts.append("(ff): wear fast-forwarded to N-1 cycles on the virtual die, last cycle real.")
    moments = vth_moments(rows)
    if moments:
        parts += ["", "## Vth distribution (cells inside the offset sweep range)", ""]
        parts.append(
            _md_table(
                ["P/E", "retention", "block", "WL", "state", "cells", "mean mV", "sigma mV"],
                [
                    [
                        str(m["pec"]),
                        m["retention"],
                        str(m["block"]),
                        str(m["wl"]),
                        m["state"],
                        str(m["cells_in_range"]),
                        f"{m['mean_mV']:.0f}",
                        f"{m['sigma_mV']:.0f}",
                    ]
                    for m in moments
                ],
            )
        )
    latency = pooled_latency(rows)
    if latency:
        parts += ["", "## Latency", "", latency_markdown(latency)]
    return "\n".join(parts) + "\n"


def latency_markdown(stats: Sequence[Mapping[str, Any]]) -> str:
    """The table of `pooled_latency` rows (with an energy-source column when they have one)."""
    split = any("measured" in s for s in stats)
    header = ["operation", "page type", *(["energy"] if split else [])]
    header += ["n", "mean µs", "min µs", "p99 µs", "max µs", "mean energy µJ"]
    body = [
        [
            s["operation"],
            s["page_type"],
            *(["measured" if s["measured"] else "estimated"] if split else []),
            str(s["n"]),
            f"{s['mean_us']:.1f}",
            f"{s['min_us']:.1f}",
            f"{s['p99_us']:.1f}",
            f"{s['max_us']:.1f}",
            "-" if s["mean_energy_uJ"] is None else f"{s['mean_energy_uJ']:.3f}",
        ]
        for s in stats
    ]
    return _md_table(header, body)
