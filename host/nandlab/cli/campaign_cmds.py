"""Characterization commands: vth, rber and the demo, each a campaign run by the one runner."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import click
import numpy as np

from nandlab.characterize.common import cell_states, page_type_names
from nandlab.characterize.demo_campaign import DEMO_RETENTION, demo_campaign
from nandlab.characterize.readback import DataSpec, wl_data
from nandlab.characterize.retention import parse_retention
from nandlab.characterize.vth import StateHistogram
from nandlab.characterize.wear import MAX_PEC
from nandlab.cli.common import (
    AddressList,
    dry_run_option,
    json_option,
    out_option,
    print_json,
    print_table,
    require_yes,
    stdout_console,
)
from nandlab.cli.oneoff import (
    OneOffRun,
    RunOptions,
    run_one_off,
    run_options,
    vth_states,
    vth_windows,
)
from nandlab.dataset.columns import PLOTS, SUMMARY
from nandlab.dataset.plots import rber_vs_pec, vth_histograms
from nandlab.dataset.summary import pooled_latency, pooled_rber, summary_markdown, vth_moments
from nandlab.errors import UsageError
from nandlab.paths import write_atomic
from nandlab.profiles import load_profile

URL = click.argument("url")
SEED = click.option("--seed", type=int, default=0, show_default=True, help="Random pattern seed.")
CODE_STEP_HELP = "DAC codes per Vth histogram bin (larger is faster and coarser)."


def _one_block(
    name: str, url: str, opts: RunOptions, block: int, seed: int, steps: list[Any]
) -> dict:
    """A campaign on one block; the campaign seed is the pattern seed, for run.json."""
    return {
        "name": name,
        "bench": url,
        "fresh": opts.fresh,
        "seed": seed,
        "blocks": [block],
        "steps": steps,
    }


def _dataset_line(run: OneOffRun) -> None:
    stdout_console().print(f"dataset: {run.run_dir} (nandlab report / export / resume take it)")


@click.command()
@URL
@click.option("--block", type=int, required=True, help="Block of the WL.")
@click.option("--wl", type=int, required=True, help="Word line in the block.")
@click.option(
    "--program/--no-program",
    "do_program",
    default=True,
    show_default=True,
    help="Erase the block and program the WL with --seed's random pattern first; with "
    "--no-program the WL must already hold that pattern.",
)
@SEED
@click.option(
    "--code-step", type=click.IntRange(1, 64), default=1, show_default=True, help=CODE_STEP_HELP
)
@run_options
def vth(
    url: str,
    block: int,
    wl: int,
    do_program: bool,
    seed: int,
    code_step: int,
    opts: RunOptions,
) -> None:
    """Measure one WL's Vth distribution over the read offsets.

    Every read reference's offset is swept; each step's count of cells that turn off is
    one histogram bin.

    \b
    Example:
      nandlab vth sim://mlc-64l --block 12 --wl 0 --code-step 8 --yes
    """
    if do_program and not opts.dry_run:
        require_yes(opts.yes, "vth --program (erases the block and programs the WL)")
    data = {"wls": [wl], "pattern": "random", "seed": seed}
    prepare = [{"erase": {}}, {"program": data}] if do_program else [{"holds": data}]
    measure = {"measure": {"what": ["vth"], "vth_wl": wl, "code_step": code_step}}
    run = run_one_off(
        _one_block("vth", url, opts, block, seed, [*prepare, measure]), opts, command="nandlab vth"
    )
    if run is None:  # --dry-run: the plan was printed
        return
    profile = load_profile(run.meta["profile"])
    written = cell_states(profile, wl_data(profile, DataSpec("random", seed), block, wl))
    cells = np.bincount(written, minlength=len(profile.geometry.gray_code))
    states = vth_states(run.rows, {f"L{s}": int(n) for s, n in enumerate(cells)})
    bin_mV = profile.read_offsets.step_mV * code_step
    windows = vth_windows(states, bin_mV)
    if opts.report:
        vth_histograms(
            [(_state_label(s), s.centers_mV, s.counts) for s in states],
            run.run_dir / "plots" / f"vth_b{block}_wl{wl}.png",
            title=f"{profile.name} block {block} WL {wl}",
            windows=windows,
        )
    if opts.as_json:
        print_json(
            {
                "block": block,
                "wl": wl,
                "step_mV": bin_mV,
                "windows": [{"reference": n, "low_mV": lo, "high_mV": hi} for n, lo, hi in windows],
                "states": [s.to_dict() for s in states],
                "run_dir": str(run.run_dir),
            }
        )
        return
    print_table(f"Vth of block {block} WL {wl} ({bin_mV:g} mV bins)", VTH_COLUMNS, states)
    _dataset_line(run)


def _state_label(s: StateHistogram, suffix: str = "") -> str:
    out = [f"{n} {what}" for n, what in ((s.below_range, "below"), (s.above_range, "above")) if n]
    return f"{s.name}{suffix}" + (f" ({', '.join(out)} range)" if out else "")


VTH_COLUMNS: dict[str, Callable[[StateHistogram], str]] = {
    "state": lambda s: s.name,
    "cells": lambda s: str(s.cells),
    "in range": lambda s: str(s.in_range),
    "below range": lambda s: str(s.below_range),
    "above range": lambda s: str(s.above_range),
    "mean mV": lambda s: f"{s.mean_mV:.0f}",
    "sigma mV": lambda s: f"{s.sigma_mV:.0f}",
}
RBER_COLUMNS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "condition": lambda a: (
        f"{a['pec']} P/E{' (ff)' if a['fast_forwarded'] else ''}, {a['retention']}"
    ),
    "page type": lambda a: a["page_type"],
    "bits": lambda a: f"{a['bits']:,}",
    "errors 0->1": lambda a: str(a["errors_0to1"]),
    "errors 1->0": lambda a: str(a["errors_1to0"]),
    "RBER": lambda a: a["rber_text"],
}
LATENCY_COLUMNS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "operation": lambda a: a["operation"],
    "page type": lambda a: a["page_type"],
    "n": lambda a: str(a["n"]),
    "mean µs": lambda a: f"{a['mean_us']:.1f}",
    "min µs": lambda a: f"{a['min_us']:.1f}",
    "max µs": lambda a: f"{a['max_us']:.1f}",
}


@click.command()
@URL
@click.option("--block", type=int, required=True, help="Block to wear and measure.")
@click.option(
    "--pec",
    type=int,
    required=True,
    help="P/E cycles to bring the block to, the program of this measurement being the last.",
)
@click.option("--retention", default=None, help="Retention before reading: AGE@TEMP, e.g. 1y@30C.")
@click.option(
    "--wl",
    "wl_list",
    type=AddressList(hi=(1 << 16) - 1),
    default="0-3",
    show_default=True,
    help="WLs to program and read, e.g. 0-3,8.",
)
@SEED
@run_options
def rber(
    url: str,
    block: int,
    pec: int,
    retention: str | None,
    wl_list: list[int],
    seed: int,
    opts: RunOptions,
) -> None:
    """Cycle a block, program WLs, age them, count bit errors.

    The block is brought to --pec P/E cycles (the program of this measurement being the
    last), its WLs aged by --retention, then read.

    \b
    Example:
      nandlab rber sim://mlc-64l --block 20 --pec 3000 --retention 1y@30C --wl 0-3 --yes
    """
    if not 1 <= pec <= MAX_PEC:
        raise UsageError(f"--pec {pec} is out of range: allowed 1..{MAX_PEC}")
    ret = parse_retention(retention) if retention is not None else None
    if not opts.dry_run:
        require_yes(opts.yes, "rber (cycles, erases and programs the block)")
    bake = [{"bake": {"retention": retention}}] if retention is not None else []
    steps = [
        {"cycle": {"pec": pec}},
        {"program": {"wls": wl_list, "pattern": "random", "seed": seed}},
        *bake,
        {"measure": {"what": ["rber"]}},
    ]
    run = run_one_off(
        _one_block("rber", url, opts, block, seed, steps), opts, command="nandlab rber"
    )
    if run is None:  # --dry-run: the plan was printed
        return
    pooled = pooled_rber(run.rows)
    if opts.as_json:
        print_json(
            {
                "block": block,
                "pec": pec,
                "retention": ret.label if ret else "fresh",
                "fast_forwarded": any(r.get("fast_forwarded") for r in run.rows),
                "summary": pooled,
                "pages": [r for r in run.rows if r.get("operation") == "rber"],
                "run_dir": str(run.run_dir),
            }
        )
        return
    print_table(f"RBER of block {block} ({len(wl_list)} WLs)", RBER_COLUMNS, pooled)
    _dataset_line(run)


@click.command()
@out_option(Path("runs"), "Folder in which the run directory is made.")
@click.option("--seed", type=int, default=1, show_default=True, help="Die and pattern seed.")
@click.option(
    "--wl-count",
    "wls",
    type=click.IntRange(1, 64),
    default=8,
    show_default=True,
    help="WLs programmed and read per block.",
)
@click.option(
    "--code-step", type=click.IntRange(1, 64), default=1, show_default=True, help=CODE_STEP_HELP
)
@dry_run_option
@json_option
def demo(out: Path, seed: int, wls: int, code_step: int, dry_run: bool, as_json: bool) -> None:
    """Demo campaign on a fresh virtual MLC: RBER and Vth vs P/E.

    RBER and Vth at 1/3K/10K P/E, fresh and after 1y@30C. Writes summary.md and its
    plots (RBER vs P/E; per P/E count the Vth fresh and after retention); `nandlab
    report RUN_DIR` writes the campaign report instead.

    \b
    Example:
      nandlab demo --out runs --wl-count 2 --code-step 8
    """
    t0 = time.perf_counter()
    run = run_one_off(
        demo_campaign(seed=seed, wls=wls, vth_code_step=code_step),
        RunOptions(out, report=False, yes=True, fresh=True, as_json=as_json, dry_run=dry_run),
        command="nandlab demo",
    )
    if run is None:  # --dry-run: the plan was printed
        return
    rows = run.rows
    profile = load_profile(run.meta["profile"])
    blocks = {int(r["pec"]): int(r["block"]) for r in rows if r.get("operation") == "erase"}
    (bake,) = [r for r in rows if r.get("operation") == "bake"]
    ff_s = sum(float(r.get("fast_forward_chip_s") or 0.0) for r in rows)
    sim_s = run.chip_time_s
    ea = profile.environment.activation_energy_eV
    retention = (
        f"retention {DEMO_RETENTION} = {bake['bake_h']:.1f} h at {bake['bake_temp_C']:g} °C "
        f"(virtual time; Arrhenius, Ea {ea} eV)"
    )
    plots = run.run_dir / PLOTS
    plots.mkdir(exist_ok=True)
    rber_vs_pec(
        rows, plots / "rber_vs_pec.png", f"{profile.name}: RBER vs P/E, fresh and {DEMO_RETENTION}"
    )
    _plot_demo_vth(rows, plots, profile.name)
    wall_s = time.perf_counter() - t0
    notes = [
        f"blocks (P/E -> block): {blocks}",
        retention,
        "energy_uJ is estimated from the profile's supply currents",
        f"simulated chip time (die clock advance) {sim_s:.3g} s, of which {ff_s:.3g} s "
        f"fast-forwarded P/E cycling; wall time {wall_s:.3g} s; the bake is virtual time",
    ]
    summary = summary_markdown(run.meta, rows, notes)
    write_atomic(run.run_dir / SUMMARY, summary.encode())
    moments = vth_moments(rows)
    pooled = pooled_rber(rows)
    if as_json:
        print_json(
            {
                "run_dir": str(run.run_dir),
                "blocks": blocks,
                "rber": pooled,
                "vth": _vth_by_condition(moments),
                "latency": pooled_latency(rows),
                "bake_h": bake["bake_h"],
                "simulated_chip_time_s": sim_s,
                "fast_forward_chip_time_s": ff_s,
                "operations_over_wall": (sim_s - ff_s) / wall_s,
                "wall_time_s": wall_s,
                "simulated_over_wall": sim_s / wall_s,
            }
        )
        return
    print_table(
        f"RBER, {wls} WLs x {len(page_type_names(profile))} page types "
        "per condition ((ff): wear fast-forwarded to N-1)",
        RBER_COLUMNS,
        pooled,
    )
    condition: dict[str, Callable[[Mapping[str, Any]], str]] = {
        "condition": lambda v: f"{v['pec']} P/E, {v['retention']}"
    }
    print_table(
        "Vth mean / sigma (mV) of one WL per condition",
        condition
        | {
            f"L{s}": (lambda v, state=f"L{s}": _mean_sigma(v.get(state)))
            for s in range(profile.geometry.states)
        },
        _vth_by_condition(moments),
        caption="cells inside the offset sweep range only (most of L0 lies below it)",
    )
    print_table("latency", LATENCY_COLUMNS, pooled_latency(rows))
    console = stdout_console()
    console.print(retention)
    _dataset_line(run)
    console.print(f"simulated chip time / wall time: {sim_s / wall_s:.3g}")
    console.print(
        f"  ({sim_s:.4g} s of die clock in {wall_s:.3g} s: {ff_s:.4g} s of fast-forwarded P/E "
        f"cycling and {sim_s - ff_s:.3g} s of operations run one by one "
        f"({(sim_s - ff_s) / wall_s:.2g}x wall); the {bake['bake_h']:.1f} h bake not counted)"
    )


def _mean_sigma(m: Mapping[str, Any] | None) -> str:
    return "-" if m is None else f"{m['mean_mV']:.0f} / {m['sigma_mV']:.0f}"


def _vth_by_condition(moments: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One entry per (P/E, retention), fresh first: state -> mean / sigma."""
    out: dict[tuple[int, str], dict[str, Any]] = {}
    for m in moments:
        v = out.setdefault(
            (m["pec"], m["retention"]), {"pec": m["pec"], "retention": m["retention"]}
        )
        v[m["state"]] = {"mean_mV": m["mean_mV"], "sigma_mV": m["sigma_mV"]}
    return [out[k] for k in sorted(out, key=lambda k: (k[0], k[1] != "fresh"))]


