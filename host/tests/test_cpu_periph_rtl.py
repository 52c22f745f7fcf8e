"""The board CPU's peripheral block (hw/rtl/nandlab_cpu_periph.sv: I2C master, PWM)
builds in every tool the project uses; its behaviour on the
pins, with datasheet models of the I2C devices, is tested in the firmware-in-the-loop
harness (firmware/sim/test_fw_periph.py)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

RTL = Path(__file__).resolve().parents[2] / "hw" / "rtl"
FILES = ["nandlab_cpu_regs_pkg.sv", "nandlab_i2c_master.sv", "nandlab_pwm.sv",
         "nandlab_cpu_periph.sv"]
TOP = "nandlab_cpu_periph"


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    path = shutil.which(cmd[0])
    assert path, f"{cmd[0]} is not installed: make test installs it"
    return subprocess.run([path, *cmd[1:]], cwd=RTL, capture_output=True, text=True,
                          check=False)


def test_verilator_lint_clean() -> None:
    res = _run("verilator", "--lint-only", "-Wall", "--top-module", TOP, *FILES)
    assert res.returncode == 0, res.stderr


def test_yosys_synthesizes_to_registers_not_latches() -> None:
    res = _run("yosys", "-q", "-p", f"read_verilog -sv {' '.join(FILES)}; synth -top {TOP}; "
               "select -assert-none t:$dlatch t:$_DLATCH_*")
    assert res.returncode == 0, res.stdout + res.stderr


def test_icarus_compiles() -> None:
    res = _run("iverilog", "-g2012", "-s", TOP, "-o", "/dev/null", *FILES)
    assert res.returncode == 0 and not res.stderr, res.stderr
