"""Register map of the board CPU's peripherals (I2C master, PWM), generated from
its one source, hw/regs/nandlab_cpu_regs.rdl, into three views:

- hw/rtl/nandlab_cpu_regs_pkg.sv: offsets and field positions as localparams, which
  the peripheral block (hw/rtl/nandlab_cpu_periph.sv) decodes;
- firmware/include/nandlab_cpu_regs.h (PeakRDL-cheader), which hal_target.c uses;
- host/nandlab/firmware/_cpu_regs.py (`REGISTERS`, the types of `nandlab.regs`).

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
SV_PKG = REPO / "hw" / "rtl" / "nandlab_cpu_regs_pkg.sv"
C_HEADER = REPO / "firmware" / "include" / "nandlab_cpu_regs.h"
PY_MAP = REPO / "host" / "nandlab" / "firmware" / "_cpu_regs.py"
BANNER = "generated from hw/regs/nandlab_cpu_regs.rdl by nandlab.firmware.cpu_regs, do not edit"


def _compile():
    from systemrdl import RDLCompiler

    rdlc = RDLCompiler()
    rdlc.compile_file(str(RDL))
    return rdlc.elaborate()


def _regs(root) -> list:
    return list(root.top.registers())


def _sv_package(root) -> Output:
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
    lines += ["", "  /* verilator lint_on UNUSEDPARAM */", "", "endpackage", "",
              "`default_nettype wire", ""]
    return Output(SV_PKG, "\n".join(lines))


def _c_header(root) -> Output:
    from peakrdl_cheader.exporter import CHeaderExporter

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "nandlab_cpu_regs.h"
        CHeaderExporter().export(root, str(path))
        return Output(C_HEADER, f"// {BANNER}\n{path.read_text()}")


def _python_map(root) -> Output:
    lines = [f'"""Register map of the board CPU\'s peripherals.\n\n{BANNER}\n"""',
             "# ruff: noqa: E501  (generated: descriptions are kept on one line)", "",
             "from nandlab.regs.model import Field, Register", "",
             "REGISTERS: tuple[Register, ...] = ("]
    for reg in _regs(root):
        lines.append(f"    Register({reg.inst_name!r}, 0x{reg.address_offset:03X}, "
                     f"{reg.get_property('name')!r}, (")
        for f in reg.fields():
            desc = " ".join((f.get_property("desc") or "").split())
            reset = f.get_property("reset")
            lines.append(f"        Field({f.inst_name!r}, {f.lsb}, {f.width}, "
                         f"{f.get_property('sw').name!r}, {reset or 0}, {desc!r}),")
        lines.append("    )),")
    lines += [")", '"""Every register, in address order."""', ""]
    return Output(PY_MAP, "\n".join(lines))


def outputs() -> list[Output]:
    """Every file generated from the RDL source, with its up-to-date content."""
    root = _compile()
    return [_sv_package(root), _c_header(root), _python_map(root)]


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
