"""Campaign commands: run, resume, report, export, ledger."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from nandlab.cli.common import (
    StepBars,
    dry_run_option,
    json_option,
    open_chip,
    out_option,
    print_json,
    stdout_console,
    yes_option,
)
from nandlab.cli.plan import show
from nandlab.errors import RefusedOperation, UsageError

RUN_DIR = click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))

def require_yes_for(loaded: Any, yes: bool, verb: str) -> None:
    """Refuse (exit 2) a campaign with destructive steps unless --yes, naming the steps."""
    if yes:
        return
    from nandlab.campaign.steps import writing_steps

    steps = writing_steps(loaded.campaign.steps)
    if steps:
        raise RefusedOperation(
            f"{verb} erases or programs the chip ({', '.join(steps)}): add --yes to confirm"
        )


def _finish(result: Any, as_json: bool) -> None:
    doc = {
        "run_dir": str(result.run_dir),
        "status": result.status,
        "units": result.units,
        "units_run": result.units_run,
        "chip_time_s": result.chip_time_ns / 1e9,
        "wall_s": result.wall_s,
    }
    if as_json:
        print_json(doc)
    else:
        click.echo(
            f"{result.status}: {result.run_dir} ({result.units_run} of {result.units} "
            f"units run now; chip time {doc['chip_time_s']:.4g} s)"
        )
        click.echo(f"next: nandlab report {result.run_dir}")


@click.command("run")
@click.argument("campaign_file", type=click.Path(dir_okay=False, path_type=Path))
@out_option(Path("runs"), "Folder in which the run directory is made.")
@click.option("--run-id", default=None, help="Name of the run directory (default: NAME-UTC time).")
@click.option("--no-progress", is_flag=True, help="Show no progress bars.")
@click.option(
    "--ray", "ray_address", is_flag=False, flag_value="local", default=None, metavar="[ADDRESS]",
    help="Shard the chips across Ray workers: a local cluster on this machine's cores, "
    "or the cluster at ADDRESS (docs/scale.md).",
)
@click.option("--workers", type=click.IntRange(1), default=None,
              help="With --ray: shards (default: one per CPU, at most one per chip).")
@click.option("--placement", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="With --ray: the placement file (which host holds which board).")
@yes_option
@dry_run_option
@json_option
def run(
    campaign_file: Path,
    out: Path,
    run_id: str | None,
    no_progress: bool,
    ray_address: str | None,
    workers: int | None,
    placement: Path | None,
    yes: bool,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Run a campaign file, its rows committed unit by unit.

    A campaign with steps that erase or program (cycle, erase, program...) runs only
    with --yes. An interrupted run continues with `nandlab resume RUN_DIR`.

    \b
    Example:
      nandlab run campaign.yaml --out runs --yes
    """
    from nandlab.campaign.runner import start_run
    from nandlab.campaign.schema import load_campaign

    loaded = load_campaign(campaign_file)
    if dry_run:
        from nandlab.cli.plan import campaign_plan

        command = f"nandlab run {campaign_file}"
        show(campaign_plan(loaded, campaign_file.resolve().parent, command), as_json)
        return
    require_yes_for(loaded, yes, "the campaign")

    units = _ray_units(ray_address, workers, placement)
    with StepBars(not (no_progress or as_json)) as bars:
        result = start_run(campaign_file, out, run_id=run_id, progress=bars, run_units=units)
    _finish(result, as_json)


def _ray_units(address: str | None, workers: int | None, placement: Path | None) -> Any:
    """The Ray runner of `--ray` (None without it: the run stays in this process)."""
    if address is None:
        if workers is not None or placement is not None:
            raise click.UsageError("--workers and --placement go with --ray")
        return None
    import importlib.util

    if importlib.util.find_spec("ray") is None:
        raise click.UsageError(
            "--ray needs Ray, the scale extra: pip install -c constraints.txt -e 'host[scale]'"
        )
    from nandlab.campaign.placement import Placement
    from nandlab.campaign.ray_runner import RayUnits

    return RayUnits(
        address=None if address == "local" else address,
        workers=workers,
        placement=Placement.load(placement) if placement is not None else None,
    )


@click.command("resume")
@RUN_DIR
@click.option("--no-progress", is_flag=True, help="Show no progress bars.")
@yes_option
@dry_run_option
@json_option
def resume(run_dir: Path, no_progress: bool, yes: bool, dry_run: bool, as_json: bool) -> None:
    """Finish an interrupted run: no row lost, none duplicated.

    The die is restored to the last committed unit and the rest is measured; a campaign
    with steps that erase or program runs on only with --yes.

    \b
    Example:
      nandlab resume runs/demo-20260101T120000Z --dry-run
    """
    from nandlab.campaign.runner import read_meta, resume_run
    from nandlab.campaign.schema import parse_campaign

    meta = read_meta(run_dir)
    loaded = parse_campaign(meta["campaign_text"], meta["campaign_file"])
    if dry_run:
        _resume_plan(run_dir, meta, loaded, as_json)
        return
    if meta.get("status") != "complete":
        require_yes_for(loaded, yes, "resuming the campaign")

    # a run started on Ray goes on on Ray (a local cluster, or the address it was given)
    ray = meta.get("ray")
    units = _ray_units(ray.get("address") or "local", None, None) if ray else None
    with StepBars(not (no_progress or as_json)) as bars:
        result = resume_run(run_dir, progress=bars, run_units=units)
    _finish(result, as_json)


