"""YAML files validated by a pydantic model, with errors that name the file and each field."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TypeVar

import yaml
from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)


def parse_yaml_model(
    text: str,
    source: str,
    model: type[M],
    what: str,
    error: Callable[[str], Exception],
    hide: Collection[str] = (),
) -> M:
    """Validate YAML `text` as `model`; `error(message)` is raised naming `source` (the file),
    `what` it should be ("board file") and every invalid field (path parts in `hide`, such as
    a discriminated union's tag, left out)."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise error(f"{source}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise error(f"{source}: a {what} is a YAML mapping of fields")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        lines = [f"{source}: invalid {what}"]
        for e in exc.errors():
            field = ".".join(str(p) for p in e["loc"] if p not in hide) or "(top level)"
            lines.append(f"  field '{field}': {e['msg']}")
        raise error("\n".join(lines)) from None
