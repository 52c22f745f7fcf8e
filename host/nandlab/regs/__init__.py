"""Register map of the FPGA ONFI controller (contract 2), generated from
hw/regs/nandlab_regs.rdl by `python -m nandlab.hwgen regs`.

>>> from nandlab.regs import REG
>>> hex(REG["ID"].offset)
'0x0'
"""

from __future__ import annotations

from nandlab.regs._generated import REGISTERS
from nandlab.regs.model import Field, Register

REG: dict[str, Register] = {r.name: r for r in REGISTERS}
"""Registers by name."""

ID_MAGIC = REG["ID"].field("MAGIC").reset
"""Value of the ID register: ASCII 'NAND'."""

__all__ = ["REG", "REGISTERS", "ID_MAGIC", "Field", "Register"]
