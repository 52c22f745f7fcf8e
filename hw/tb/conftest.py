"""pytest setup of the RTL testbenches (hw/tb/<module>/test_<module>.py).

`pytest hw/tb` runs each testbench's quick parameter grid: the sub-module benches
on Icarus only (a build takes a second there, ten on Verilator), the controller,
core and top benches on both, so Verilator still runs the whole design.
`pytest hw/tb --rtl-full` runs the full grid (every SDR timing mode, both
simulators, with and without result-stream back-pressure). Simulator setup: nandlab.rtlsim.sim_env.
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--rtl-full",
        action="store_true",
        dest="rtl_full",
        help="run every testbench over its full parameter grid (slow)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "rtl: runs an HDL simulation through cocotb's runner"
    )
