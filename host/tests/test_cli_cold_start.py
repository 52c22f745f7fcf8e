"""Cold start of the console script: the group and a chip command start without the
heavy libraries (numba, pyarrow, pandas, duckdb, matplotlib, scipy), which load only
with the commands that use them; the group's help lists every command as Click would.

The import checks run in a fresh interpreter: this test process has them all loaded.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from nandlab.cli.app import COMMANDS, cli
from nandlab.profiles import builtin_names

HEAVY = ("numba", "pyarrow", "pandas", "duckdb", "matplotlib", "scipy")
CMD_MODULES = sorted({module for module, _ in COMMANDS.values()})


def _loaded_after(
    code: str, env: dict[str, str] | None = None, watch: tuple[str, ...] = HEAVY
) -> list[str]:
    """The `watch` modules in sys.modules after running `code` in a fresh interpreter."""
    report = f"print(json.dumps([m for m in {watch!r} if m in sys.modules]))"
    probe = f"{code}\nimport json, sys\n{report}"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True,
        env={**os.environ, **(env or {})},
    )
    loaded: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def test_group_help_imports_no_heavy_module() -> None:
    code = (
        "import click\nimport nandlab.cli.main\nfrom nandlab.cli.app import cli\n"
        "cli.get_help(click.Context(cli))"
    )
    assert _loaded_after(code) == []


INFO = (
    "import sys\nfrom nandlab.cli.main import main\n"
    "sys.argv = ['nandlab', 'info', 'sim://slc-search', '--fresh'{json}]\n"
    "try:\n    main()\nexcept SystemExit as e:\n    assert e.code == 0, e.code"
)


def test_info_on_a_virtual_chip_imports_no_heavy_module(tmp_path: Path) -> None:
    code = INFO.format(json=", '--json'")
    assert _loaded_after(code, {"NANDLAB_DATA_DIR": str(tmp_path)}) == []


# what a read-only command on a sim bench does not use: board models (pydantic), the
# analysis package, the ledger, dry-run plans, progress bars (issue 16 item 4)
NOT_FOR_INFO = (
    "nandlab.boards", "nandlab.analysis", "nandlab.ledger", "nandlab.cli.plan", "rich.progress"
)


@pytest.mark.parametrize("json", ["", ", '--json'"])
def test_info_on_a_virtual_chip_leaves_out_what_it_does_not_use(tmp_path: Path, json: str) -> None:
    code = INFO.format(json=json)
    env = {"NANDLAB_DATA_DIR": str(tmp_path)}
    assert _loaded_after(code, env, NOT_FOR_INFO) == []


def test_the_probe_sees_each_left_out_module() -> None:
    code = "\n".join(f"import {m}" for m in NOT_FOR_INFO)
    assert _loaded_after(code, watch=NOT_FOR_INFO) == list(NOT_FOR_INFO)


def test_the_probe_sees_a_heavy_import() -> None:
    assert "numba" in _loaded_after("import nandlab.vchip.kernel")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_listed_help_is_the_commands_own(name: str) -> None:
    command = cli.get_command(click.Context(cli), name)
    assert command is not None and command.name == name
    for limit in (30, 45, 66, 1000):
        listed = click.Command(name, help=COMMANDS[name][1]).get_short_help_str(limit)
        assert listed == command.get_short_help_str(limit)


def test_every_command_of_the_command_modules_is_listed() -> None:
    """A command written in a command module but missing from COMMANDS would not exist."""
    defined, sub = set(), set()
    for module in CMD_MODULES:
        mod = importlib.import_module(f"nandlab.cli.{module}")
        for value in vars(mod).values():
            if isinstance(value, click.Group):
                sub |= set(value.commands)
            home = getattr(getattr(value, "callback", None), "__module__", "")
            if isinstance(value, click.Command) and home == mod.__name__:
                defined.add(value.name)
    assert defined - sub == set(COMMANDS)


def _imported(code: str, env: dict[str, str]) -> set[str]:
    """Every module `python -X importtime` reports for `code` in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True,
        check=True, env={**os.environ, **env},
    )
    return {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    } - {"imported package"}


@pytest.fixture(scope="module")
def warm_data_dir(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A data root and a profile cache holding every built-in profile (as after a first
    command)."""
    root = tmp_path_factory.mktemp("warm")
    env = {"NANDLAB_DATA_DIR": str(root / "data"), "NANDLAB_CACHE_DIR": str(root / "cache")}
    warm = "from nandlab.profiles import builtin_names, load_profile\n" + (
        "for name in builtin_names():\n    load_profile(name)"
    )
    subprocess.run([sys.executable, "-c", warm], check=True, env={**os.environ, **env})
    return env


@pytest.mark.parametrize("profile", builtin_names())
def test_info_on_each_profile_imports_neither_heavy_modules_nor_the_yaml_path(
    warm_data_dir: dict[str, str], profile: str
) -> None:
    """Issue 16 item 4: `nandlab info sim://<profile>` loads no numba / matplotlib / pyarrow,
    and with the profile cached neither the YAML parser nor a pydantic validator (whose
    plugin lookup imports importlib.metadata)."""
    code = INFO.format(json="").replace("sim://slc-search", f"sim://{profile}")
    imported = _imported(code, warm_data_dir)
    assert "nandlab.vchip.die" in imported  # the probe saw the command run
    assert imported & {*HEAVY, "yaml", "importlib.metadata", "nandlab.yamlfile"} == set()


def test_the_importtime_probe_sees_the_yaml_path_without_a_cache(tmp_path: Path) -> None:
    env = {"NANDLAB_DATA_DIR": str(tmp_path / "data"), "NANDLAB_CACHE_DIR": str(tmp_path / "c")}
    imported = _imported(INFO.format(json=""), env)
    assert {"yaml", "nandlab.yamlfile"} <= imported


def test_loading_a_profile_builds_the_profile_validator_not_each_sections(tmp_path: Path) -> None:
    """The ~30 section models of a profile get no validator of their own at import or load
    (pydantic defer_build): Profile's validator checks them inline."""
    code = INFO.format(json="") + (
        "\nfrom nandlab.profiles import model, physics_model\n"
        "built = {n for m in (model, physics_model) for n, c in vars(m).items()\n"
        "         if getattr(c, '__pydantic_complete__', False) and c.__module__ == m.__name__}"
    )
    env = {"NANDLAB_DATA_DIR": str(tmp_path / "data"), "NANDLAB_CACHE_DIR": str(tmp_path / "c")}
    watch = ("Profile", "Geometry", "Timing", "Identity", "Physics")
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nprint(sorted(built & set({watch!r})))"],
        capture_output=True, text=True, check=True, env={**os.environ, **env},
    )
    assert done.stdout.strip().splitlines()[-1] == "['Profile']"
