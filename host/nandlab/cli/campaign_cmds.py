"""Characterization commands: vth, rber and the demo campaign."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.table import Table

from nandlab.characterize.common import page_type_names
from nandlab.characterize.demo_campaign import DEMO_PROFILE, DemoConfig, run_demo
from nandlab.characterize.rber import check_wls, measure_rber, program_wls, wl_pattern
from nandlab.characterize.retention import RETENTION_FORM, bake_hours, parse_retention
from nandlab.characterize.vth import StateHistogram, VthResult, measure_vth
from nandlab.characterize.wear import check_pec, cycle_block
from nandlab.cli.common import (
    ProgressBars,
    fresh_option,
    json_option,
    open_chip,
    parse_wls,
    print_json,
    require_yes,
    stdout_console,
    yes_option,
)
from nandlab.dataset import RunWriter, new_run_dir
from nandlab.dataset.plots import rber_vs_pec, vth_histograms
from nandlab.dataset.summary import format_rate, pooled_latency, pooled_rber, summary_markdown
from nandlab.errors import AddressError, UnsupportedCapability
from nandlab.transport.url import with_fresh

if TYPE_CHECKING:
    from nandlab.onfi.chip import Chip
    from nandlab.transport.base import Transport

URL = click.argument("url")
OUT = click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder in which to write the run directory (dataset, plots).",
)


def _run_meta(command: str, url: str, transport: Transport, chip: Chip, **extra: Any) -> dict:
    ident = chip.identification
    profile = chip.profile
    return {
        "command": command,
        "bench_url": transport.url,
        "requested_url": url,
        "profile": profile.name,
        "chips": [
            {
                "ce": chip.ce,
                "id_bytes": ident.id_bytes.hex(),
                "manufacturer": ident.manufacturer,
                "model": ident.model,
                "unique_id": ident.unique_id,
            }
        ],
        "temperatures_C": {
            "ambient": profile.environment.ambient_temp_C,
            "bake": profile.environment.bake_temp_C,
        },
        **extra,
    }


def _vth_plot(result: VthResult, path: Path, title: str) -> Path:
    return vth_histograms(
        [(_state_label(s), s.centers_mV, s.counts) for s in result.states],
        path,
        title=title,
        windows=result.windows,
    )


def _state_label(s: StateHistogram, suffix: str = "") -> str:
    out = [f"{n} {what}" for n, what in ((s.below_range, "below"), (s.above_range, "above")) if n]
    return f"{s.name}{suffix}" + (f" ({', '.join(out)} range)" if out else "")


def _vth_table(result: VthResult, title: str) -> Table:
    table = Table(title=title)
    for col in ("state", "cells", "in range", "below range", "above range", "mean mV", "sigma mV"):
        table.add_column(col, justify="right")
    for s in result.states:
        table.add_row(
            s.name,
            str(s.cells),
            str(s.in_range),
            str(s.below_range),
            str(s.above_range),
            f"{s.mean_mV:.0f}",
            f"{s.sigma_mV:.0f}",
        )
    return table


def _check_block(chip: Chip, block: int) -> None:
    blocks = chip.geometry.blocks
    if not 0 <= block < blocks:
        raise AddressError(f"block {block} is outside the die: allowed 0..{blocks - 1}")


@click.command()
@URL
@click.option("--block", type=int, required=True)
@click.option("--wl", type=int, required=True, help="Word line in the block.")
@click.option(
    "--program/--no-program",
    "do_program",
    default=True,
    show_default=True,
    help="Erase the block and program the WL with --seed's random pattern first; with "
    "--no-program the WL must already hold that pattern.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Random pattern seed.")
@click.option(
    "--step",
    "code_step",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="DAC codes per histogram bin.",
)
@OUT
@yes_option
@fresh_option
@json_option
def vth(
    url: str,
    block: int,
    wl: int,
    do_program: bool,
    seed: int,
    code_step: int,
    out: Path | None,
    yes: bool,
    fresh: bool,
    as_json: bool,
) -> None:
    """Measure one WL's Vth distribution by sweeping every read-reference offset."""
    if do_program:
        require_yes(yes, "vth --program (erases the block and programs the WL)")
    with open_chip(url, fresh) as (transport, chip), ProgressBars(not as_json) as bars:
        profile = chip.profile
        _check_block(chip, block)
        check_wls(profile, [wl])
        written = wl_pattern(profile, block, wl, seed=seed)
        if do_program:
            chip.erase_block(block)
            program_wls(chip, profile, block, [wl], seed=seed)
        result = measure_vth(chip, profile, block, wl, written, code_step=code_step, progress=bars)
        run_dir = None
        if out is not None:
            run_dir = new_run_dir(out, "vth")
            writer = RunWriter(
                run_dir,
                _run_meta(
                    "vth",
                    url,
                    transport,
                    chip,
                    seed=seed,
                    block=block,
                    wl=wl,
                    programmed=do_program,
                ),
            )
            writer.append(
                result.rows(
                    {
                        "step": "vth",
                        "chip": chip.identification.unique_id,
                        "ce": chip.ce,
                        "pattern": "random",
                        "seed": seed,
                        "temp_C": profile.environment.ambient_temp_C,
                    }
                )
            )
            _vth_plot(
                result,
                writer.plots_dir / f"vth_b{block}_wl{wl}.png",
                f"{profile.name} block {block} WL {wl}",
            )
            writer.close()
            writer.write_summary(summary_markdown(writer.meta, writer.rows))
    if as_json:
        print_json({**result.to_dict(), "run_dir": str(run_dir) if run_dir else None})
        return
    console = stdout_console()
    console.print(_vth_table(result, f"Vth of block {block} WL {wl} ({result.reads} page reads)"))
    if run_dir is not None:
        console.print(f"dataset: {run_dir}")


