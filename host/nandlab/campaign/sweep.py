"""Sweeps and measurement units: a campaign expanded into the units a run measures.

Any step parameter may be a sweep instead of a value::

    pec: {sweep: [1, 3000, 10000]}               # a list
    reads: {sweep: {from: 1000, to: 4000, step: 1000}}   # a range, both ends included

Several swept parameters in one step form a grid (every combination). Each
point of a `cycle` or `program` step goes to its own group of blocks (the
blocks, in order, split into as many equal groups as there are points); the
points of the other steps run one after the other on every block.

Every unit has a stable key, e.g. ``s02.measure/ce0/b117`` or
``s00.cycle/ce0/b104/pec=3000``, and a seed derived from the campaign seed
and the key alone, so a unit measures the same whether the run was
interrupted or not.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from nandlab.campaign.schema import MAX_UNITS_LIMIT, LoadedCampaign, raise_validation
from nandlab.campaign.steps import STEPS
from nandlab.campaign.unit import Unit


@dataclass
class Plan:
    """The units of a campaign, in run order, and the steps' sizes (for progress bars)."""

    units: list[Unit] = field(default_factory=list)
    step_units: dict[int, int] = field(default_factory=dict)

    def step_label(self, step: int) -> str:
        kinds = {u.kind for u in self.units if u.step == step}
        return f"step {step + 1} {'/'.join(sorted(kinds))}"


def unit_seed(campaign_seed: int, key: str) -> int:
    """A 63-bit seed from the campaign seed and the unit key only."""
    digest = hashlib.sha256(f"{campaign_seed}/{key}".encode()).digest()
    return int.from_bytes(digest[:8], "little") & (2**63 - 1)


def _sweep_values(
    loaded: LoadedCampaign, path: tuple[str | int, ...], spec: Any, budget: int
) -> list[Any]:
    """A sweep's values; its size is checked against `budget` (max_units) before any list of
    that size is built, so a range of 10^12 points is refused, not allocated."""
    if isinstance(spec, list):
        values = spec
    elif (
        isinstance(spec, dict)
        and set(spec) <= {"from", "to", "step"}
        and {"from", "to"} <= set(spec)
    ):
        lo, hi, step = spec["from"], spec["to"], spec.get("step", 1)
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (lo, hi, step)):
            raise loaded.error(path, "a range sweep needs numbers from, to and step")
        if not all(math.isfinite(v) for v in (lo, hi, step)):
            raise loaded.error(path, "a range sweep needs finite numbers (not .nan or .inf)")
        if step <= 0:
            raise loaded.error(path, f"sweep step {step} must be > 0")
        span = (hi - lo) / step if hi >= lo else -1.0
        if not math.isfinite(span) or span + 1 > budget:
            what = f"the sweep {lo}..{hi} step {step}"
            raise loaded.error(path, _too_big(what, span + 1, budget))
        n = int(span + 1e-9) + 1 if hi >= lo else 0
        values = [lo + i * step for i in range(n)]
        if all(isinstance(v, int) for v in (lo, step)):
            values = [int(v) for v in values]
    else:
        raise loaded.error(
            path, "a sweep is {sweep: [v1, v2, ...]} or {sweep: {from: A, to: B, step: S}}"
        )
    if not values:
        raise loaded.error(path, f"the sweep {spec!r} expands to nothing")
    if len(values) > budget:
        raise loaded.error(path, _too_big("the sweep", len(values), budget))
    return values


def _too_big(what: str, size: float, budget: int) -> str:
    points = f"{size:.3g}" if isinstance(size, float) else str(size)
    return (
        f"{what} has {points} points, more than the unit budget max_units={budget}: narrow "
        f"it, or raise max_units (at most {MAX_UNITS_LIMIT})"
    )


