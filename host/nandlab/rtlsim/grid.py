"""The parameter grid of a testbench: a quick one for `pytest hw/tb`, a full one for --rtl-full.

GRID = Grid("test_nandlab_foo", ("sim", "backpressure"),
            quick=[("verilator", 1)], full=[("verilator", 0), ("icarus", 1)])
pytest_generate_tests = GRID.generate     # in the testbench module
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nandlab.rtlsim.sim_env import build, run


@dataclass(frozen=True)
class Grid:
    """Parameter sets (tuples in `names` order) of the pytest function `test`."""

    test: str
    names: tuple[str, ...]
    quick: Sequence[tuple[Any, ...]]
    full: Sequence[tuple[Any, ...]]

    def generate(self, metafunc: Any) -> None:
        """pytest_generate_tests: the full grid under --rtl-full (hw/tb/conftest.py), else quick."""
        if metafunc.definition.name == self.test:
            full = metafunc.config.getoption("rtl_full", default=False)
            metafunc.parametrize(self.names, self.full if full else self.quick)


def run_set(
    toplevel: str,
    sim: str,
    parameters: dict[str, int],
    test_module: str,
    name: str,
    env: dict[str, str] | None = None,
    modules: list[str] | None = None,
) -> None:
    """Build `toplevel` with HDL `parameters` (once per set), run `test_module`'s cocotb
    tests in the sub-folder `name` of the build with `env`; AssertionError if any fails.

    modules: hw/rtl/ module files besides the packages (default: all).
    """
    folder = build(toplevel, sim, parameters, modules)
    run(toplevel, sim, folder, test_module, folder / name, env)
