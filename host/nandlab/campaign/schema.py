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
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from nandlab.campaign.yamlmarks import CampaignFileError, Marks, field_name, load_marked
from nandlab.characterize.retention import RETENTION_FORM, parse_retention
from nandlab.errors import UsageError
from nandlab.ops.pattern import PATTERNS

MAX_UNITS_DEFAULT = 2000
MAX_PEC = 1_000_000
MEASUREMENTS = ("rber", "vth", "retry", "latency", "power")
Mode = Literal["native", "slc"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def parse_wl_list(value: Any) -> list[int]:
    """'0-3,8' or [0, 1, 2] -> list of WLs (ValueError for anything else)."""
    if isinstance(value, int):
        return [value]
    if isinstance(value, list) and all(isinstance(v, int) for v in value):
        return list(value)
    if isinstance(value, str):
        out: list[int] = []
        for part in value.split(","):
            a, _, b = part.strip().partition("-")
            if not a.isdigit() or (b and not b.isdigit()):
                raise ValueError(f"'{value}' is not a WL list: use e.g. 0-7 or 0-3,8 or [0, 1]")
            out.extend(range(int(a), int(b or a) + 1))
        if out:
            return out
    raise ValueError(f"{value!r} is not a WL list: use e.g. 0-7 or 0-3,8 or [0, 1]")


WlList = Annotated[list[int], Field(min_length=1)]


def _check_pattern(value: str) -> str:
    if value in PATTERNS or (value.startswith("file:") and len(value) > 5):
        return value
    raise ValueError(f"pattern '{value}' is unknown: use one of {', '.join(PATTERNS)} or file:PATH")


class CycleStep(_Strict):
    """P/E cycle each block up to `pec` cycles (erase count) with a data pattern."""

    pec: int = Field(ge=1, le=MAX_PEC)
    pattern: str = "random"
    mode: Mode = "native"
    fast_forward: bool = True
    power: bool = False

    _pattern = field_validator("pattern")(_check_pattern)


class ProgramStep(_Strict):
    """Program WLs of each block (just erased by a cycle step) with a pattern."""

    wls: WlList = Field(default_factory=lambda: list(range(8)))
    pattern: str = "random"
    scramble: bool = False
    inverse: bool = False
    mode: Mode = "native"
    power: bool = False

    _pattern = field_validator("pattern")(_check_pattern)

    @field_validator("wls", mode="before")
    @classmethod
    def _wls(cls, value: Any) -> list[int]:
        return parse_wl_list(value)


class BakeStep(_Strict):
    """Retention: bake for `hours` at `temp_C`, or for the equivalent of `retention` (AGE@TEMP)."""

    retention: str | None = None
    temp_C: float | None = Field(default=None, ge=-40, le=300)
    hours: float | None = Field(default=None, ge=0, le=1e6)
    activation_energy_eV: float | None = Field(default=None, gt=0, le=3)

    @model_validator(mode="after")
    def _one_form(self) -> BakeStep:
        if (self.retention is None) == (self.hours is None):
            raise ValueError("give either retention (AGE@TEMP) or hours (with temp_C), not both")
        if self.hours is not None and self.temp_C is None:
            raise ValueError("hours needs temp_C (the oven temperature, °C)")
        if self.retention is not None:
            try:
                parse_retention(self.retention)
            except UsageError:
                raise ValueError(f"retention '{self.retention}': use {RETENTION_FORM}") from None
        return self


class DisturbStep(_Strict):
    """Read disturb: `reads` reads of WLs next to the programmed ones (or of `wls`)."""

    reads: int = Field(ge=1, le=10_000_000)
    wls: WlList | None = None
    mode: Mode = "native"

    @field_validator("wls", mode="before")
    @classmethod
    def _wls(cls, value: Any) -> list[int] | None:
        return None if value is None else parse_wl_list(value)


class MeasureStep(_Strict):
    """Measurements of the programmed WLs; `what` lists them (rber, vth, retry, latency, power)."""

    what: list[Literal["rber", "vth", "retry", "latency", "power"]] = Field(min_length=1)
    wls: WlList | None = None
    chunk_bytes: int | None = Field(default=None, ge=16, le=65536)
    vth_wl: int | None = Field(default=None, ge=0)
    code_step: int = Field(default=1, ge=1, le=64)
    retry_code_step: int = Field(default=4, ge=1, le=64)
    repeats: int = Field(default=1, ge=1, le=1000)

    @field_validator("what", mode="before")
    @classmethod
    def _what(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("wls", mode="before")
    @classmethod
    def _wls(cls, value: Any) -> list[int] | None:
        return None if value is None else parse_wl_list(value)


class ComputeStep(_Strict):
    """In-flash bitwise operations over the programmed data, checked against the host.

    `layout: pair` takes A = LSB page and B = MSB page of each WL; `layout: wordlines`
    takes the WLs as operands W0, W1, ... (nandlab.characterize.compute).
    """

    scheme: str = Field(min_length=1)
    ops: list[str] = Field(min_length=1)
    layout: Literal["pair", "wordlines"] = "pair"
    wls: WlList | None = None
    scratch: list[int] = Field(default_factory=list)
    allow_test_mode: bool = False
    against_reads: bool = False
    options: dict[str, bool | int | float | str] = Field(default_factory=dict)

    @field_validator("ops", mode="before")
    @classmethod
    def _ops(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("scheme")
    @classmethod
    def _scheme(cls, value: str) -> str:
        from nandlab.schemes.compute import load_schemes

        known = load_schemes()
        if value not in known:
            raise ValueError(f"scheme '{value}' is unknown (allowed: {', '.join(known)})")
        return value

    @field_validator("wls", mode="before")
    @classmethod
    def _wls(cls, value: Any) -> list[int] | None:
        return None if value is None else parse_wl_list(value)

    @model_validator(mode="after")
    def _expressions(self) -> ComputeStep:
        from nandlab.characterize.compute import check_ops

        try:
            check_ops(self.ops, self.layout, len(self.wls) if self.wls else 64)
        except UsageError as exc:
            raise ValueError(str(exc)) from None
        return self


class WaitStep(_Strict):
    """Idle for `hours` (virtual on a sim bench) at the controller's temperature."""

    hours: float = Field(ge=0, le=1e6)


class TemperatureStep(_Strict):
    """Set the temperature controller (virtual on a sim bench) to `temp_C`."""

    temp_C: float = Field(ge=-40, le=150)


STEP_KINDS: dict[str, type[_Strict]] = {
    "cycle": CycleStep,
    "program": ProgramStep,
    "bake": BakeStep,
    "disturb": DisturbStep,
    "measure": MeasureStep,
    "compute": ComputeStep,
    "wait": WaitStep,
    "temperature": TemperatureStep,
}
PER_BLOCK = ("cycle", "program", "disturb", "measure", "compute")
"""Kinds that run once per (chip, block); the others act on the whole bench."""
PARTITION = ("cycle", "program")
"""Kinds whose sweep points are spread over groups of blocks instead of repeated on each."""


class BlockRange(_Strict):
    from_: int = Field(alias="from", ge=0)
    to: int = Field(ge=0)
    step: int = Field(default=1, ge=1)


class BlockRandom(_Strict):
    count: int = Field(ge=1, le=100_000)
    from_: int = Field(alias="from", ge=0)
    to: int = Field(ge=0)
    seed: int = Field(default=0, ge=0)


class BlocksSpec(_Strict):
    """A list, {range: {from, to, step}} (inclusive) or {random: {count, from, to, seed}}."""

    blocks: list[int] | None = None
    range: BlockRange | None = None
    random: BlockRandom | None = None


class Campaign(_Strict):
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", max_length=80)
    description: str = ""
    bench: str = Field(min_length=3)
    fresh: bool = False
    chips: list[int] = Field(default_factory=lambda: [0], min_length=1)
    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    max_units: int = Field(default=MAX_UNITS_DEFAULT, ge=1, le=1_000_000)
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
        model = STEP_KINDS[str(prefix[2])]
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
        if kind not in STEP_KINDS:
            raise loaded.error(
                ("steps", i, kind), f"unknown step kind '{kind}' (allowed: {_kinds()})"
            )
        if step[kind] is not None and not isinstance(step[kind], dict):
            raise loaded.error(("steps", i, kind), "step parameters must be a mapping")
    return loaded


def _kinds() -> str:
    return ", ".join(STEP_KINDS)


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
    """Read and validate a campaign file (UsageError if it cannot be read)."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as exc:
        raise UsageError(f"cannot read campaign file {p}: {exc.strerror or exc}") from None
    return parse_campaign(text, str(p), p)
