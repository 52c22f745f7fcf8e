"""YAML and text files read within bounds, validated by a pydantic model, with errors that name
the file and each field.

Campaign, profile and board files come from users and scripts, so reading one must end in
data or in a typed error, never in a hang, a MemoryError or a RecursionError:

- `read_text_file` reads a regular file only (a FIFO would block, `/dev/zero` never ends),
  at most `MAX_TEXT_BYTES` of it, and decodes UTF-8 with an error that names the byte
  offset.
- `compose_bounded` walks the YAML event stream first (no recursion) and refuses a document
  nested deeper than `MAX_DEPTH` or with more than `MAX_ALIASES` aliases; it then composes
  the node graph and refuses one that refers to itself or whose aliases expand to more than
  `MAX_NODES` values (an "alias bomb" of a few lines expands to billions).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)

MAX_TEXT_BYTES = 1 << 20
"""Largest campaign / profile / board file (1 MiB; the built-in profiles are about 5 KiB)."""
MAX_DEPTH = 40
"""Deepest nesting of mappings and sequences, counted through aliases."""
MAX_ALIASES = 1000
"""Most aliases (*name) in one document."""
MAX_NODES = 200_000
"""Most values a document may hold once every alias is expanded."""


def read_text_file(
    path: Path, what: str, error: Callable[[str], Exception], limit: int = MAX_TEXT_BYTES
) -> str:
    """The UTF-8 text of `path` (a `what`, e.g. "campaign file"); `error(message)` when it
    cannot be read, holds more than `limit` bytes or is not UTF-8."""
    try:
        data = read_regular(path, limit)
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the name
        raise error(f"cannot read {what} {path}: {getattr(exc, 'strerror', None) or exc}") from None
    if len(data) > limit:
        raise error(f"{what} {path} is larger than {limit} bytes: is it the right file?")
    return decode_text(data, f"{what} {path}", error)


def read_regular(path: Path, limit: int) -> bytes:
    """At most `limit` + 1 bytes of the regular file `path`; OSError for anything else (a FIFO
    would block the read, a device never ends)."""
    with open(path, "rb", opener=_nonblocking) as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        return f.read(limit + 1)


def _nonblocking(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NONBLOCK)  # opening a FIFO without a writer blocks


def decode_text(data: bytes, source: str, error: Callable[[str], Exception]) -> str:
    """`data` decoded as UTF-8; `error` names the first byte that is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(
            f"{source} is not UTF-8 text (byte {exc.start} is 0x{data[exc.start]:02x}): "
            "save it as UTF-8"
        ) from None


def compose_bounded(
    text: str, source: str, error: Callable[[str], Exception]
) -> yaml.Node | None:
    """The node graph of one YAML document within the module's bounds (None: empty).

    `error(message)` for a syntax error or a bound exceeded; the message starts with
    `source:LINE:`."""
    if len(text) > MAX_TEXT_BYTES:
        raise error(f"{source}:1: the document is larger than {MAX_TEXT_BYTES} characters")
    depth = aliases = 0
    try:  # libyaml's parser: the pure-Python one costs ~10 ms of every cold start per profile
        for event in yaml.parse(text, Loader=yaml.CSafeLoader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    raise error(f"{source}:{_line(event)}: nested deeper than {MAX_DEPTH} levels")
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
            elif isinstance(event, yaml.AliasEvent):
                aliases += 1
                if aliases > MAX_ALIASES:
                    raise error(f"{source}:{_line(event)}: more than {MAX_ALIASES} aliases")
        node = yaml.compose(text, Loader=yaml.CSafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc)
        raise error(f"{source}:{line}: not valid YAML: {problem}") from None
    if node is not None:
        _check_expansion(node, source, error)
    return node


def _line(event: yaml.Event) -> int:
    return event.start_mark.line + 1 if event.start_mark is not None else 1


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _check_expansion(root: yaml.Node, source: str, error: Callable[[str], Exception]) -> None:
    """Refuse a graph with a cycle, or whose expanded size or depth exceeds the bounds.

    Iterative post-order walk; a node shared through aliases is sized once (memo), so the
    walk itself stays linear in the composed graph."""
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            kids = _children(node)
            size[key] = 1 + sum(size[id(k)] for k in kids)
            depth[key] = 1 + max((depth[id(k)] for k in kids), default=0)
            where = f"{source}:{node.start_mark.line + 1}"
            if size[key] > MAX_NODES:
                raise error(f"{where}: its aliases expand to more than {MAX_NODES} values")
            if depth[key] > MAX_DEPTH:
                raise error(f"{where}: its aliases nest deeper than {MAX_DEPTH} levels")
            continue
        if key in size:
            continue
        if key in on_path:
            raise error(f"{source}:{node.start_mark.line + 1}: an anchor refers to itself")
        on_path.add(key)
        stack.append((node, True))
        for kid in _children(node):
            if id(kid) in on_path:
                raise error(f"{source}:{kid.start_mark.line + 1}: an anchor refers to itself")
            if id(kid) not in size:
                stack.append((kid, False))


def construct(
    node: yaml.Node, where: str, error: Callable[[str], Exception], loader: yaml.SafeLoader
) -> Any:
    """The Python value of a (bounded) node; a scalar YAML cannot represent (an integer of
    thousands of digits, a bad timestamp) is `error`, naming `where`."""
    try:
        return loader.construct_object(node, deep=True)
    except (yaml.YAMLError, ValueError, OverflowError) as exc:
        raise error(f"{where}: value cannot be read: {exc}") from None


def safe_loader() -> yaml.SafeLoader:
    """A SafeLoader to construct values from composed nodes."""
    return yaml.SafeLoader("")


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
    node = compose_bounded(text, source, error)
    data = None if node is None else construct(node, source, error, safe_loader())
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
