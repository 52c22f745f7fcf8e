"""The long first step of an `rtl://` bench (compiling the RTL simulation) says what it is
doing and how long it took last time, before the wait; an up-to-date build is silent."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import pytest

from nandlab.rtlsim import sim_env


@pytest.fixture
def fake_rtl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """RTL sources and a build folder under tmp_path; the compiler is a stand-in that makes
    the build folder (the real one takes minutes)."""
    rtl = tmp_path / "rtl"
    (rtl / "include").mkdir(parents=True)
    (rtl / "nandlab_ops_pkg.sv").write_text("package p; endpackage\n")
    (rtl / "top.sv").write_text("module top; endmodule\n")
    monkeypatch.setattr(sim_env, "RTL_DIR", rtl)
    monkeypatch.setattr(sim_env, "BUILD_ROOT", tmp_path / "build")
    monkeypatch.setattr(sim_env, "runner_for", lambda sim: object())
    builds: list[str] = []

    def compile_(runner: Any, toplevel: str, sim: str, params: Any, mods: Any, folder: Path):
        folder.mkdir(parents=True, exist_ok=True)
        builds.append(toplevel)

    monkeypatch.setattr(sim_env, "_build_locked", compile_)
    return builds


def _notices(caplog: pytest.LogCaptureFixture) -> list[str]:
    out = [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO]
    caplog.clear()
    return out


def test_a_build_says_what_and_how_long(
    fake_rtl: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="nandlab.rtlsim")
    folder = sim_env.build("top", "verilator", {"N": 1})
    first = _notices(caplog)
    assert "building the RTL simulation of top with verilator" in first[0]
    assert "a first build takes minutes" in first[0] and "built in" in first[1]
    assert (folder.parent / f"{folder.name}.seconds").is_file()

    sim_env.build("top", "verilator", {"N": 1})  # up to date: nothing to say
    assert _notices(caplog) == []

    source = sim_env.RTL_DIR / "top.sv"
    later = source.stat().st_mtime + 10
    os.utime(source, (later, later))  # an edited source: a rebuild, with the last time
    sim_env.build("top", "verilator", {"N": 1})
    again = _notices(caplog)
    assert "the last build took 0 s" in again[0]
    assert fake_rtl == ["top", "top", "top"]  # the compiler always runs (it is incremental)
