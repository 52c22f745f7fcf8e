"""The board CPU's peripheral registers have one source, hw/regs/nandlab_cpu_regs.rdl;
its SV package, C header and Python map are generated and must not be stale, and the
RTL and firmware must read them, not their own numbers."""

from __future__ import annotations

import re

from nandlab.firmware import cpu_regs
from nandlab.firmware._cpu_regs import REGISTERS
from nandlab.hwgen import REPO


def test_generated_views_are_current() -> None:
    stale = [o.path.relative_to(REPO) for o in cpu_regs.outputs() if o.stale]
    assert not stale, f"stale: {stale}: run python -m nandlab.firmware.cpu_regs"


def test_python_map_matches_the_rdl() -> None:
    rdl = cpu_regs.RDL.read_text()
    offsets = {m[1]: int(m[2], 16) for m in re.finditer(r"\}\s*(\w+)\s*@\s*0x([0-9A-Fa-f]+);", rdl)}
    assert {r.name: r.offset for r in REGISTERS} == offsets
    cmd = {r.name: r for r in REGISTERS}["I2C_CMD"]
    assert [(f.name, f.lsb) for f in cmd.fields] == [
        ("DATA", 0), ("START", 8), ("WRITE", 9), ("READ", 10), ("NACK", 11), ("STOP", 12)]


def test_rtl_and_firmware_use_the_generated_names() -> None:
    periph = (REPO / "hw" / "rtl" / "nandlab_cpu_periph.sv").read_text()
    hal = (REPO / "firmware" / "hal" / "hal_target.c").read_text()
    for reg in ("I2C_CLOCK", "I2C_CMD", "I2C_STATUS", "PWM_PERIOD", "PWM_DUTY"):
        assert f"nandlab_cpu_regs_pkg::{reg}" in periph
        assert f"nandlab_cpu_regs_t, {reg})" in hal
    # no register offset typed by hand in the decoder
    assert not re.search(r"8'h[0-9A-Fa-f]{2}\s*:", periph)


def test_bar_map_comes_from_its_rdl() -> None:
    """The host BAR with the CPU: the generated constants are the RDL's, CPU_ID is a
    constant the top without the CPU cannot answer (its 0x1000 aliases the ID register),
    and the BAR block and the top's test read the generated names, not numbers."""
    from nandlab.firmware import _cpu_regs as bar
    from nandlab.regs import ID_MAGIC

    rdl = cpu_regs.BAR_RDL.read_text()
    placed = {m[1]: int(m[2], 16) for m in re.finditer(r"\}\s*(\w+)\s*@\s*0x([0-9A-Fa-f]+);", rdl)}
    assert placed == {"CSR": bar.BAR_CSR, "CPU_CTRL": bar.BAR_CPU_CTRL, "SHARED": bar.BAR_SHARED}
    assert (bar.BAR_CSR_SIZE, bar.BAR_SHARED_SIZE) == (0x1000, 0x4000)
    assert bar.CPU_CTRL.offset == bar.BAR_CPU_CTRL
    cpu_id = bar.CPU_CTRL.field("CPU_ID")
    assert cpu_id.reset == bar.BAR_CPU_CTRL_CPU_ID_VALUE != 0
    assert cpu_id.get(ID_MAGIC) != cpu_id.reset and cpu_id.get(0) != cpu_id.reset
    assert bar.CPU_CTRL.field("STREAM_CPU").lsb == bar.BAR_CPU_CTRL_STREAM_CPU_LSB
    sv = (REPO / "hw" / "rtl" / "nandlab_cpu_bar.sv").read_text()
    for name in ("BAR_CSR", "BAR_CSR_SIZE", "BAR_CPU_CTRL", "BAR_CPU_CTRL_STREAM_CPU_LSB",
                 "BAR_CPU_CTRL_CPU_ID_VALUE", "BAR_SHARED", "BAR_SHARED_SIZE"):
        assert f"nandlab_cpu_regs_pkg::{name}" in sv
    top_test = (REPO / "firmware" / "sim" / "test_fw_top.py").read_text()
    assert "0x1000" not in top_test and "0x4000" not in top_test
    assert "BAR_CPU_CTRL" in top_test and "BAR_SHARED" in top_test