def _rber_table(pooled: list[dict[str, Any]], title: str) -> Table:
    table = Table(title=title)
    for col in ("condition", "page type", "bits", "errors 0->1", "errors 1->0", "RBER"):
        table.add_column(col, justify="right")
    for a in pooled:
        ff = " (ff)" if a["fast_forwarded"] else ""
        table.add_row(
            f"{a['pec']} P/E{ff}, {a['retention']}",
            a["page_type"],
            f"{a['bits']:,}",
            str(a["errors_0to1"]),
            str(a["errors_1to0"]),
            a["rber_text"],
        )
    return table


@click.command()
@URL
@click.option("--block", type=int, required=True)
@click.option("--pec", type=int, required=True, help="P/E cycles to bring the block to.")
@click.option("--retention", default=None, help=f"Retention before reading: {RETENTION_FORM}.")
@click.option("--wls", default="0-3", show_default=True, help="WLs to program and read.")
@click.option("--seed", type=int, default=0, show_default=True, help="Random pattern seed.")
@OUT
@yes_option
@fresh_option
@json_option
def rber(
    url: str,
    block: int,
    pec: int,
    retention: str | None,
    wls: str,
    seed: int,
    out: Path | None,
    yes: bool,
    fresh: bool,
    as_json: bool,
) -> None:
    """Cycle a block to --pec P/E cycles, program WLs, age them (--retention), count bit errors."""
    check_pec(pec)
    ret = parse_retention(retention) if retention is not None else None
    wl_list = parse_wls(wls)
    require_yes(yes, "rber (cycles, erases and programs the block)")
    with open_chip(url, fresh) as (transport, chip), ProgressBars(not as_json) as bars:
        profile = chip.profile
        _check_block(chip, block)
        check_wls(profile, wl_list)
        if ret is not None and not transport.supports("bake"):
            raise UnsupportedCapability(
                f"--retention needs a bake, which bench {transport.url} cannot do"
            )
        base: dict[str, Any] = {
            "step": "rber",
            "chip": chip.identification.unique_id,
            "ce": chip.ce,
            "pec": pec,
            "temp_C": profile.environment.ambient_temp_C,
            "pattern": "random",
            "seed": seed,
        }
        wear = cycle_block(
            transport, chip, profile, block, pec, ce=chip.ce, seed=seed, base=base, progress=bars
        )
        base.update(
            fast_forwarded=wear.fast_forwarded, fast_forwarded_cycles=wear.fast_forwarded_cycles
        )
        written, rows = program_wls(
            chip, profile, block, wl_list, seed=seed, base=base, progress=bars
        )
        rows.insert(0, wear.erase_row)
        base.update(retention_age_h=0.0, retention_label="fresh")
        if ret is not None:
            hours = bake_hours(
                ret, profile.environment.bake_temp_C, profile.physics.activation_energy_eV
            )
            transport.bake(profile.environment.bake_temp_C, hours)  # type: ignore[attr-defined]
            base.update(
                retention_age_h=ret.age_h,
                retention_label=ret.label,
                bake_temp_C=profile.environment.bake_temp_C,
                bake_h=hours,
            )
        rows += measure_rber(chip, profile, block, written, base=base, progress=bars)
        pooled = pooled_rber(rows)
        run_dir = None
        if out is not None:
            run_dir = new_run_dir(out, "rber")
            writer = RunWriter(
                run_dir,
                _run_meta(
                    "rber",
                    url,
                    transport,
                    chip,
                    seed=seed,
                    block=block,
                    pec=pec,
                    retention=retention,
                ),
            )
            writer.append(rows)
            rber_vs_pec(rows, writer.plots_dir / "rber.png", f"{profile.name} block {block}")
            writer.close()
            writer.write_summary(summary_markdown(writer.meta, writer.rows))
    if as_json:
        print_json(
            {
                "block": block,
                "pec": pec,
                "retention": ret.label if ret else "fresh",
                "fast_forwarded": wear.fast_forwarded,
                "summary": pooled,
                "pages": [r for r in rows if r.get("operation") == "rber"],
                "run_dir": str(run_dir) if run_dir else None,
            }
        )
        return
    console = stdout_console()
    console.print(_rber_table(pooled, f"RBER of block {block} ({len(wl_list)} WLs)"))
    if run_dir is not None:
        console.print(f"dataset: {run_dir}")


