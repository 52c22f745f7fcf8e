"""Runtime dependencies are ranges; constraints.txt pins each to one version inside its range."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[2]


def _pins() -> dict[str, str]:
    pins = {}
    for line in (REPO / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not an exact pin (name==version)"
            pins[canonicalize_name(name)] = version
    return pins


def _requirements() -> list[Requirement]:
    project = tomllib.loads((REPO / "host" / "pyproject.toml").read_text())["project"]
    reqs = [Requirement(r) for r in project["dependencies"]]
    for extra in project["optional-dependencies"].values():
        reqs += [Requirement(r) for r in extra]
    return reqs


def test_runtime_dependencies_are_ranges() -> None:
    project = tomllib.loads((REPO / "host" / "pyproject.toml").read_text())["project"]
    exact = [r for r in project["dependencies"] if "==" in r]
    assert not exact, f"pin these in constraints.txt, give pyproject a range: {exact}"


def test_every_dependency_pinned_inside_its_range() -> None:
    pins = _pins()
    for req in _requirements():
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} is not pinned in constraints.txt"
        assert req.specifier.contains(pins[name], prereleases=True), (
            f"constraints.txt pins {req.name}=={pins[name]}, outside {req.specifier}"
        )


HARDWARE_ONLY = {"pyftdi", "pyusb", "pyvisa", "ppk2-api"}
"""Packages only real benches and instruments use: never in the base set the demo installs."""


def test_hardware_packages_are_an_extra() -> None:
    project = tomllib.loads((REPO / "host" / "pyproject.toml").read_text())["project"]
    base = {canonicalize_name(Requirement(r).name) for r in project["dependencies"]}
    hw = {canonicalize_name(Requirement(r).name) for r in project["optional-dependencies"]["hw"]}
    assert not base & HARDWARE_ONLY, f"move to the hw extra: {sorted(base & HARDWARE_ONLY)}"
    assert hw >= HARDWARE_ONLY


def test_make_demo_installs_the_base_set_and_make_test_every_extra() -> None:
    rules: dict[str, list[str]] = {}
    target = ""
    for line in (REPO / "Makefile").read_text().splitlines():
        if line and not line[0].isspace() and ":" in line and "=" not in line.split(":")[0]:
            target, _, deps = line.partition(":")
            rules[target] = [deps.strip()]
        elif line.startswith("\t") and target:
            rules[target].append(line.strip())
    installs = {t: " ".join(r) for t, r in rules.items() if "pip install" in " ".join(r)}
    (demo_stamp,) = rules["demo"][0].split()
    demo_install = installs[demo_stamp]
    assert "-e host" in demo_install and "host[" not in demo_install
    extras = {
        e
        for t, cmd in installs.items()
        if "host[" in cmd
        for e in cmd.split("host[")[1].split("]")[0].split(",")
    }
    project = tomllib.loads((REPO / "host" / "pyproject.toml").read_text())["project"]
    assert extras == set(project["optional-dependencies"]), "make setup must install every extra"
