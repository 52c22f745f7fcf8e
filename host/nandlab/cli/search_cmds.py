"""`nandlab search`: store seeded data on a block and query it in the chip (cox-pm or
sim-search), as a campaign of erase, store and query steps on that block.

A search is a query, not a bitwise expression, so it has its own command beside `nandlab
compute`. The queries are vendor commands of the part (declared by its profile), gated
like the test-mode operations: refused without --allow-test-mode. Storing the data erases
and programs the block, so --yes is needed too.
"""

from __future__ import annotations

import json
from typing import Any

import click
from rich.table import Table

from nandlab.cli.common import print_json, require_yes, stdout_console
from nandlab.cli.oneoff import RunOptions, run_one_off, run_options
from nandlab.errors import RefusedOperation, UsageError

SCHEMES = ("cox-pm", "sim-search")
COLUMNS = ("page", "operation", "path", "answer", "latency_us", "energy_uJ", "bit errors")


@click.command()
@click.argument("url")
@click.option("--scheme", type=click.Choice(SCHEMES), required=True, help="The in-chip search.")
@click.option(
    "--block",
    type=click.IntRange(0, 1 << 20),
    default=100,
    show_default=True,
    help="Block that is erased and programmed with the seeded data.",
)
@click.option(
    "--count",
    type=click.IntRange(1, 576),
    default=6,
    show_default=True,
    help="cox-pm: text pages stored (every third with a planted string); sim-search: key / "
    "value page pairs.",
)
@click.option(
    "--pattern",
    "patterns",
    multiple=True,
    help="cox-pm: a pattern to match (1..8 of 1..32 bytes; default: two of the planted "
    "strings).",
)
@click.option("--single", is_flag=True, help="cox-pm: the single form, not the cache form.")
@click.option("--masks", type=click.IntRange(0, 64), default=4, show_default=True,
              help="sim-search: masked searches per key page.")  # fmt: skip
@click.option("--queries", type=click.IntRange(1, 64), default=4, show_default=True,
              help="sim-search: point queries per key page (the last one absent).")  # fmt: skip
@click.option("--max-age-h", type=click.FloatRange(min=0, min_open=True), default=None,
              help="sim-search: read pages older than this in full (the paper's age margin; "
              "default 4380 h).")  # fmt: skip
@click.option("--threshold", type=click.IntRange(0, 63), default=None,
              help="sim-search: the search's failed-bit threshold (candidates confirmed on "
              "their gathered chunks; 0: the paper's exact search; default 2).")  # fmt: skip
@click.option("--allow-test-mode", is_flag=True,
              help="Allow the part's vendor commands (gated like test mode).")  # fmt: skip
@run_options
def search(
    url: str,
    scheme: str,
    block: int,
    count: int,
    patterns: tuple[str, ...],
    single: bool,
    masks: int,
    queries: int,
    max_age_h: float | None,
    threshold: int | None,
    allow_test_mode: bool,
    opts: RunOptions,
) -> None:
    """Search data stored in flash, inside the chip (cox-pm, sim-search).

    Stores seeded data on --block, then queries it with the part's vendor
    commands; prints per page or query the path of the answer (chip or
    controller fallback), busy time, energy and wrong answers against the
    host reference. The vendor commands need --allow-test-mode; erasing and
    programming the block needs --yes.

    \b
    Example:
      nandlab search sim://tlc-coxpm --scheme cox-pm --pattern "green almond"
        --allow-test-mode --yes
    """
    if scheme == "sim-search" and (patterns or single):
        raise UsageError("--pattern and --single are cox-pm options")
    if scheme == "cox-pm" and (max_age_h is not None or threshold is not None):
        raise UsageError("--max-age-h and --threshold are sim-search options")
    if not allow_test_mode:
        raise RefusedOperation(
            f"{scheme} queries with the part's vendor commands, gated like test-mode "
            "operations: add --allow-test-mode to allow them"
        )
    if not opts.dry_run:
        require_yes(opts.yes, "search (it erases and programs the block)")
    if scheme == "cox-pm":
        query: dict[str, Any] = {"cache": not single, "allow_test_mode": True}
        if patterns:
            query["patterns"] = list(patterns)
        steps = [{"erase": {}}, {"cox_store": {"pages": count}}, {"cox_pm": query}]
    else:
        steps = [
            {"erase": {}},
            {"sim_store": {"pairs": count}},
            {"sim_search": {"masks": masks, "queries": queries, "allow_test_mode": True,
                            **({} if max_age_h is None else {"max_age_h": max_age_h}),
                            **({} if threshold is None else {"threshold": threshold})}},
        ]
    campaign = {
        "name": "search",
        "bench": url,
        "fresh": opts.fresh,
        "allow_test_mode": True,
        "blocks": [block],
        "steps": steps,
    }
    run = run_one_off(campaign, opts, command="nandlab search")
    if run is None:  # --dry-run: the plan was printed
        return
    rows = [_row(r) for r in run.rows if str(r.get("operation", "")).startswith(scheme + ":")]
    doc = {"scheme": scheme, "block": block, "rows": rows, "run_dir": str(run.run_dir)}
    if opts.as_json:
        print_json(doc)
        return
    table = Table(title=f"{scheme} on block {block}")
    for col in COLUMNS:
        table.add_column(col)
    for r in rows:
        table.add_row(*(str(r[c]) for c in COLUMNS))
    console = stdout_console()
    console.print(table)
    console.print(f"run: {doc['run_dir']}")


def _row(r: dict[str, Any]) -> dict[str, Any]:
    """One dataset row as the command shows it."""
    d = json.loads(r.get("detail") or "{}")
    errors = int(r.get("errors_0to1") or 0) + int(r.get("errors_1to0") or 0)
    if r["operation"].endswith(":page"):
        answer = "raw read"
    elif "matched" in d:
        answer = "match" if d["matched"] else "no match"
    else:
        answer = str(d.get("matches", d.get("found", "-")))
    latency, energy = r.get("latency_us"), r.get("energy_uJ")
    return {
        "page": r.get("page"),
        "operation": r["operation"],
        "path": d.get("path", "-"),
        "answer": answer,
        "latency_us": "-" if latency is None else round(float(latency), 2),
        "energy_uJ": "-" if energy is None else round(float(energy), 3),
        "bit errors": errors,
    }
