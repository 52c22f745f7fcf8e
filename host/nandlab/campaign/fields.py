"""Field types shared by the campaign file's models and the step kinds' parameter models."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from nandlab.characterize.readback import RANDOM_MSB, STRING_CHECKER
from nandlab.ops.pattern import PATTERNS

Mode = Literal["native", "slc"]


class Strict(BaseModel):
    """A campaign model: unknown fields are errors, values are frozen, floats are finite
    (a YAML .nan or .inf, or a number too large for a float, is an error naming the field)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


MAX_WLS = 65536
"""Longest WL list: more than any part's WLs per block, small enough to build."""


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
            if not a.isdigit() or (b and not b.isdigit()) or len(a) > 9 or len(b) > 9:
                raise ValueError(f"'{value}' is not a WL list: use e.g. 0-7 or 0-3,8 or [0, 1]")
            if len(out) + int(b or a) - int(a) + 1 > MAX_WLS:
                raise ValueError(f"'{value}' lists more than {MAX_WLS} WLs")
            out.extend(range(int(a), int(b or a) + 1))
        if out:
            return out
    raise ValueError(f"{value!r} is not a WL list: use e.g. 0-7 or 0-3,8 or [0, 1]")


WlList = Annotated[list[int], BeforeValidator(parse_wl_list), Field(min_length=1)]
"""A WL list field: '0-3,8', 5 or [0, 1, 2] in the campaign file."""


def check_pattern(value: str) -> str:
    """A data pattern name or file:PATH (ValueError for anything else)."""
    names = (*PATTERNS, STRING_CHECKER, RANDOM_MSB)
    if value in names or (value.startswith("file:") and len(value) > 5):
        return value
    raise ValueError(f"pattern '{value}' is unknown: use one of {', '.join(names)} or file:PATH")