def _chip_time_ns(transport: Transport) -> int:
    """The bench's virtual clock in ns (0 on a bench without one)."""
    return int(getattr(transport, "now_ns", 0))


@click.command()
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("runs"),
    show_default=True,
    help="Folder in which to write the run directory.",
)
@click.option("--seed", type=int, default=1, show_default=True, help="Die and pattern seed.")
@click.option(
    "--wls",
    type=click.IntRange(1, 64),
    default=8,
    show_default=True,
    help="WLs programmed and read per block.",
)
@click.option(
    "--vth-step",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="DAC codes per Vth histogram bin (larger is faster and coarser).",
)
@json_option
def demo(out: Path, seed: int, wls: int, vth_step: int, as_json: bool) -> None:
    """Demo campaign on a fresh virtual MLC: RBER and Vth at 0/3K/10K P/E, fresh and 1y@30C."""
    config = DemoConfig(
        seed=seed, wls=tuple(range(wls)), vth_wl=min(2, wls - 1), vth_code_step=vth_step
    )
    url = with_fresh(f"sim://{DEMO_PROFILE}?seed={seed}")
    t0 = time.perf_counter()
    run_dir = new_run_dir(out, "demo")
    with open_chip(url, False) as (transport, chip), ProgressBars(not as_json) as bars:
        chip.identify()
        clock0 = _chip_time_ns(transport)
        writer = RunWriter(
            run_dir,
            _run_meta(
                "nandlab demo", url, transport, chip, seed=seed, campaign=_config_dict(config)
            ),
        )
        profile = chip.profile
        names = page_type_names(profile)

        def plot_vth(pec: int, label: str, result: VthResult) -> None:
            series, styles = [], []
            for (p, lab), res in sorted(demo_vth.items()):
                if p != pec:
                    continue
                for s in res.states:
                    series.append((_state_label(s, f" {lab}"), s.centers_mV, s.counts))
                    styles.append(
                        {"color": f"C{s.state}", "linestyle": "-" if lab == "fresh" else "--"}
                    )
            vth_histograms(
                series,
                writer.plots_dir / f"vth_pec{pec}.png",
                title=f"{profile.name}: Vth of one WL at {pec} P/E cycles",
                windows=result.windows,
                styles=styles,
            )

        demo_vth: dict[tuple[int, str], VthResult] = {}

        def on_vth(pec: int, label: str, result: VthResult) -> None:
            demo_vth[(pec, label)] = result
            plot_vth(pec, label, result)

        result = run_demo(transport, chip, writer, config, progress=bars, on_vth=on_vth)
        chip_ns = _chip_time_ns(transport) - clock0
        wall_s = time.perf_counter() - t0
        sim_s = chip_ns / 1e9
        ff_s = getattr(transport, "fast_forward_ns", 0) / 1e9
        rber_vs_pec(
            writer.rows,
            writer.plots_dir / "rber_vs_pec.png",
            f"{profile.name}: RBER vs P/E, fresh and {config.retention}",
        )
        notes = [
            f"blocks (P/E -> block): {result.blocks}",
            f"retention {config.retention}: bake {result.bake_h:.1f} h at "
            f"{result.bake_temp_C:g} °C in virtual time (Arrhenius, Ea "
            f"{profile.physics.activation_energy_eV} eV)",
            "energy_uJ is estimated from the profile's supply currents",
            f"simulated chip time (die clock advance) {sim_s:.3g} s, of which {ff_s:.3g} s "
            f"fast-forwarded P/E cycling; wall time {wall_s:.3g} s; "
            f"the {result.bake_h:.1f} h bake is virtual time on top",
        ]
        writer.update_meta(
            bake={"temp_C": result.bake_temp_C, "hours": result.bake_h},
            simulated_chip_time_s=sim_s,
            fast_forward_chip_time_s=ff_s,
            wall_time_s=wall_s,
        )
        writer.close()
        writer.write_summary(summary_markdown(writer.meta, writer.rows, notes))
        rows = writer.rows
    pooled = pooled_rber(rows)
    ratio = sim_s / wall_s if wall_s else float("inf")
    if as_json:
        print_json(
            {
                "run_dir": str(run_dir),
                "blocks": result.blocks,
                "rber": pooled,
                "vth": [
                    {
                        "pec": pec,
                        "retention": lab,
                        **{
                            s.name: {"mean_mV": s.mean_mV, "sigma_mV": s.sigma_mV}
                            for s in res.states
                        },
                    }
                    for (pec, lab), res in sorted(result.vth.items())
                ],
                "latency": pooled_latency(rows),
                "bake_h": result.bake_h,
                "simulated_chip_time_s": sim_s,
                "fast_forward_chip_time_s": ff_s,
                "operations_over_wall": (sim_s - ff_s) / wall_s if wall_s else None,
                "wall_time_s": wall_s,
                "simulated_over_wall": ratio,
            }
        )
        return
    console = stdout_console()
    console.print(
        _rber_table(
            pooled,
            f"RBER, {len(config.wls)} WLs x {len(names)} page types "
            "per condition ((ff): wear fast-forwarded to N-1)",
        )
    )
    vt = Table(
        title="Vth mean / sigma (mV) of one WL per condition",
        caption="cells inside the offset sweep range only (most of L0 lies below it)",
    )
    vt.add_column("condition")
    for s in range(profile.geometry.states):
        vt.add_column(f"L{s}", justify="right")
    for (pec, lab), res in sorted(
        result.vth.items(), key=lambda kv: (kv[0][0], kv[0][1] != "fresh")
    ):
        vt.add_row(
            f"{pec} P/E, {lab}", *[f"{s.mean_mV:.0f} / {s.sigma_mV:.0f}" for s in res.states]
        )
    console.print(vt)
    lt = Table(title="latency")
    for col in ("operation", "page type", "n", "mean µs", "min µs", "max µs"):
        lt.add_column(col, justify="right")
    for a in pooled_latency(rows):
        lt.add_row(
            a["operation"],
            a["page_type"],
            str(a["n"]),
            f"{a['mean_us']:.1f}",
            f"{a['min_us']:.1f}",
            f"{a['max_us']:.1f}",
        )
    console.print(lt)
    console.print(
        f"retention {config.retention} = {result.bake_h:.1f} h at "
        f"{result.bake_temp_C:g} °C (virtual time)"
    )
    console.print(f"dataset: {run_dir}")
    console.print(f"simulated chip time / wall time: {ratio:.3g}")
    console.print(
        f"  ({sim_s:.4g} s of die clock in {wall_s:.3g} s: {ff_s:.4g} s of fast-forwarded P/E "
        f"cycling and {sim_s - ff_s:.3g} s of operations run one by one "
        f"({(sim_s - ff_s) / wall_s:.2g}x wall); the {result.bake_h:.1f} h bake not counted)"
    )


def _config_dict(config: DemoConfig) -> dict[str, Any]:
    return {
        "pecs": list(config.pecs),
        "wls": list(config.wls),
        "vth_wl": config.vth_wl,
        "retention": config.retention,
        "seed": config.seed,
        "first_block": config.first_block,
        "vth_code_step": config.vth_code_step,
    }


__all__ = ["demo", "format_rate", "rber", "vth"]
