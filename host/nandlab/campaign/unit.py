"""A measurement unit: one step at one sweep point on one block (or on the whole bench)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel


@dataclass(frozen=True)
class Unit:
    """One measurement unit: a step applied at one sweep point to one block (or the bench)."""

    index: int
    key: str
    step: int
    kind: str
    params: BaseModel
    point: dict[str, Any]
    seed: int
    ce: int | None = None
    block: int | None = None
