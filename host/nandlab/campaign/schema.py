"""Campaign files: the pydantic schema of what a campaign runs.

A campaign file is YAML (see docs/campaigns.md)::

    name: mlc-rber-pec-retention
    bench: sim://mlc-64l?seed=11
    fresh: true
    seed: 1
    blocks: {random: {count: 3, from: 100, to: 400, seed: 5}}
    steps:
      - cycle: {pec: {sweep: [1, 3000, 10000]}, pattern: random}
      - program: {wls: 0-7, pattern: random}
      - measure: {what: [rber, vth]}
      - bake: {retention: 1y@30C}
      - measure: {what: rber}

`load_campaign(path)` validates it; every error is a `CampaignFileError`
naming the file, the line, the field and what is allowed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field, ValidationError, field_validator

from nandlab.campaign.fields import Strict
from nandlab.campaign.steps import STEPS
from nandlab.campaign.yamlmarks import CampaignFileError, Marks, field_name, load_marked
from nandlab.yamlfile import read_text_file

MAX_UNITS_DEFAULT = 2000
MAX_UNITS_LIMIT = 1_000_000
"""The highest unit budget a campaign may set (max_units)."""


class BlockRange(Strict):
    from_: int = Field(alias="from", ge=0)
    to: int = Field(ge=0)
    step: int = Field(default=1, ge=1)


class BlockRandom(Strict):
    count: int = Field(ge=1, le=100_000)
    from_: int = Field(alias="from", ge=0)
    to: int = Field(ge=0)
    seed: int = Field(default=0, ge=0)


class BlocksSpec(Strict):
    """A list, {range: {from, to, step}} (inclusive) or {random: {count, from, to, seed}}."""

    blocks: list[int] | None = None
    range: BlockRange | None = None
    random: BlockRandom | None = None


class Campaign(Strict):
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", max_length=80)
    description: str = ""
    bench: str = Field(min_length=3)
    fresh: bool = False
    chips: list[int] = Field(default_factory=lambda: [0], min_length=1)
    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    max_units: int = Field(default=MAX_UNITS_DEFAULT, ge=1, le=MAX_UNITS_LIMIT)
    """The unit budget: a campaign that expands to more units is refused before it starts."""
    allow_test_mode: bool = False
    """The campaign runs test-mode operations (vendor test mode: MWS, ESP, latch sequences,
    inverse reads); a campaign whose steps ask for them is refused whole without this."""
    blocks: BlocksSpec
    steps: list[dict[str, Any]] = Field(min_length=1)
    analysis: str | None = Field(default=None, pattern=r"\.py$")
    """A Python file (relative to the campaign file) whose `report(rows, meta, plots)` builds
    the run's report.md: a paper reproduction's tables and figures from the rows alone."""

    @field_validator("blocks", mode="before")
    @classmethod
    def _blocks(cls, value: Any) -> Any:
        if isinstance(value, list):
            return {"blocks": value}
        if isinstance(value, dict) and len(value) == 1 and set(value) <= {"range", "random"}:
            return value
        raise ValueError(
            "blocks must be a list of block numbers, {range: {from, to, step}} "
            "or {random: {count, from, to, seed}}"
        )


class LoadedCampaign:
    """A validated campaign with the source text and line marks (for later errors)."""

    def __init__(self, campaign: Campaign, text: str, marks: Marks, path: Path | None) -> None:
        self.campaign = campaign
        self.text = text
        self.marks = marks
        self.path = path

    def error(self, path: tuple[str | int, ...], message: str) -> CampaignFileError:
        return CampaignFileError(f"{self.marks.where(path)}: {field_name(path)}: {message}")


def _allowed(err: Any) -> str:
    ctx = err.get("ctx") or {}
    if err["type"] == "extra_forbidden":
        return ""
    if err["type"] == "literal_error" and "expected" in ctx:
        return f" (allowed: {ctx['expected']})"
    return ""


def raise_validation(exc: ValidationError, marks: Marks, prefix: tuple[str | int, ...]) -> None:
    """Turn pydantic's first error into a CampaignFileError with file:line:field."""
    err = exc.errors()[0]
    raw = [p for p in err["loc"] if isinstance(p, str | int)]
    if raw[:2] == ["blocks", "blocks"]:  # the list form is wrapped for validation
        raw = raw[1:]
    loc = tuple("from" if p == "from_" else p for p in (*prefix, *raw))
    msg = str(err["msg"]).removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        raise CampaignFileError(
            f"{marks.where(loc)}: {field_name(loc[:-1])}: unknown field '{loc[-1]}'"
            f"{_fields_hint(prefix, err)}"
        )
    raise CampaignFileError(f"{marks.where(loc)}: {field_name(loc)}: {msg}{_allowed(err)}")


def _fields_hint(prefix: tuple[str | int, ...], err: Any) -> str:
    model: type[BaseModel] = Campaign
    if prefix and prefix[0] == "steps" and len(prefix) >= 3:
        model = STEPS[str(prefix[2])].model
    names = [f.alias or n for n, f in model.model_fields.items()]
    if len(err["loc"]) > 1 and err["loc"][0] == "blocks":
        return " (allowed: a list, range or random)"
    return f" (allowed: {', '.join(names)})"


def parse_campaign(text: str, name: str, path: Path | None = None) -> LoadedCampaign:
    """Validate campaign text; CampaignFileError with file:line:field on any problem."""
    data, marks = load_marked(text, name)
    if not isinstance(data, dict):
        raise CampaignFileError(f"{name}:1: a campaign file is a mapping (name:, bench:, steps:)")
    try:
        campaign = Campaign.model_validate(data)
    except ValidationError as exc:
        raise_validation(exc, marks, ())
    loaded = LoadedCampaign(campaign, text, marks, path)
    for i, step in enumerate(campaign.steps):
        if not isinstance(step, dict) or len(step) != 1:
            raise loaded.error(
                ("steps", i), f"a step is one mapping 'kind: {{...}}' with a kind of {_kinds()}"
            )
        kind = next(iter(step))
        if kind not in STEPS:
            raise loaded.error(
                ("steps", i, kind), f"unknown step kind '{kind}' (allowed: {_kinds()})"
            )
        if step[kind] is not None and not isinstance(step[kind], dict):
            raise loaded.error(("steps", i, kind), "step parameters must be a mapping")
    return loaded


def _kinds() -> str:
    return ", ".join(STEPS)


def campaign_text(campaign: Campaign) -> str:
    """The campaign as campaign-file YAML (what `parse_campaign` reads back to an equal model).

    A run keeps this text in its run.json, so an in-memory campaign resumes like a file.
    """
    data = campaign.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    data["blocks"] = data["blocks"].get("blocks", data["blocks"])  # the list form, as written
    for key in ("name", "bench", "steps"):
        data.setdefault(key, getattr(campaign, key))
    text: str = yaml.safe_dump(data, sort_keys=False, default_flow_style=None)
    return text


def load_campaign(path: str | Path) -> LoadedCampaign:
    """Read and validate a campaign file (CampaignFileError if it cannot be read, is too large
    or is not UTF-8)."""
    p = Path(path)
    return parse_campaign(read_text_file(p, "campaign file", CampaignFileError), str(p), p)
