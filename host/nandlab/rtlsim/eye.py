"""The DDR read capture delay of the RTL bench: taps, the nominal setting, eye windows.

nandlab_ddr_io delays each byte lane's DQS by `tap` x TAP_PS before it samples
DQ (an IDELAYE3 in COUNT mode on the board; a transport delay in
simulation). The die drives DQ valid from tDQSQ to tQH after its DQS edge
(`nandlab.onfi_spec.nvddr_timing`), so the nominal delay is the middle of
that window; an eye scan sweeps the taps and finds the window itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from nandlab.onfi_spec.nvddr_timing import DdrInterface, ddr
from nandlab.ops import Interface

TAP_PS = 10
"""Delay per tap of the simulation model (nandlab_core's TAP_PS default)."""
TAPS = 512
"""Taps per lane (9-bit DQS_DELAY fields, as IDELAYE3's CNTVALUEIN)."""
LANES = 1
"""Byte lanes of the x8 bus the controller drives."""
DDR_INTERFACES = {Interface.NV_DDR2: DdrInterface.NV_DDR2, Interface.NV_DDR3: DdrInterface.NV_DDR3,
                  Interface.TOGGLE: DdrInterface.TOGGLE2}


def nominal_tap(interface: Interface, mode: int, skew_ps: int = 0) -> int:
    """The tap that puts the capture mid-way between tDQSQ and tQH (+ a known skew)."""
    t = ddr(DDR_INTERFACES[interface], mode)
    return min(max(round(((t.tDQSQ + t.tQH) / 2 + skew_ps) / TAP_PS), 0), TAPS - 1)


def lane_bit_errors(got: bytes, expected: bytes, lanes: int = LANES) -> tuple[int, ...]:
    """Bit errors of `got` against `expected` per byte lane (byte i is on lane i % lanes)."""
    if len(got) != len(expected):
        raise ValueError(f"read {len(got)} bytes, expected {len(expected)}")
    errors = [0] * lanes
    for i, (a, b) in enumerate(zip(got, expected, strict=True)):
        errors[i % lanes] += (a ^ b).bit_count()
    return tuple(errors)


def widest_window(taps: Sequence[int], passed: Sequence[bool]) -> tuple[int, int] | None:
    """(first, last) tap of the longest run of passing taps (scan order), None if none passed."""
    best: tuple[int, int] | None = None
    start: int | None = None
    for i, ok in enumerate([*passed, False]):
        if ok and start is None:
            start = i
        elif not ok and start is not None:
            if best is None or i - 1 - start > best[1] - best[0]:
                best = (start, i - 1)
            start = None
    return None if best is None else (taps[best[0]], taps[best[1]])
