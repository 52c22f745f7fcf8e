"""The KCU105 block design of the board CPU (hw/vivado/kcu105/cpu_bd.tcl) has never run
through Vivado (none here). What can be checked without it: every file it reads exists,
every module port and parameter it names exists in that module's RTL, its address map is
the one the firmware's HAL uses, and build.tcl sources it."""

from __future__ import annotations

import re
from pathlib import Path

import pythondata_cpu_picorv32

REPO = Path(__file__).resolve().parents[2]
TCL = REPO / "hw" / "vivado" / "kcu105" / "cpu_bd.tcl"
RTL = REPO / "hw" / "rtl"
PICORV32 = Path(pythondata_cpu_picorv32.data_location) / "picorv32.v"


def _module(text: str, name: str) -> tuple[set[str], set[str]]:
    """(ports, parameters) of module `name`, from its header."""
    m = re.search(rf"^module\s+{name}\b(.*?)\);", text, re.S | re.M)
    assert m, f"no module {name}"
    header = re.sub(r"//[^\n]*", "", m.group(1))
    params = set(re.findall(r"parameter\s+(?:\w+\s+)?(?:\[[^\]]*\]\s*)?(\w+)\s*=", header))
    ports: set[str] = set()
    for piece in re.sub(r"\[[^\]]*\]", " ", header).split(","):
        words = re.findall(r"\w+", piece)
        if re.search(r"\b(input|output|inout)\b", piece) or len(words) == 1:
            ports.add(words[-1])   # `input wire [7:0] x` or a list's next name (`input a, b`)
    return ports, params


def _refs(tcl: str) -> dict[str, str]:
    """Module-reference cells: cell name -> module."""
    return {cell: mod for mod, cell in
            re.findall(r"create_bd_cell -type module -reference (\w+) (\w+)", tcl)}


def test_reads_only_existing_files() -> None:
    tcl = TCL.read_text()
    sources = re.search(r"set cpu_sources \{(.*?)\}", tcl, re.S)
    assert sources
    for name in sources.group(1).split():
        assert (RTL / name).is_file(), name
    assert "read_verilog [file join $picorv32_dir picorv32.v]" in tcl and PICORV32.is_file()


def test_module_ports_and_parameters_exist() -> None:
    tcl = TCL.read_text()
    texts = {"picorv32_axi": PICORV32.read_text(),
             "nandlab_cpu_periph_axil": (RTL / "nandlab_cpu_periph_axil.sv").read_text()}
    refs = _refs(tcl)
    assert refs == {"cpu": "picorv32_axi", "periph": "nandlab_cpu_periph_axil"}
    mods = {cell: _module(texts[mod], mod) for cell, mod in refs.items()}
    pins = re.findall(r"get_bd_pins (\w+)/(\$?\w+)", tcl)
    pins += [("periph", p) for p in
             re.search(r"foreach pin \{([^}]*)\}", tcl).group(1).split()]  # type: ignore[union-attr]
    intf = re.findall(r"get_bd_intf_pins (\w+)/(\w+)", tcl)
    checked = 0
    for cell, pin in pins:
        if cell in mods and not pin.startswith("$"):
            assert pin in mods[cell][0], f"{refs[cell]} has no port {pin}"
            checked += 1
    for cell, bus in intf:
        if cell in mods:   # an AXI interface Vivado infers from the ports' prefix
            assert {f"{bus}_awaddr", f"{bus}_rdata"} <= mods[cell][0], f"{refs[cell]}: {bus}"
            checked += 1
    assert checked >= 12
    cpu_params = re.search(r"set_property -dict \[list (.*?)\] \[get_bd_cells cpu\]", tcl, re.S)
    assert cpu_params
    for param in re.findall(r"CONFIG\.(\w+)", cpu_params.group(1)):
        assert param in mods["cpu"][1], f"picorv32_axi has no parameter {param}"


def test_address_map_is_the_hals() -> None:
    tcl = TCL.read_text()
    hal = (REPO / "firmware" / "hal" / "hal_target.c").read_text()
    base = {n: int(v, 16) for n, v in re.findall(r"#define (\w+_BASE) (0x[0-9A-Fa-f]+)u", hal)}
    segs = {seg: int(off, 16) for off, seg in
            re.findall(r"assign_bd_address -offset (0x[0-9A-F]+) -range \w+ "
                       r"\[get_bd_addr_segs (\w+)/", tcl)}
    assert segs == {"code_ctrl": 0, "shared_ctrl": base["SHARED_BASE"],
                    "M_AXI_CSR": base["CSR_BASE"], "M_AXI_SEQ": base["SEQ_BASE"],
                    "periph": base["PERIPH_BASE"]}
    # the CPU boots where the firmware is linked, with its stack at the BRAM's end
    assert "CONFIG.PROGADDR_RESET 0x00000000 CONFIG.STACKADDR 0x00010000" in tcl
    assert "-offset 0x00000000 -range 64K" in tcl


def test_build_tcl_sources_it() -> None:
    build = (REPO / "hw" / "vivado" / "build.tcl").read_text()
    assert "source [file join $board_dir cpu_bd.tcl]" in build