def _resume_plan(run_dir: Path, meta: dict[str, Any], loaded: Any, as_json: bool) -> None:
    """The plan of the units a resume would still run (from the run's campaign text)."""
    from nandlab.cli.plan import campaign_plan
    from nandlab.dataset.store import RunStore

    store = RunStore(run_dir)
    try:
        done = set(store.done())
    finally:
        store.close()
    folder = Path(meta["campaign_file"]).resolve().parent
    show(campaign_plan(loaded, folder, f"nandlab resume {run_dir}", done), as_json)


PARTIAL = click.option(
    "--partial",
    is_flag=True,
    help="Use the rows committed so far of a run that is running or stopped.",
)


@click.command("report")
@RUN_DIR
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for summary.md and plots/ (default: RUN_DIR; RUN_DIR/partial-report for "
    "--partial). The run itself is only read.",
)
@PARTIAL
@json_option
def report(run_dir: Path, out: Path | None, partial: bool, as_json: bool) -> None:
    """Write summary.md and plots/*.png of a run.

    \b
    Example:
      nandlab report runs/demo-20260101T120000Z
    """
    from nandlab.campaign.report import report as make_report

    summary, plots = make_report(run_dir, out, partial=partial)
    if as_json:
        print_json({"summary": str(summary), "plots": [str(p) for p in plots]})
        return
    click.echo(f"wrote {summary} and {len(plots)} plots in {summary.parent / 'plots'}")


@click.command("export")
@RUN_DIR
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["parquet", "csv", "hdf5"]),
    default="parquet",
    show_default=True,
)
@click.option(
    "--out",
    "out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Output file, a new one (default: RUN_DIR/export/<run id>.<ext>).",
)
@PARTIAL
@click.option(
    "--rebuild",
    is_flag=True,
    help="Rewrite a complete run's measurements.parquet from run.sqlite (when it is damaged).",
)
@json_option
def export(
    run_dir: Path, fmt: str, out: Path | None, partial: bool, rebuild: bool, as_json: bool
) -> None:
    """Export a run's rows as Parquet, CSV or HDF5 into a new file.

    A .sha256 is written beside it; never over the run's own files, never fewer rows
    than the run holds.

    \b
    Example:
      nandlab export runs/demo-20260101T120000Z --format csv --out rows.csv
    """
    from nandlab.campaign import export as exporting

    if rebuild:
        path = exporting.rebuild(run_dir)
        if as_json:
            print_json({"path": str(path), "rebuilt": True})
        else:
            click.echo(f"rebuilt {path} from the run store")
        return
    done = exporting.export(run_dir, fmt, out, partial=partial)
    if as_json:
        print_json(
            {"path": str(done.path), "format": fmt, "rows": done.rows, "partial": done.partial}
        )
        return
    click.echo(f"wrote {done.path} ({done.rows} rows)")
    if done.partial:
        click.echo("partial: the run is unfinished; these are the rows committed so far")


@click.command("ledger")
@click.argument("chip")
@json_option
def ledger(chip: str, as_json: bool) -> None:
    """History of a chip, by bench URL or chip unique ID.

    CHIP is a bench URL (its CE 0 is identified) or a chip unique ID (hex).

    \b
    Example:
      nandlab ledger sim://mlc-64l
    """
    from rich.table import Table

    from nandlab.ledger import Ledger

    if "://" in chip:
        with open_chip(chip, False, read_only=True) as (_, c):
            uid = c.identification.unique_id
    else:
        uid = chip.strip().lower()
        if not uid or any(ch not in "0123456789abcdef" for ch in uid):
            raise UsageError(f"'{chip}' is neither a bench URL nor a chip unique ID (hex)")
    with Ledger() as book:
        doc = book.history(uid)
    if as_json:
        print_json(doc)
        return
    console = stdout_console()
    console.print(
        f"chip {uid}: {doc['profile'] or 'unknown profile'}"
        f"{' (virtual)' if doc['virtual'] else ''}, first seen {doc['first_seen']}"
    )
    if not doc["known"]:
        console.print("the ledger knows nothing about this chip yet")
    table = Table("block", "P/E cycles", "of them fast-forwarded", title="wear")
    for b in doc["blocks"]:
        table.add_row(str(b["block"]), str(b["pec"]), str(b["fast_forwarded_cycles"]))
    console.print(table)
    console.print(
        "bad blocks: "
        + (", ".join(f"{b['block']} ({b['reason']})" for b in doc["bad_blocks"]) or "none known")
    )
    for bake in doc["bakes"]:
        console.print(
            f"bake {bake.get('label')}: {bake.get('hours', 0):.3g} h at "
            f"{bake.get('temp_C')} °C (run {bake['run_id']})"
        )
    for r in doc["runs"]:
        console.print(f"run {r['run_id']} ({r['campaign']}): {r['status']}, {r['run_dir']}")


COMMANDS = (run, resume, report, export, ledger)
