"""Search-in-Memory Table I in characterization/sim/analysis.py: the table's own arithmetic
(1.8 V x current x bytes / clock gives its 63 nJ, 1400 nJ, 22x) and the rows built from the
I/O energy the die's supply samples gave each point query."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SIM = Path(__file__).resolve().parents[1] / "characterization" / "sim"


def analysis() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "analysis_sim_table_i", SIM / "analysis.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_table_i_arithmetic() -> None:
    row = analysis().table_i_arithmetic()
    # 1.8 V x 11 mA x 128 B / 40 MHz = 63.36 nJ; 1.8 V x 152 mA x 8192 B / 1600 MHz = 1400.8 nJ
    assert row["measured"] == "63.4 vs 1401 nJ, 22.1x (its inputs: no claim)"
    assert row["within"] is None


def test_rows_from_the_measured_io_energy() -> None:
    a = analysis()
    assert a.table_i([{"chip_out": 388}]) == [
        a.table_i_arithmetic()
    ]  # nothing measured
    point = {"chip_out": 388, "chip_in": 24, "baseline_chip_out": 8192, "io_nJ": 90.0,
             "io_us": 5.0, "baseline_io_nJ": 900.0, "baseline_io_us": 10.0}  # fmt: skip
    _, sim_mA, full_mA, energy, ratio, bounds = a.table_i([point, point])
    # 90 nJ / (1.8 V x 5 us) = 10 mA, within 25 % of the datasheet's 11 mA
    assert (sim_mA["measured"], sim_mA["within"]) == ("10.0 mA", True)
    assert full_mA["measured"] == "50.0 mA" and full_mA["within"] is None
    assert energy["measured"] == "90.0 vs 900 nJ"
    assert (ratio["measured"], ratio["within"]) == ("10.0x", False)
    # static current alone: 10 us / 5 us; switching alone: 8192 B / 388 B out of the chip
    assert bounds["measured"] == "2.0x .. 21.1x"
    near = dict(point, baseline_io_nJ=90.0 * 21.0)
    assert a.table_i([near])[4]["within"] is True  # 21x is within 10 % of 22x


def test_committed_report_has_the_table_i_rows() -> None:
    text = (SIM / "report.md").read_text()
    assert (
        "| Table I | the table's arithmetic: 128 B at 40 MHz, 11 mA vs 8192 B at 1600 MHz"
        in text
    )
    assert (
        "| Table I | energy ratio, full reads over SiM (verification read included) | 22x |"
        in text
    )
