"""Search-in-Memory Table I from the I/O current model of characterization/sim/analysis.py:
the line through Table I's two currents, with VCCQ x current x bytes / clock, gives back the
table's energies (63 nJ, 1400 nJ, 22x), and the committed report carries the rows."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SIM = Path(__file__).resolve().parents[1] / "characterization" / "sim"


def analysis() -> ModuleType:
    spec = importlib.util.spec_from_file_location("analysis_sim_table_i", SIM / "analysis.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_io_current_line_and_table_i_energies() -> None:
    a = analysis()
    assert a.io_current_mA(40.0) == pytest.approx(11.0)
    assert a.io_current_mA(1600.0) == pytest.approx(152.0)
    assert a.io_current_mA(400.0) == pytest.approx(11.0 + 141.0 * 360.0 / 1560.0)
    sim, full, ratio = a.table_i(None)
    # Table I: 63 nJ and 1400 nJ (1.8 V x 11 mA x 3.2 us, 1.8 V x 152 mA x 5.12 us), 22x
    assert sim["measured"] == "63.4 nJ" and full["measured"] == "1401 nJ"
    assert ratio["measured"].startswith("22.1x")
    more = a.table_i(388.0)
    assert more[3]["measured"] == "7.3x (192 nJ)" and more[3]["within"] is False


def test_committed_report_has_the_table_i_rows() -> None:
    text = (SIM / "report.md").read_text()
    assert "| Table I | energy per point query, SiM: 128 B at 40 MHz | 63 nJ | 63.4 nJ |" in text
    assert "| 22x (128 B) | 7.3x (192 nJ) | no | predicted |" in text
