"""One-off measurements are campaigns: a command builds one, runs it through the campaign
runner and reads the rows back, so its run folder is one that `nandlab report`, `export` and
`resume` take like any `nandlab run`'s."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from nandlab.characterize.vth import StateHistogram
from nandlab.cli.common import StepBars
from nandlab.errors import UsageError

Row = Mapping[str, Any]
RUN_OUT_HELP = "Folder in which the run directory is made."
REPORT_HELP = "Also write summary.md and plots/ (as `nandlab report RUN_DIR` does later)."


@dataclass(frozen=True)
class OneOffRun:
    """A finished one-off run: its folder, run.json, rows and times (chip time: die clock)."""

    run_dir: Path
    meta: dict[str, Any]
    rows: list[dict[str, Any]]
    chip_time_s: float
    wall_s: float


def run_one_off(
    campaign: Mapping[str, Any], out: Path, *, command: str, progress: bool, report: bool
) -> OneOffRun:
    """Validate the campaign mapping, run it into a new folder under `out` and return the
    rows; with `report`, also write its summary.md and plots (as `nandlab report` does)."""
    from nandlab.campaign.report import report as write_report
    from nandlab.campaign.runner import read_meta, run_campaign
    from nandlab.campaign.schema import Campaign

    try:
        model = Campaign.model_validate(campaign)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise UsageError(f"{where}: {str(err['msg']).removeprefix('Value error, ')}") from None
    t0 = time.perf_counter()
    with StepBars(progress) as bars:
        result = run_campaign(model, out, on_progress=bars, command=command)
    if report:
        write_report(result.run_dir)
    return OneOffRun(
        result.run_dir,
        read_meta(result.run_dir),
        result.rows(),
        result.chip_time_ns / 1e9,
        time.perf_counter() - t0,
    )


def vth_states(rows: Iterable[Row], cells: Mapping[str, int]) -> list[StateHistogram]:
    """Per-state histograms of one WL from its "vth" rows; `cells` = state -> cells written."""
    bins: dict[str, dict[float, int]] = defaultdict(dict)
    beyond: dict[tuple[str, str], int] = {}
    refs: dict[tuple[str, float], str] = {}
    for r in rows:
        if r.get("operation") != "vth":
            continue
        state = str(r["state"])
        if r.get("vth_mV") is None:
            beyond[(state, str(r["reference"]))] = int(r["cells"])
        else:
            bins[state][float(r["vth_mV"])] = int(r["cells"])
            refs[(state, float(r["vth_mV"]))] = str(r.get("reference"))
    out = []
    for i, name in enumerate(sorted(cells)):
        centers = sorted(bins[name])
        out.append(
            StateHistogram(
                state=i,
                name=name,
                cells=cells[name],
                centers_mV=np.array(centers, dtype=float),
                counts=np.array([bins[name][c] for c in centers], dtype=np.int64),
                below_range=beyond.get((name, "below range"), 0),
                above_range=beyond.get((name, "above range"), 0),
                references=[refs[(name, c)] for c in centers],
            )
        )
    return out


def vth_windows(states: list[StateHistogram], bin_mV: float) -> list[tuple[str, float, float]]:
    """(reference, low mV, high mV) each reference's sweep measured, from its bins."""
    span: dict[str, list[float]] = defaultdict(list)
    for s in states:
        for ref, center in zip(s.references, s.centers_mV.tolist(), strict=True):
            span[ref].append(center)
    return sorted(
        ((ref, min(c) - bin_mV / 2, max(c) + bin_mV / 2) for ref, c in span.items()),
        key=lambda w: w[1],
    )
