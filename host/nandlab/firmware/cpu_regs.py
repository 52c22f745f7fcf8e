"""Register maps of the board CPU, generated from their sources into three views:
the CPU's peripherals (I2C master, PWM; hw/regs/nandlab_cpu_regs.rdl) and the
host's user BAR of the top with the CPU (hw/regs/nandlab_cpu_bar.rdl: the CSR
window, CPU_CTRL, the shared RAM window).

- hw/rtl/nandlab_cpu_regs_pkg.sv: offsets and field positions as localparams, which
  the peripheral block (hw/rtl/nandlab_cpu_periph.sv) and the BAR block
  (hw/rtl/nandlab_cpu_bar.sv, the BAR_* ones) decode;
- firmware/include/nandlab_cpu_regs.h (PeakRDL-cheader), which hal_target.c uses
  (the peripherals only: the firmware never sees the host's BAR);
- host/nandlab/firmware/_cpu_regs.py (`REGISTERS`, the types of `nandlab.regs`;
  `CPU_CTRL` and the BAR_* constants, which xdma:// uses).

`python -m nandlab.firmware.cpu_regs [--check]` writes the stale ones, or with
--check fails naming them (make test-generated; host/tests/test_cpu_regs.py).
The CPU block is separate from the host's CSR block (nandlab_regs.rdl): only the
firmware reaches it, so the host's register block and its ports do not change.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from nandlab.hwgen import REPO, Output

RDL = REPO / "hw" / "regs" / "nandlab_cpu_regs.rdl"
BAR_RDL = REPO / "hw" / "regs" / "nandlab_cpu_bar.rdl"
SV_PKG = REPO / "hw" / "rtl" / "nandlab_cpu_regs_pkg.sv"
C_HEADER = REPO / "firmware" / "include" / "nandlab_cpu_regs.h"
PY_MAP = REPO / "host" / "nandlab" / "firmware" / "_cpu_regs.py"
BANNER = "generated from hw/regs/nandlab_cpu_regs.rdl by nandlab.firmware.cpu_regs, do not edit"
BAR_BANNER = "generated from hw/regs/nandlab_cpu_bar.rdl, do not edit"


def _compile(path: Path = RDL):
    from systemrdl import RDLCompiler

    rdlc = RDLCompiler()
    rdlc.compile_file(str(path))
    return rdlc.elaborate()


def _bar_constants(bar) -> list[tuple[str, int]]:
    """(name, value) of the BAR map: each window's base and size, CPU_CTRL's offset and
    fields (lsb, width, and the read-only constant's value)."""
    from systemrdl.node import MemNode, RegNode

    out: list[tuple[str, int]] = []
    for node in bar.top.children():
        name = f"BAR_{node.inst_name}"
        out.append((name, node.address_offset))
        if isinstance(node, MemNode):
            out.append((f"{name}_SIZE", node.size))
        elif isinstance(node, RegNode):
            for f in node.fields():
                out += [(f"{name}_{f.inst_name}_LSB", f.lsb), (f"{name}_{f.inst_name}_W", f.width)]
                if not f.is_sw_writable:
                    reset = f.get_property("reset")
                    if not isinstance(reset, int):
                        raise ValueError(f"{BAR_RDL}: {name}.{f.inst_name} is read-only but "
                                         "has no constant value")
                    out.append((f"{name}_{f.inst_name}_VALUE", reset))
    return out


def _regs(root) -> list:
    return list(root.top.registers())


def _sv_package(root, bar) -> Output:
    lines = [f"// {BANNER}", "// Byte offsets in the block, then each field's lsb and width.",
             "`default_nettype none", "", "package nandlab_cpu_regs_pkg;", "",
             "  // the whole map, for every reader: one block uses part of it",
             "  /* verilator lint_off UNUSEDPARAM */", ""]
    for reg in _regs(root):
        lines.append(f"  localparam int {reg.inst_name} = {reg.address_offset};")
        for f in reg.fields():
            lines.append(f"  localparam int {reg.inst_name}_{f.inst_name}_LSB = {f.lsb};")
            lines.append(f"  localparam int {reg.inst_name}_{f.inst_name}_W = {f.width};")
            reset = f.get_property("reset")
            if reset is not None and f.is_sw_writable:
                lines.append(f"  localparam int {reg.inst_name}_{f.inst_name}_RESET = {reset};")
    lines += ["", f"  // the host's user BAR with the CPU, {BAR_BANNER}"]
    lines += [f"  localparam int {name} = 'h{value:X};" for name, value in _bar_constants(bar)]
    lines += ["", "  /* verilator lint_on UNUSEDPARAM */", "", "endpackage", "",
              "`default_nettype wire", ""]
    return Output(SV_PKG, "\n".join(lines))


def _c_header(root) -> Output:
    from peakrdl_cheader.exporter import CHeaderExporter

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "nandlab_cpu_regs.h"
        CHeaderExporter().export(root, str(path))
        return Output(C_HEADER, f"// {BANNER}\n{path.read_text()}")


def _field(f) -> str:
    """A field as the Python map writes it (nandlab.regs.model.Field)."""
    desc = " ".join((f.get_property("desc") or "").split())
    return (f"Field({f.inst_name!r}, {f.lsb}, {f.width}, {f.get_property('sw').name!r}, "
            f"{f.get_property('reset') or 0}, {desc!r})")


def _python_map(root, bar) -> Output:
    lines = [f'"""Register map of the board CPU\'s peripherals.\n\n{BANNER}\n"""',
             "# ruff: noqa: E501  (generated: descriptions are kept on one line)", "",
             "from nandlab.regs.model import Field, Register", "",
             "REGISTERS: tuple[Register, ...] = ("]
    for reg in _regs(root):
        lines.append(f"    Register({reg.inst_name!r}, 0x{reg.address_offset:03X}, "
                     f"{reg.get_property('name')!r}, (")
        lines += [f"        {_field(f)}," for f in reg.fields()]
        lines.append("    )),")
    lines += [")", '"""Every register, in address order."""', "",
              f"# The host's user BAR with the CPU, {BAR_BANNER}"]
    lines += [f"{name} = {value if name.endswith(('_LSB', '_W')) else hex(value)}"
              for name, value in _bar_constants(bar)]
    ctrl = bar.top.get_child_by_name("CPU_CTRL")
    lines.append(f"CPU_CTRL = Register('CPU_CTRL', 0x{ctrl.address_offset:04X}, "
                 f"{ctrl.get_property('name')!r}, (")
    lines += [f"    {_field(f)}," for f in ctrl.fields()]
    lines += ["))", '"""CPU_CTRL, at BAR_CPU_CTRL."""', ""]
    return Output(PY_MAP, "\n".join(lines))


def outputs() -> list[Output]:
    """Every file generated from the RDL source, with its up-to-date content."""
    root, bar = _compile(), _compile(BAR_RDL)
    return [_sv_package(root, bar), _c_header(root), _python_map(root, bar)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nandlab.firmware.cpu_regs",
                                     description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail if a generated file is stale")
    args = parser.parse_args(argv)
    stale = [o for o in outputs() if o.stale]
    for o in stale:
        if args.check:
            print(f"stale: {o.path.relative_to(REPO)} (run python -m nandlab.firmware.cpu_regs)",
                  file=sys.stderr)
        else:
            o.write()
            print(f"wrote {o.path.relative_to(REPO)}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
