"""The interface features: 01h (data interface + timing mode) and 02h (NV-DDR2 / NV-DDR3 setup).

Feature 01h P1: bits 3:0 timing mode, bits 5:4 data interface (00b SDR, 01b
NV-DDR, 10b NV-DDR2, 11b NV-DDR3), bits 7:6 reserved; P2-P4 reserved
(ONFI 4.x; Linux's ONFI_DATA_INTERFACE_* for the first three codes).

Feature 02h, NV-DDR2 / NV-DDR3 configuration (ONFI 3.0+, the bit positions
as SoC NAND drivers program them): P1 bit 0 external VREFQ enable, bit 1
complementary DQS (DQS_c) enable, bit 2 complementary RE (RE_c) enable,
bit 3 reserved, bits 7:4 ODT: 0 off, 1 150, 2 100, 3 75, 4 50 ohm. P2 bits
3:0 warm-up RE_n / DQS cycles for data output, bits 7:4 warm-up DQS cycles
for data input, each coded 0, 1, 2, 3 = 0, 1, 2, 4 cycles. P3, P4 reserved.
The bit positions are those public SoC NAND drivers write; the ODT ohm
values and the warm-up coding are the specification's as we read it.
Parameter page byte 159 is read here as the highest warm-up code a part
takes per direction (our reading; the virtual dies report it so).

Repeat bytes (ONFI 4.x, chapter "NV-DDR / NV-DDR2 / NV-DDR3 and Repeat Bytes",
as Linux commit 09cdb237c3c8 "mtd: rawnand: Handle the double bytes in NV-DDR
mode" quotes it): in the DDR interfaces the commands that move no array data
send each data byte twice, the same value on two consecutive strobe edges (RE_n
or DQS rising and falling), and the receiver keeps one copy: SET FEATURES and
ODT CONFIGURE input, READ ID, GET FEATURES, READ STATUS and READ STATUS
ENHANCED output. READ PARAMETER PAGE, READ UNIQUE ID and page data are not
repeated; neither is anything in SDR.
"""

from __future__ import annotations

from dataclasses import dataclass

from nandlab.onfi_spec.nvddr_timing import FEATURE_01H_INTERFACE
from nandlab.onfi_spec.opcodes import Cmd

INTERFACE_BY_CODE = {code: name for name, code in FEATURE_01H_INTERFACE.items()}
ODT_OHMS = {0: None, 1: 150, 2: 100, 3: 75, 4: 50}
WARMUP_CYCLES = (0, 1, 2, 4)
ODT_CONFIGURE = 0xE2
"""ODT CONFIGURE's opcode (per-LUN termination matrix; not implemented by the dies here)."""
REPEAT_IN_COMMANDS = frozenset({Cmd.SET_FEATURES, ODT_CONFIGURE})
"""Commands whose data-in bytes go twice in NV-DDR / NV-DDR2 / NV-DDR3 (see above)."""
REPEAT_OUT_COMMANDS = frozenset({
    Cmd.READ_ID, Cmd.GET_FEATURES, Cmd.READ_STATUS, Cmd.READ_STATUS_ENHANCED,
})
"""Commands whose data-out bytes go twice."""
REPEAT_BYTE_COMMANDS = REPEAT_IN_COMMANDS | REPEAT_OUT_COMMANDS


def timing_mode_p1(interface: str, mode: int) -> int:
    """Feature 01h P1 for `interface` ("sdr", "nv-ddr2", "nv-ddr3"...) and `mode` (0..15)."""
    if interface not in FEATURE_01H_INTERFACE:
        known = list(FEATURE_01H_INTERFACE)
        raise ValueError(f"feature 01h has no interface {interface!r}: {known}")
    if not 0 <= mode <= 0x0F:
        raise ValueError(f"feature 01h holds timing modes 0..15, not {mode}")
    return FEATURE_01H_INTERFACE[interface] << 4 | mode


def decode_timing_mode(p1: int) -> tuple[str, int] | None:
    """(interface, mode) of feature 01h P1; None when reserved bits 7:6 are set."""
    if p1 & 0xC0:
        return None
    return INTERFACE_BY_CODE[(p1 >> 4) & 0x3], p1 & 0x0F


@dataclass(frozen=True)
class DdrConfig:
    """Feature 02h: what the controller asks of the die's NV-DDR2 / NV-DDR3 pins."""

    odt: int = 0
    """ODT code 0..4 (see ODT_OHMS)."""
    re_c: bool = False
    dqs_c: bool = False
    vref_external: bool = False
    warmup_out: int = 0
    """Warm-up code 0..3 (WARMUP_CYCLES) for data output."""
    warmup_in: int = 0

    def params(self) -> bytes:
        p1 = self.odt << 4 | self.re_c << 2 | self.dqs_c << 1 | int(self.vref_external)
        return bytes([p1, self.warmup_in << 4 | self.warmup_out, 0, 0])

    @classmethod
    def decode(cls, params: bytes) -> DdrConfig | None:
        """The configuration P1..P4 say; None when a reserved bit or an undefined code is set."""
        p1, p2 = params[0], params[1]
        odt, w_out, w_in = p1 >> 4, p2 & 0x0F, p2 >> 4
        if p1 & 0x08 or odt not in ODT_OHMS or max(w_out, w_in) >= len(WARMUP_CYCLES):
            return None
        if any(params[2:4]):
            return None
        return cls(odt, bool(p1 & 0x04), bool(p1 & 0x02), bool(p1 & 0x01), w_out, w_in)
