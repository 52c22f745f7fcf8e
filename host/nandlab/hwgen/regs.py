"""Register map generator: hw/regs/nandlab_regs.rdl -> RTL, C header, Python map.

The RTL comes from peakrdl-regblock (AXI4-Lite, flattened bus ports), then
mechanical rewrites make it SystemVerilog that Verilator 5, Icarus 11 and
Yosys 0.23 all read:

1. `struct {` becomes `struct packed {`: Yosys 0.23 ("Only PACKED supported")
   rejects unpacked structs; every hwif / storage member is a packed vector,
   so nothing changes.
2. `automatic logic x;` inside always_comb becomes `logic x;`: Yosys 0.23 does
   not parse an explicit variable lifetime; each such variable is assigned at
   the top of its block before any use, so it stays combinational.
3. `assign hwif_out.R.F.value = ...;` becomes `always_comb hwif_out.R.F.value
   = ...;`: Icarus 11 rejects a continuous assignment to a struct member ("Net
   hwif_out.X.Y.value is not defined") but takes a procedural one. Each field
   is still driven by exactly one process.
4. Package struct types are written `NANDLAB_REGS_T(name)` (a macro the
   package file defines): imported names in Icarus, which aborts on a
   package-qualified nested struct type (elab_type.cc:86 "failed assertion
   scope"), qualified names in Yosys, which resolves no imported type in a
   port list. Verilator and Vivado take the import.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from nandlab.hwgen import REPO, Output

RDL = REPO / "hw" / "regs" / "nandlab_regs.rdl"
RTL_DIR = REPO / "hw" / "rtl"
C_HEADER = REPO / "firmware" / "include" / "nandlab_regs.h"
PY_MAP = REPO / "host" / "nandlab" / "regs" / "_generated.py"
MODULE = "nandlab_regs"
PKG = "nandlab_regs_pkg"
# How a file names the package's struct types. Icarus 11 aborts on a
# package-qualified nested struct type, so it gets them imported; Yosys (0.23
# and still 0.70) resolves no imported type in a port list, so it gets them
# qualified. `YOSYS` is predefined by Yosys's read_verilog.
TYPE_MACRO = f"""
// Register interface struct types, named as each tool can read them: a file
// writes `NANDLAB_REGS_T(t) and imports the package unless YOSYS is defined
// (Icarus 11 aborts on qualified nested struct types, Yosys resolves no
// imported type in a port list; see nandlab.hwgen.regs).
`ifdef YOSYS
`define NANDLAB_REGS_T(t) {PKG}::t
`else
`define NANDLAB_REGS_T(t) t
`endif
"""
IMPORT = f"""`ifndef YOSYS
import {PKG}::*;
`endif
"""
BANNER = "generated from hw/regs/nandlab_regs.rdl by nandlab.hwgen.regs, do not edit"


def _compile():
    from peakrdl_regblock.udps import ALL_UDPS
    from systemrdl import RDLCompiler

    rdlc = RDLCompiler()
    for udp in ALL_UDPS:
        rdlc.register_udp(udp)
    rdlc.compile_file(str(RDL))
    return rdlc.elaborate()


def _rewrite(pattern: str, repl: str, text: str, what: str, flags: int = 0) -> str:
    """re.subn that fails when nothing matched: a newer peakrdl-regblock whose output
    no longer fits a rewrite must stop the generator, not slip through unchanged."""
    out, n = re.subn(pattern, repl, text, flags=flags)
    if n == 0:
        raise RuntimeError(f"hwgen regs: rewrite '{what}' matched nothing in the regblock output")
    return out


def _plain_sv(module: str, pkg: str) -> tuple[str, str]:
    pkg = _rewrite(r"struct \{", "struct packed {", pkg, "packed structs (package)")
    module = _rewrite(r"struct \{", "struct packed {", module, "packed structs (module)")
    module = _rewrite(r"^(\s*)automatic logic", r"\1logic", module, "automatic", re.M)
    module = _rewrite(rf"\b{PKG}::(\w+)", r"`NANDLAB_REGS_T(\1)", module, "package types")
    module = _rewrite(rf"^module {MODULE} \(", f"{IMPORT}\nmodule {MODULE} (", module,
                      "package import", re.M)
    module = _rewrite(r"^(\s*)assign (hwif_out\.\S+) = ", r"\1always_comb \2 = ", module,
                      "hwif_out assigns", re.M)
    pkg = _rewrite(r"^endpackage\n", f"endpackage\n{TYPE_MACRO}", pkg, "type macro", re.M)
    return module, pkg


def _header(text: str, comment: str) -> str:
    return f"{comment} {BANNER}\n{text}"


def _rtl(root) -> list[Output]:
    from peakrdl_regblock import RegblockExporter
    from peakrdl_regblock.cpuif.axi4lite import AXI4Lite_Cpuif_flattened

    with tempfile.TemporaryDirectory() as tmp:
        RegblockExporter().export(root, tmp, cpuif_cls=AXI4Lite_Cpuif_flattened)
        module = (Path(tmp) / "nandlab_regs.sv").read_text()
        pkg = (Path(tmp) / "nandlab_regs_pkg.sv").read_text()
    module, pkg = _plain_sv(module, pkg)
    return [
        Output(RTL_DIR / "nandlab_regs_pkg.sv", _header(_nettype(pkg), "//")),
        Output(RTL_DIR / "nandlab_regs.sv", _header(_nettype(module), "//")),
    ]


def _nettype(sv: str) -> str:
    """Wrap in `default_nettype none` ... `wire`, as every RTL file of the project."""
    return f"`default_nettype none\n\n{sv}\n`default_nettype wire\n"


def _c_header(root) -> Output:
    from peakrdl_cheader.exporter import CHeaderExporter

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "nandlab_regs.h"
        CHeaderExporter().export(root, str(path))
        text = path.read_text()
    return Output(C_HEADER, _header(text, "//"))


def _python_map(root) -> Output:
    from systemrdl import RDLListener, RDLWalker
    from systemrdl.node import FieldNode, RegNode

    lines = [
        f'"""Register map of the nandlab ONFI controller.\n\n{BANNER}\n"""',
        "# ruff: noqa: E501  (generated: register descriptions are kept on one line)",
        "",
        "from nandlab.regs.model import Field, Register",
        "",
    ]
    regs: list[str] = []

    class Listener(RDLListener):
        def enter_Reg(self, node: RegNode) -> None:
            fields = []
            for f in node.fields():
                fields.append(_field_src(f))
            desc = (node.get_property("name") or node.inst_name).replace('"', "'")
            regs.append(
                f"    Register(\n        {node.inst_name!r}, 0x{node.address_offset:03X}, "
                f"{desc!r},\n        (\n" + "".join(f"            {s},\n" for s in fields)
                + "        ),\n    ),"
            )

    def _field_src(f: FieldNode) -> str:
        reset = f.get_property("reset")
        desc = f.get_property("desc") or f.get_property("name") or ""
        sw = f.get_property("sw").name
        return (f"Field({f.inst_name!r}, {f.lsb}, {f.width}, {sw!r}, "
                f"{reset if reset is not None else 0}, {' '.join(desc.split())!r})")

    RDLWalker(unroll=True).walk(root.top, Listener())
    lines.append("REGISTERS: tuple[Register, ...] = (")
    lines.extend(regs)
    lines.append(")")
    lines.append('"""Every register, in address order."""')
    return Output(PY_MAP, "\n".join(lines) + "\n")


def outputs() -> list[Output]:
    """Every file generated from the RDL source, with its up-to-date content."""
    root = _compile()
    return [*_rtl(root), _c_header(root), _python_map(root)]
