"""End-to-end CLI tests: every test gets its own NANDLAB_DATA_DIR (virtual die images)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from nandlab.cli.app import cli

URL = "sim://mlc-64l?seed=3"


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "nandlab-data"
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(folder))
    return folder


@pytest.fixture
def run() -> Callable[..., Result]:
    """Invoke `nandlab ARGS...`; returns click's Result (stdout / stderr apart)."""
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(cli, list(args), catch_exceptions=False)

    return invoke


@pytest.fixture
def run_json(run: Callable[..., Result]) -> Callable[..., Any]:
    """Invoke with --json; assert success and exactly one JSON document on stdout."""

    def invoke(*args: str) -> Any:
        result = run(*args, "--json")
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    return invoke
