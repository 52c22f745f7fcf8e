"""YAML loading that remembers where every value came from (file and line).

`load_marked(text, name)` returns plain Python data and a `Marks` map from a
value's path (tuple of keys / list indices) to its 1-based line, so schema
errors can say `file:line: field: ...`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from nandlab.errors import UsageError
from nandlab.yamlfile import compose_bounded, construct, safe_loader

Path_ = tuple[str | int, ...]


class CampaignFileError(UsageError):
    """A campaign file is malformed or contradictory; the message names file, line and field."""


@dataclass
class Marks:
    """Line (1-based) of every value, by path; `file` names the source."""

    file: str
    lines: dict[Path_, int] = field(default_factory=dict)

    def line(self, path: Path_) -> int:
        """Line of `path`, or of its nearest ancestor that has one."""
        p = tuple(path)
        while p:
            if p in self.lines:
                return self.lines[p]
            p = p[:-1]
        return self.lines.get((), 1)

    def where(self, path: Path_) -> str:
        return f"{self.file}:{self.line(path)}"


def field_name(path: Path_) -> str:
    """('steps', 2, 'measure', 'what') -> 'steps[2].measure.what'."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def load_marked(text: str, name: str) -> tuple[Any, Marks]:
    """Parse one YAML document; CampaignFileError (with file:line) for a syntax error or a
    document beyond the bounds (size, depth, aliases)."""
    marks = Marks(name)
    node = compose_bounded(text, name, CampaignFileError)
    if node is None:
        raise CampaignFileError(f"{name}:1: the file is empty: a campaign needs name, bench, steps")
    return _build(node, (), marks, safe_loader()), marks


def _build(node: yaml.Node, path: Path_, marks: Marks, ctor: yaml.SafeLoader) -> Any:
    line = node.start_mark.line + 1
    marks.lines[path] = line
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key_line = key_node.start_mark.line + 1
            key = construct(key_node, f"{marks.file}:{key_line}", CampaignFileError, ctor)
            if not isinstance(key, str | int):
                raise CampaignFileError(
                    f"{marks.file}:{key_line}: keys must be names, not {type(key).__name__}"
                )
            if key in out:
                raise CampaignFileError(
                    f"{marks.file}:{key_line}: {field_name((*path, key))} is given twice"
                )
            out[key] = _build(value_node, (*path, key), marks, ctor)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_build(v, (*path, i), marks, ctor) for i, v in enumerate(node.value)]
    return construct(node, f"{marks.file}:{line}: {field_name(path)}", CampaignFileError, ctor)
