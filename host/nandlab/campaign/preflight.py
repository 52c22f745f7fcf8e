"""Everything a campaign can be checked for before any chip is opened.

A refused campaign must change nothing: no die image, no ledger event, no run
folder. So `preflight` runs before the runner opens the bench and checks, from
the campaign file and the part's datasheet (the profile the bench URL names:
its geometry, never its physics):

- the test-mode declaration: a step that asks for test mode, and every step that runs
  a part's vendor commands (`cox_pm`, `sim_search`: gated like test mode), needs
  `allow_test_mode: true` at the top of the campaign, or the campaign is refused whole;
- the blocks against the part's geometry;
- every step's parameters at every sweep point, and the number of units against the
  unit budget (`max_units`), counted before any unit is built;
- every unit in order, as the run would apply it (the dry run: data written before it is
  measured, scratch blocks apart from the campaign's, pattern files readable, test-mode
  steps flagged), with every block taken as fresh.

What needs the chip itself (its ledger's P/E counts, its bad blocks, the bench's
roles) is checked again once the bench is open, before the run folder is made.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from nandlab.campaign.blocks import planned_blocks
from nandlab.campaign.schema import LoadedCampaign
from nandlab.campaign.steps import BlockState, Context, apply, cox_pm, sim_search
from nandlab.campaign.sweep import Plan, expand
from nandlab.profiles import Profile, load_profile
from nandlab.transport import parse_sim_url
from nandlab.transport.url import scheme_of, split_url

TEST_MODE_HINT = (
    "a campaign that runs test-mode operations says so at its top with "
    "'allow_test_mode: true' (one-off commands: --allow-test-mode)"
)

VENDOR_COMMAND_STEPS = frozenset({cox_pm.STEP.name, sim_search.STEP.name})
"""Step kinds that issue a part's vendor commands (CoX-PM's, Search-in-Memory's): they
reach past the datasheet as test-mode operations do, so they take the same declaration
whatever their own parameters say."""


def bench_profile(url: str) -> Profile | None:
    """The profile a bench URL names (sim:// and rtl:// always, real benches with
    profile=); None when only the chip itself can tell (read from it once opened)."""
    scheme = scheme_of(url)
    if scheme == "sim":
        return load_profile(parse_sim_url(url).profile)
    parts = split_url(url, f"{scheme}://...")
    query = dict(parse_qsl(parts.query))
    named = [query.get("profile", "")]
    if scheme == "rtl":  # rtl://NAME, rtl:///path/part.yaml, rtl://?profile=PATH
        named += [parts.netloc, parts.path if parts.path not in ("", "/") else ""]
    name = next((n for n in named if n), None)
    return load_profile(name) if name else None


def _asks_test_mode(params: dict[str, Any]) -> tuple[str, ...] | None:
    """The parameter (path) of a step that asks for test mode, if any; a swept flag asks."""
    if params.get("allow_test_mode", False) is not False:
        return ("allow_test_mode",)
    options = params.get("options")
    if isinstance(options, dict) and options.get("allow_test_mode", False) is not False:
        return ("options", "allow_test_mode")
    return None


def check_test_mode(loaded: LoadedCampaign) -> None:
    """Refuse the whole campaign when a step asks for test mode and the campaign does not
    declare it at the top."""
    if loaded.campaign.allow_test_mode:
        return
    for i, step in enumerate(loaded.campaign.steps):
        kind, params = next(iter(step.items()))
        if kind in VENDOR_COMMAND_STEPS:
            raise loaded.error(
                ("steps", i, kind),
                f"runs the part's vendor commands, gated like test mode, but {TEST_MODE_HINT}",
            )
        asks = _asks_test_mode(params or {})
        if asks is not None:
            raise loaded.error(
                ("steps", i, kind, *asks), f"asks for the chip's test mode, but {TEST_MODE_HINT}"
            )


def dry_run(plan: Plan, ctx: Context) -> None:
    """Apply every unit to a copy of `ctx`: UnitError for the first that cannot run."""
    trial = ctx.copy()
    for unit in plan.units:
        apply(unit, trial)


def preflight(loaded: LoadedCampaign, campaign_dir: Path | None) -> Plan | None:
    """Check the campaign without a chip; its plan on the planned blocks (None when the
    bench URL names no profile: a real bench checked once its chip is identified)."""
    c = loaded.campaign
    if c.fresh and not c.bench.startswith("sim:"):
        raise loaded.error(("fresh",), "fresh applies to virtual (sim://) benches only")
    check_test_mode(loaded)
    profile = bench_profile(c.bench)
    if profile is None:
        return None
    blocks = planned_blocks(loaded, profile.geometry.blocks)
    plan = expand(loaded, blocks)
    fresh = {(ce, b): BlockState(pec=0) for ce in c.chips for b in blocks}
    ctx = Context(
        profile,
        fresh,
        profile.environment.ambient_temp_C,
        fast_forward=c.bench.startswith("sim:"),
        campaign_dir=campaign_dir,
    )
    dry_run(plan, ctx)
    return plan