def _plot_demo_vth(rows: list[dict[str, Any]], folder: Path, profile: str) -> None:
    """Per P/E count, the Vth of its WL fresh (solid) and after retention (dashed)."""
    by_pec: dict[int, list[dict[str, Any]]] = {}
    for r in rows:
        if r.get("operation") == "vth" and r.get("vth_mV") is not None:
            by_pec.setdefault(int(r["pec"]), []).append(r)
    for pec, vrows in sorted(by_pec.items()):
        series, styles = [], []
        labels = sorted({str(r["retention_label"]) for r in vrows}, key=lambda x: x != "fresh")
        for label in labels:
            for state in sorted({str(r["state"]) for r in vrows}):
                bins = sorted(
                    (float(r["vth_mV"]), int(r["cells"]))
                    for r in vrows
                    if r["retention_label"] == label and r["state"] == state
                )
                series.append(
                    (
                        f"{state} {label}",
                        np.array([b[0] for b in bins]),
                        np.array([b[1] for b in bins]),
                    )
                )
                styles.append(
                    {"color": f"C{state[1:]}", "linestyle": "-" if label == "fresh" else "--"}
                )
        vth_histograms(
            series,
            folder / f"vth_pec{pec}.png",
            title=f"{profile}: Vth of one WL at {pec} P/E cycles",
            styles=styles,
        )


__all__ = ["demo", "rber", "vth"]
