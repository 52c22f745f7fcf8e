"""Generators for the FPGA design: files derived from one source each.

- `regs`: hw/regs/nandlab_regs.rdl -> RTL CSR block, C header, Python map.
- `timing`: nandlab.onfi_spec.sdr_timing -> SV package of per-mode presets
  in clock cycles (hw/rtl/nandlab_timing_pkg.sv).
- `xdc`: boards/<board>.yaml -> Vivado constraints (hw/vivado/<board>.xdc).

`python -m nandlab.hwgen [regs|timing|xdc|all] [--check]` regenerates, or with
--check fails naming every stale file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


@dataclass(frozen=True)
class Output:
    """One generated file: its path in the repository and its content."""

    path: Path
    text: str

    @property
    def stale(self) -> bool:
        return not self.path.exists() or self.path.read_text() != self.text

    def write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(self.text)
