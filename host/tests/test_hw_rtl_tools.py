"""The RTL builds in every tool the project uses, and the Vivado flow names real files.

Tools come from `make test`'s setup (Debian verilator, iverilog, yosys); a
missing tool fails these tests, it does not skip them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

HW = Path(__file__).resolve().parents[2] / "hw"
RTL = HW / "rtl"
INCLUDE = "include"   # hw/rtl/include, relative to RTL where the tools run
WAIVERS = HW / "regs" / "nandlab_regs.vlt"

PKGS = ["nandlab_ops_pkg.sv", "nandlab_timing_pkg.sv"]
CORE = [*PKGS, "nandlab_pattern_gen.sv", "nandlab_err_counter.sv", "nandlab_udiv.sv",
        "nandlab_seq_decode.sv", "nandlab_seq_rsp.sv", "nandlab_seq.sv",
        "nandlab_ddr_io.sv", "nandlab_onfi_phy.sv", "nandlab_timing_sel.sv", "nandlab_core.sv"]
CTRL = ["nandlab_regs_pkg.sv", "nandlab_regs.sv", *CORE, "nandlab_ctrl.sv"]
# the board CPU subsystem the PCIe top instantiates when CPU=1 (PicoRV32 itself comes from
# its package: host/tests/test_cpu_sys_rtl.py builds that variant)
CPU_SYS = ["nandlab_cpu_regs_pkg.sv", "nandlab_i2c_master.sv", "nandlab_pwm.sv",
           "nandlab_cpu_periph.sv", "nandlab_cpu_sys.sv", "nandlab_cpu_bar.sv"]
TOPS = {
    "nandlab_core": CORE,
    "nandlab_ctrl": CTRL,
    "nandlab_top_xdma": [*CTRL, *CPU_SYS, "nandlab_axis_64to32.sv", "nandlab_axis_32to64.sv",
                         "nandlab_top_xdma.sv"],
    "nandlab_top_fifo": [*CORE, "nandlab_fifo_packer.sv", "nandlab_top_fifo.sv"],
}


def tool(name: str) -> str:
    path = shutil.which(name)
    assert path, f"{name} is not installed: make test installs it (apt-get install {name})"
    return path


def run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=RTL, capture_output=True, text=True, check=False)


def test_every_rtl_file_is_one_module_with_header() -> None:
    for path in sorted(RTL.glob("*.sv")):
        text = path.read_text()
        assert "`default_nettype none" in text, path.name
        assert text.startswith("//"), f"{path.name} has no header comment"
        modules = re.findall(r"^module\s+(\w+)", text, re.M)
        packages = re.findall(r"^package\s+(\w+)", text, re.M)
        assert modules + packages == [path.stem], f"{path.name}: {modules + packages}"


@pytest.mark.parametrize("top", sorted(TOPS))
@pytest.mark.parametrize("params", [[], ["-GCLK_PERIOD_PS=5000", "-GNUM_CE=8"]])
def test_verilator_lint_clean(top: str, params: list[str]) -> None:
    if top == "nandlab_top_xdma" and params:
        params = ["-GNUM_CE=8"]
    # --timing: the DQS delay-line model (nandlab_ddr_io) is a transport delay
    res = run([tool("verilator"), "--lint-only", "-Wall", "--timing", f"-I{INCLUDE}",
               "--top-module", top,
               *params,
               str(WAIVERS), *TOPS[top]])
    assert res.returncode == 0, res.stderr


@pytest.mark.parametrize("top", sorted(TOPS))
def test_yosys_synthesizes(top: str) -> None:
    files = " ".join(TOPS[top])
    res = run([tool("yosys"), "-q", "-p",
               f"read_verilog -sv -I{INCLUDE} {files}; synth -top {top}"])
    assert res.returncode == 0, res.stdout + res.stderr


def test_xilinx_primitives_match_the_ultrascale_cell_library() -> None:
    """The DDR I/O's UltraScale branch (IDELAYE3, ODDRE1) elaborates against Yosys's
    Xilinx cell library: a wrong port or parameter name fails (Vivado is not here)."""
    res = run([tool("yosys"), "-q", "-p",
               f"read_verilog -sv -I{INCLUDE} nandlab_ddr_io.sv; "
               "chparam -set USE_XILINX_PRIMS 1 nandlab_ddr_io; "
               "synth_xilinx -family xcu -top nandlab_ddr_io; select -assert-count 1 t:IDELAYE3; "
               "select -assert-count 1 t:ODDRE1"])
    assert res.returncode == 0, res.stdout + res.stderr


# Icarus 11 notes that it makes an always_comb sensitive to a whole struct when
# the block reads one member of it (the generated CSR block does, nandlab.hwgen.regs),
# and that an always_comb driving a constant has nothing to wait on. Neither
# changes what the block computes; any other message fails the test.
ICARUS_BENIGN = (
    "sorry: constant selects in always_* processes are not currently supported",
    "warning: always_comb process has no sensitivities",
)


@pytest.mark.parametrize("top", sorted(TOPS))
def test_icarus_compiles_every_top(top: str) -> None:
    res = run([tool("iverilog"), "-g2012", f"-I{INCLUDE}", "-s", top, "-o", "/dev/null",
               *TOPS[top]])
    messages = [m for m in res.stderr.splitlines() if not any(b in m for b in ICARUS_BENIGN)]
    assert res.returncode == 0 and not messages, res.stderr


def test_icarus_helpers_compile_alone() -> None:
    for top in ("nandlab_fifo_packer", "nandlab_axis_64to32", "nandlab_axis_32to64"):
        res = run([tool("iverilog"), "-g2012", f"-I{INCLUDE}", "-s", top, "-o", "/dev/null",
                   f"{top}.sv"])
        assert res.returncode == 0 and not res.stderr, res.stderr


def test_unsupported_clock_period_fails_to_build() -> None:
    res = run([tool("verilator"), "--lint-only", f"-I{INCLUDE}", "--top-module", "nandlab_core",
               "-GCLK_PERIOD_PS=7000", *CORE])
    assert res.returncode != 0
    assert "nandlab_timing_sel_no_presets_for_this_CLK_PERIOD_PS" in res.stderr


def test_vivado_tcl_names_existing_sources() -> None:
    tcl = (HW / "vivado" / "build.tcl").read_text()
    block = re.search(r"set rtl_sources \{(.*?)\}", tcl, re.S)
    assert block
    for name in block.group(1).split():
        assert (RTL / name).is_file(), name
    missing = set(TOPS["nandlab_top_xdma"]) - set(block.group(1).split())
    assert not missing, f"build.tcl does not read {sorted(missing)}"
    for rel in re.findall(r"\[file join \$board_dir (\S+)\]", tcl):
        assert (HW / "vivado" / "kcu105" / rel).is_file(), rel
    for rel in re.findall(r"read_xdc \[file join \$here (\S+)\]", tcl):
        assert (HW / "vivado" / rel).is_file(), rel
    top_sv = (HW / "vivado" / "kcu105" / "nandlab_kcu105.sv").read_text()
    assert "nandlab_top_xdma" in top_sv


def test_icarus_build_is_redone_when_an_included_header_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nandlab.rtlsim import sim_env

    monkeypatch.setattr(sim_env, "RTL_DIR", tmp_path / "rtl")
    header = tmp_path / "rtl" / "include" / "ports.svh"
    header.parent.mkdir(parents=True)
    header.write_text("")
    build = tmp_path / "build"
    build.mkdir()
    assert not sim_env._headers_newer(build)  # nothing built yet: the runner builds anyway
    vvp = build / "sim.vvp"
    vvp.write_text("")
    os.utime(header, (1_000, 1_000))
    assert not sim_env._headers_newer(build)
    os.utime(header, (vvp.stat().st_mtime + 10,) * 2)
    assert sim_env._headers_newer(build)
