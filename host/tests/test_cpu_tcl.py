"""The board CPU's part of the KCU105 build (hw/vivado/kcu105/cpu.tcl) has never run through
Vivado (none here). What can be checked without it: every file it reads exists, the generic
it hands synth_design is a parameter of the board's top that reaches the CPU subsystem, the
board's top turns the CPU on and routes its pins, and build.tcl sources it."""

from __future__ import annotations

import re
from pathlib import Path

import pythondata_cpu_picorv32

REPO = Path(__file__).resolve().parents[2]
VIVADO = REPO / "hw" / "vivado"
TCL = VIVADO / "kcu105" / "cpu.tcl"
BOARD_TOP = VIVADO / "kcu105" / "nandlab_kcu105.sv"
RTL = REPO / "hw" / "rtl"


def test_reads_picorv32_and_the_firmware_image() -> None:
    tcl = TCL.read_text()
    assert "read_verilog [file join $picorv32_dir picorv32.v]" in tcl
    assert (Path(pythondata_cpu_picorv32.data_location) / "picorv32.v").is_file()
    # the image firmware/Makefile makes ($readmemh words), where the Makefile puts it
    assert "firmware build nandlab.hex" in tcl
    assert re.search(r"^all: .*\$\(BUILD\)/nandlab\.hex", (REPO / "firmware" / "Makefile")
                     .read_text(), re.M)


def test_generic_reaches_the_cpu_subsystem() -> None:
    generics = re.findall(r'-generic "(\w+)=', TCL.read_text())
    assert generics == ["CODE_HEX"]
    top = BOARD_TOP.read_text()
    assert re.search(r"parameter CODE_HEX\b", top) and ".CODE_HEX(CODE_HEX)" in top
    xdma = (RTL / "nandlab_top_xdma.sv").read_text()
    assert re.search(r"parameter CODE_HEX\b", xdma)
    assert "nandlab_cpu_sys #(.CODE_HEX(CODE_HEX))" in xdma
    assert re.search(r"parameter CODE_HEX\b", (RTL / "nandlab_cpu_sys.sv").read_text())


def test_board_top_turns_the_cpu_on_and_wires_its_pins() -> None:
    top = BOARD_TOP.read_text()
    assert ".CPU(1'b1)" in top
    for pin in ("i2c_scl", "i2c_sda", "pwm", "pwm_cool"):
        assert re.search(rf"^\s*(inout|output)\s+wire\s+{pin},", top, re.M), pin
        assert f".{pin}({pin})" in top, pin


def test_build_tcl_sources_it_and_passes_the_generic() -> None:
    build = (VIVADO / "build.tcl").read_text()
    assert "source [file join $board_dir cpu.tcl]" in build
    assert re.search(r"^synth_design .*\{\*\}\$cpu_generics$", build, re.M)
    assert build.index("cpu.tcl]") < build.index("synth_design")