def _split(
    loaded: LoadedCampaign, path: tuple[str | int, ...], params: dict[str, Any], budget: int
) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    fixed: dict[str, Any] = {}
    sweeps: dict[str, list[Any]] = {}
    for name, value in params.items():
        if isinstance(value, dict) and "sweep" in value:
            if set(value) != {"sweep"}:
                raise loaded.error((*path, name), "a sweep mapping holds only 'sweep'")
            sweeps[name] = _sweep_values(loaded, (*path, name, "sweep"), value["sweep"], budget)
        else:
            fixed[name] = value
    return fixed, sweeps


def expand(loaded: LoadedCampaign, blocks: list[int]) -> Plan:
    """Expand the campaign into units for `blocks` (chosen already); CampaignFileError when a
    sweep is empty, does not split the blocks evenly, or the units exceed max_units (counted
    before the units are built)."""
    c = loaded.campaign
    plan = Plan()
    if not blocks:
        raise loaded.error(("blocks",), "no blocks selected")
    for s, step in enumerate(c.steps):
        kind, raw = next(iter(step.items()))
        path: tuple[str | int, ...] = ("steps", s, kind)
        fixed, sweeps = _split(loaded, path, dict(raw or {}), c.max_units)
        names = list(sweeps)
        step_kind = STEPS[kind]
        grid = math.prod(len(v) for v in sweeps.values())
        if step_kind.per_block:
            # a partitioned step makes one unit per block, but its grid is still built
            size = len(c.chips) * len(blocks) * (1 if step_kind.partition else grid)
            size = max(size, grid)
        else:
            size = grid * (len(c.chips) if step_kind.per_chip else 1)
        if len(plan.units) + size > c.max_units:
            raise loaded.error(
                path,
                f"the campaign expands to more than max_units={c.max_units} units: at least "
                f"{len(plan.units) + size} (step {s + 1} alone makes {size}); narrow the sweeps "
                f"or blocks, or raise max_units (at most {MAX_UNITS_LIMIT})",
            )
        points = [
            dict(zip(names, combo, strict=True)) for combo in itertools.product(*sweeps.values())
        ]
        models = []
        for point in points:
            try:
                models.append(step_kind.model.model_validate({**fixed, **point}))
            except ValidationError as exc:
                raise_validation(exc, loaded.marks, path)
        start = len(plan.units)
        if step_kind.per_block:
            if step_kind.partition and len(points) > 1:
                if len(blocks) % len(points):
                    raise loaded.error(
                        (*path, names[0]),
                        f"{len(blocks)} blocks cannot be split evenly over {len(points)} sweep "
                        f"points: give a multiple of {len(points)} blocks",
                    )
                per = len(blocks) // len(points)
                targets = [(points[i // per], models[i // per], b) for i, b in enumerate(blocks)]
                order = [(p, m, ce, b) for ce in c.chips for p, m, b in targets]
            else:
                order = [
                    (p, m, ce, b)
                    for p, m in zip(points, models, strict=True)
                    for ce in c.chips
                    for b in blocks
                ]
            for point, model, ce, block in order:
                _add(plan, c.seed, s, kind, model, point, ce, block)
        else:
            chips: list[int | None] = list(c.chips) if step_kind.per_chip else [None]
            for point, model in zip(points, models, strict=True):
                for chip_ce in chips:
                    _add(plan, c.seed, s, kind, model, point, chip_ce, None)
        plan.step_units[s] = len(plan.units) - start
    return plan


def _add(
    plan: Plan,
    seed: int,
    step: int,
    kind: str,
    model: BaseModel,
    point: dict[str, Any],
    ce: int | None,
    block: int | None,
) -> None:
    key = f"s{step:02d}.{kind}"
    if ce is not None:
        key += f"/ce{ce}" if block is None else f"/ce{ce}/b{block}"
    if point:
        key += "/" + ",".join(f"{k}={v}" for k, v in point.items())
    plan.units.append(
        Unit(len(plan.units), key, step, kind, model, point, unit_seed(seed, key), ce, block)
    )
