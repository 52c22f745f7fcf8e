"""The board CPU subsystem in the PCIe top (hw/rtl/nandlab_cpu_sys.sv, nandlab_cpu_bar.sv,
nandlab_top_xdma with CPU=1) builds in every tool the project uses, and its memories are
block RAMs. The firmware running on the same subsystem is tested in the firmware-in-the-loop
harness (firmware/sim/test_fw_soc.py), which instantiates nandlab_cpu_sys too."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pythondata_cpu_picorv32

HW = Path(__file__).resolve().parents[2] / "hw"
RTL = HW / "rtl"
PICORV32 = str(Path(pythondata_cpu_picorv32.data_location) / "picorv32.v")
CORE = ["nandlab_ops_pkg.sv", "nandlab_timing_pkg.sv", "nandlab_pattern_gen.sv",
        "nandlab_err_counter.sv", "nandlab_udiv.sv", "nandlab_seq_decode.sv",
        "nandlab_seq_rsp.sv", "nandlab_seq.sv", "nandlab_ddr_io.sv", "nandlab_onfi_phy.sv",
        "nandlab_timing_sel.sv", "nandlab_core.sv"]
CPU_SYS = ["nandlab_cpu_regs_pkg.sv", "nandlab_i2c_master.sv", "nandlab_pwm.sv",
           "nandlab_cpu_periph.sv", "nandlab_cpu_sys.sv"]
TOP = ["nandlab_regs_pkg.sv", "nandlab_regs.sv", *CORE, "nandlab_ctrl.sv", *CPU_SYS,
       "nandlab_cpu_bar.sv", "nandlab_axis_64to32.sv", "nandlab_axis_32to64.sv",
       "nandlab_top_xdma.sv", PICORV32]


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    path = shutil.which(cmd[0])
    assert path, f"{cmd[0]} is not installed: make test installs it"
    return subprocess.run([path, *cmd[1:]], cwd=RTL, capture_output=True, text=True,
                          check=False)


def test_top_with_cpu_lints_clean_in_verilator(tmp_path: Path) -> None:
    # PicoRV32 is a third-party core: -Wall applies to our files; it carries a `timescale
    # our files leave to the tools
    waiver = tmp_path / "picorv32.vlt"
    waiver.write_text(f'`verilator_config\nlint_off -file "{PICORV32}"\n')
    for params in (["-GCPU=1'b1"], ["-GCPU=1'b1", "-GNUM_CE=8"]):
        res = _run("verilator", "--lint-only", "-Wall", "-Wno-TIMESCALEMOD", "--timing",
                   "-Iinclude", "--top-module", "nandlab_top_xdma", *params,
                   str(HW / "regs" / "nandlab_regs.vlt"), str(waiver), *TOP)
        assert res.returncode == 0, res.stderr


def test_top_with_cpu_compiles_in_icarus() -> None:
    res = _run("iverilog", "-g2012", "-Iinclude", "-s", "nandlab_top_xdma",
               "-P", "nandlab_top_xdma.CPU=1", "-o", "/dev/null", *TOP)
    # the generated CSR block's two benign notes, as in test_hw_rtl_tools
    benign = ("constant selects in always_* processes", "always_comb process has no sensitiv")
    messages = [m for m in res.stderr.splitlines() if not any(b in m for b in benign)]
    assert res.returncode == 0 and not messages, res.stderr


def test_top_with_cpu_elaborates_in_yosys() -> None:
    res = _run("yosys", "-q", "-p",
               f"read_verilog -sv -Iinclude {' '.join(TOP)}; "
               "hierarchy -check -top nandlab_top_xdma -chparam CPU 1; proc; "
               "select -assert-count 1 t:*nandlab_cpu_sys*")
    assert res.returncode == 0, res.stdout + res.stderr


def test_memories_map_to_block_ram_and_nothing_latches() -> None:
    """Code RAM (64 KiB) and shared RAM (16 KiB) are 16 + 4 RAMB36 on UltraScale; a
    template the tools cannot map would come out as some 650 000 flip-flops. (-nolutram:
    Debian's Yosys stops on its LUT-RAM map for the 512-word stream FIFOs, which Vivado
    places by itself; as block RAM they are the two RAMB18.)"""
    res = _run("yosys", "-q", "-p",
               f"read_verilog -sv -Iinclude {' '.join(CPU_SYS)} {PICORV32}; "
               "synth_xilinx -family xcu -nolutram -top nandlab_cpu_sys; "
               "select -assert-count 20 t:RAMB36E2; "
               "select -assert-max 2000 t:FD*; "
               "select -assert-none t:$dlatch t:$_DLATCH_* t:LD*")
    assert res.returncode == 0, res.stdout + res.stderr
