"""One-off measurements are campaigns: a command builds one, runs it through the campaign
runner and reads the rows back, so its run folder is one that `nandlab report`, `export` and
`resume` take like any `nandlab run`'s."""

from __future__ import annotations

import functools
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import numpy as np
from pydantic import ValidationError

from nandlab.characterize.vth import StateHistogram
from nandlab.cli.common import (
    StepBars,
    dry_run_option,
    fresh_option,
    json_option,
    out_option,
    yes_option,
)
from nandlab.errors import UsageError

Row = Mapping[str, Any]


@dataclass(frozen=True)
class RunOptions:
    """What every one-off measurement takes: --out, --report, --yes, --fresh, --json,
    --dry-run."""

    out: Path
    report: bool
    yes: bool
    fresh: bool
    as_json: bool
    dry_run: bool = False


def run_options(command: Callable[..., None]) -> Callable[..., None]:
    """Add --out, --report, --yes, --fresh, --json and --dry-run; the command gets them as
    `opts`."""

    @functools.wraps(command)
    def with_options(
        *args: Any,
        out: Path,
        report: bool,
        yes: bool,
        fresh: bool,
        as_json: bool,
        dry_run: bool,
        **kw: Any,
    ) -> None:
        command(*args, opts=RunOptions(out, report, yes, fresh, as_json, dry_run), **kw)

    options = (
        dry_run_option,
        json_option,
        fresh_option,
        yes_option,
        click.option(
            "--report",
            is_flag=True,
            help="Also write summary.md and plots/ (as `nandlab report RUN_DIR` does later).",
        ),
        out_option(Path("runs"), "Folder in which the run directory is made."),
    )
    return functools.reduce(lambda f, option: option(f), options, with_options)


@dataclass(frozen=True)
class OneOffRun:
    """A finished one-off run: its folder, run.json, rows and times (chip time: die clock)."""

    run_dir: Path
    meta: dict[str, Any]
    rows: list[dict[str, Any]]
    chip_time_s: float
    wall_s: float


def run_one_off(campaign: Mapping[str, Any], opts: RunOptions, *, command: str) -> OneOffRun | None:
    """Validate the campaign mapping, run it into a new folder under `opts.out` and return
    the rows; with `opts.report`, also write its summary.md and plots (as `nandlab report`).
    With `opts.dry_run`, print its plan instead and return None."""
    from nandlab.campaign.report import report as write_report
    from nandlab.campaign.runner import read_meta, run_campaign
    from nandlab.campaign.schema import Campaign

    try:
        model = Campaign.model_validate(campaign)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise UsageError(f"{where}: {str(err['msg']).removeprefix('Value error, ')}") from None
    if opts.dry_run:
        from nandlab.campaign.schema import campaign_text, parse_campaign
        from nandlab.cli.plan import campaign_plan, show

        loaded = parse_campaign(campaign_text(model), command)
        show(campaign_plan(loaded, None, command), opts.as_json)
        return None
    t0 = time.perf_counter()
    with StepBars(not opts.as_json) as bars:
        result = run_campaign(model, opts.out, on_progress=bars, command=command)
    if opts.report:
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
