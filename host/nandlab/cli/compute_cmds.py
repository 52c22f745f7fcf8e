"""`nandlab compute`: store operands and evaluate a bitwise expression in flash, as a campaign
of one `expression` step on the store block."""

from __future__ import annotations

import json
from typing import Any

import click
from rich.table import Table

from nandlab.cli.common import (
    AddressList,
    print_json,
    require_yes,
    stdout_console,
)
from nandlab.cli.oneoff import RunOptions, run_one_off, run_options
from nandlab.errors import UsageError

SEARCH_SCHEMES = {"cox-pm", "sim-search"}
"""The schemes `nandlab search` runs (in-chip pattern match / key search)."""


def _pairs(values: tuple[str, ...], what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for v in values:
        name, sep, spec = v.partition("=")
        if not sep or not name or not spec:
            raise UsageError(f"{what} {v!r}: expected NAME=VALUE")
        if name in out:
            raise UsageError(f"{what}: operand {name} given twice")
        out[name] = spec
    return out


@click.command()
@click.argument("url")
@click.option(
    "--store",
    "stores",
    multiple=True,
    metavar="NAME=DATA",
    help="Program an operand first: DATA is random:SEED, zeros, ones or checker.",
)
@click.option(
    "--operand",
    "located",
    multiple=True,
    metavar="NAME=BLOCK:PAGE[:slc]",
    help="An operand already on the chip (its reference data is read back).",
)
@click.option(
    "--expr", "text", required=True, help='Expression, e.g. "(A | B) & ~C", "AND(A1..A30)".'
)
@click.option(
    "--scheme",
    default="all",
    show_default=True,
    help="mcflash, parabit, flashcosmos, or all (every scheme the chip supports); "
    "cox-pm and sim-search are queries: nandlab search.",
)
@click.option(
    "--block",
    type=click.IntRange(0, 1 << 20),
    default=100,
    show_default=True,
    help="Block that --store programs.",
)
@click.option(
    "--scratch",
    type=AddressList(hi=1 << 20),
    default="200,202",
    show_default=True,
    help="Blocks the schemes may erase and program (aligned copies, results), e.g. 200-203.",
)
@click.option(
    "--allow-test-mode",
    is_flag=True,
    help="Allow test-mode operations (latch sequences, inverse read, MWS).",
)
@click.option(
    "--variant",
    type=click.Choice(["best", "table1"]),
    default="best",
    show_default=True,
    help="MCFlash: searched offsets, or the paper's Table 1 rows.",
)
@click.option("--show-bits", default=0, show_default=True, help="Print the first N result bits.")
@run_options
def compute(
    url: str,
    stores: tuple[str, ...],
    located: tuple[str, ...],
    text: str,
    scheme: str,
    block: int,
    scratch: list[int],
    allow_test_mode: bool,
    variant: str,
    show_bits: int,
    opts: RunOptions,
) -> None:
    """Evaluate an expression over operands stored in flash.

    Prints, per scheme, the plan of chip operations (sensings, latency,
    energy) and the bit errors against the host-side reference. Storing
    operands and running a scheme program and erase blocks: add --yes.

    \b
    Example:
      nandlab compute sim://mlc-64l --store A=random:1 --store B=random:2
        --expr "A & B" --scheme mcflash --yes
    """
    specs = _pairs(stores, "--store")
    locs = _pairs(located, "--operand")
    searches = {s.strip() for s in scheme.split(",")} & SEARCH_SCHEMES
    if searches:  # a query, not a bitwise expression: its own command
        name = sorted(searches)[0]
        raise UsageError(
            f"{name} searches stored data (patterns / keys), it evaluates no expression: "
            f"use nandlab search URL --scheme {name}"
        )
    if not opts.dry_run:
        require_yes(opts.yes, "compute (it programs operands and erases scratch blocks)")
    options: dict[str, Any] = {"variant": variant}
    if allow_test_mode:
        options["allow_test_mode"] = True
    step = {
        "expr": text,
        "store": specs,
        "located": locs,
        "schemes": [] if scheme == "all" else [s.strip() for s in scheme.split(",")],
        "scratch": scratch,
        "options": options,
        "show_bits": show_bits,
    }
    campaign = {
        "name": "compute",
        "bench": url,
        "fresh": opts.fresh,
        "allow_test_mode": allow_test_mode,
        "blocks": [block],
        "steps": [{"expression": step}],
    }
    run = run_one_off(campaign, opts, command="nandlab compute")
    if run is None:  # --dry-run: the plan was printed
        return
    details = [json.loads(r["detail"]) for r in run.rows if r.get("operation") == "expression"]
    reference = ("reference_bits", "reference_ones")
    doc = {
        "expression": text,
        "bits": details[0]["reference_bits"],
        "reference_ones": details[0]["reference_ones"],
        "runs": [{k: v for k, v in d.items() if k not in reference} for d in details],
        "run_dir": str(run.run_dir),
    }
    if opts.as_json:
        print_json(doc)
        return
    _print(doc)


def _print(doc: dict[str, Any]) -> None:
    console = stdout_console()
    console.print(
        f"expression: {doc['expression']}  ({doc['bits']} bits, reference has "
        f"{doc['reference_ones']} ones)"
    )
    table = Table(title="schemes")
    for col in (
        "scheme",
        "bit errors",
        "sensings",
        "latency µs",
        "energy µJ",
        "programs",
        "chip ops",
    ):
        table.add_column(col)
    for run in doc["runs"]:
        if "error" in run:
            table.add_row(run["scheme"], "-", "-", "-", "-", "-", f"cannot run: {run['error']}")
            continue
        p = run["plan"]
        table.add_row(
            run["scheme"],
            f"{run['bit_errors']} / {run['bits']}",
            str(p["sensings"]),
            f"{p['latency_us']:.1f}",
            f"{p['energy_uJ']:.3f}",
            str(p["programs"]),
            str(len(p["ops"])),
        )
    console.print(table)
    for run in doc["runs"]:
        if "error" in run:
            continue
        console.print(f"[bold]{run['scheme']}[/bold] plan:")
        for op in run["plan"]["ops"]:
            console.print(
                f"  {op['kind']:14s} {op['what']}  ({op['sensings']} sensings, "
                f"{op['busy_us']:.1f} µs, {op['energy_uJ']:.3f} µJ)"
            )
        for w in run["plan"]["warnings"]:
            console.print(f"  [yellow]warning:[/yellow] {w}")
        for n in run["plan"]["notes"]:
            console.print(f"  note: {n}")
        if "first_bits" in run:
            console.print(f"  first bits: {run['first_bits']}")
    console.print(f"dataset: {doc['run_dir']}")
