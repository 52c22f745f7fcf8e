"""The committed fuzz corpus (fuzz/corpus/<target>/) replayed through the fuzz targets
(fuzz/targets.py) that `make fuzz` drives with atheris: every seed, and every input a fuzzing
run found and we kept, must end in a result or the typed error of its parser. Replaying
changes nothing on disk: the data folder stays absent."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

FUZZ = Path(__file__).resolve().parent.parent / "fuzz"


def _targets() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "nandlab_fuzz_targets", FUZZ / "targets.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TARGETS = _targets().TARGETS
CASES = [(t, p) for t in TARGETS for p in sorted((FUZZ / "corpus" / t).iterdir())]


def test_every_target_has_seeds() -> None:
    for target in TARGETS:
        assert sum(1 for t, _ in CASES if t == target) >= 5, target


@pytest.mark.parametrize(
    ("target", "path"), CASES, ids=[f"{t}/{p.name[:8]}" for t, p in CASES]
)
def test_corpus_input(target: str, path: Path, data_dir: Path) -> None:
    TARGETS[target](path.read_bytes())
    assert not data_dir.exists(), "a parser wrote to the data folder"
