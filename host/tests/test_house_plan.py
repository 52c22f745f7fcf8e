"""The house plan's rules that import-linter cannot see (docs/architecture.md).

- The controller side knows only what it measures or what a datasheet says:
  no module of it reads a profile's `physics` (the virtual die's model).
- No module edits `sys.path`: packages are installed, helpers are imported.
- Files by concern: no host module over 500 lines, generated ones aside.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

HOST = Path(__file__).resolve().parents[1] / "nandlab"
REPO = HOST.parents[1]
CONTROLLER = ("onfi_spec", "ops", "sequences", "onfi", "schemes", "characterize",
              "analysis", "campaign", "cli", "serve", "bench")
GENERATED = {"_generated.py"}
MAX_LINES = 500


def _modules(*roots: Path) -> list[Path]:
    return sorted(p for root in roots for p in root.rglob("*.py"))


def _tree(path: Path) -> ast.AST:
    return ast.parse(path.read_text(), filename=str(path))


def _reads_physics(node: ast.AST) -> bool:
    """`x.physics`, `x["physics"]`, `getattr(x, "physics")`, `x.get("physics")`."""
    if isinstance(node, ast.Attribute):
        return node.attr == "physics"
    if isinstance(node, ast.Subscript):
        key = node.slice
        return isinstance(key, ast.Constant) and key.value == "physics"
    if isinstance(node, ast.Call) and node.args:
        func = node.func
        named = (isinstance(func, ast.Name) and func.id in ("getattr", "hasattr")) or (
            isinstance(func, ast.Attribute) and func.attr in ("get", "pop", "setdefault")
        )
        at = 1 if isinstance(func, ast.Name) else 0
        arg = node.args[at] if len(node.args) > at else None
        return named and isinstance(arg, ast.Constant) and arg.value == "physics"
    return False


# the transports and drivers of real hardware plan from what the chip declares, too
REAL_HARDWARE = ("transport/ftdi", "firmware", "instruments")


@pytest.mark.parametrize("package", [*CONTROLLER, *REAL_HARDWARE, "characterization"])
def test_controller_never_reads_physics(package: str) -> None:
    """Nothing on the controller side, nor the real-hardware transports and drivers, nor the
    reproductions' analyses, reads a profile's physics, by attribute, key or getattr (file
    and line named)."""
    root = REPO / "characterization" if package == "characterization" else HOST / package
    assert root.is_dir(), root
    reads = [
        f"{path.relative_to(REPO)}:{node.lineno}"
        for path in _modules(root)
        for node in ast.walk(_tree(path))
        if _reads_physics(node)
    ]
    assert not reads, f"the controller side reads a profile's physics: {reads}"


def test_the_physics_check_sees_every_form() -> None:
    forms = ['p.physics', 'p["physics"]', 'getattr(p, "physics")', 'd.get("physics")']
    assert all(
        any(_reads_physics(n) for n in ast.walk(ast.parse(f))) for f in forms
    )
    assert not any(_reads_physics(n) for n in ast.walk(ast.parse('p.geometry; d.get("x")')))


def test_no_sys_path_edits() -> None:
    roots = [REPO / d for d in ("host", "hw", "tests", "bench", "characterization")]
    edits = []
    for path in _modules(*roots):
        if ".venv" in path.parts or "sim_build" in path.parts:
            continue
        for node in ast.walk(_tree(path)):
            if (
                isinstance(node, ast.Attribute)
                and node.attr == "path"
                and isinstance(node.value, ast.Name)
                and node.value.id == "sys"
            ):
                edits.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not edits, f"sys.path used (install the package / import it instead): {edits}"


def test_host_modules_by_concern() -> None:
    big = {
        str(p.relative_to(REPO)): n
        for p in _modules(HOST)
        if p.name not in GENERATED and (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert not big, f"host modules over {MAX_LINES} lines: {big}"


def test_architecture_walk_names_real_files() -> None:
    """Every file path docs/architecture.md names (`folder/file.py`, `.sv`, ... in backticks)
    exists, under host/nandlab/ or from the repository root."""
    import re

    text = (REPO / "docs" / "architecture.md").read_text()
    named = set(re.findall(r"`([\w.-]+/[\w./-]+\.(?:py|sv|yaml|toml|md))`", text))
    assert len(named) > 10, "the walk-through names the files of each hop"
    missing = sorted(n for n in named if not ((HOST / n).exists() or (REPO / n).exists()))
    assert not missing, f"docs/architecture.md names files that do not exist: {missing}"
