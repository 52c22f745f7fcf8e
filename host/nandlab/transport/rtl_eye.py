"""The `eye` role of `rtl://`: the DQS capture delay of the simulated controller.

nandlab_ctrl delays each byte lane's read strobe by DQS_DELAY taps before it
samples DQ (docs/fpga.md, "DDR interfaces"); the simulation's delay line is
TAP_PS per tap. A TIMING to a DDR mode loads that mode's nominal delay (the
middle of the die's tDQSQ..tQH window, `nandlab.rtlsim.eye.nominal_tap`), so
an eye scan sets its delays after switching the mode.
"""

from __future__ import annotations

from collections.abc import Callable

from nandlab.errors import RangeError, TransportError
from nandlab.ops import Program, Results
from nandlab.regs import REG
from nandlab.rtlsim.eye import LANES, TAP_PS, TAPS, lane_bit_errors

LANE_BITS = 16
"""Lane k's field of DQS_DELAY starts at bit 16 k (LANE0[8:0], LANE1[24:16])."""


class RtlEyeScanner:
    """Capture-delay control and per-lane bit errors of a read (transport.roles.EyeScanner).

    Args:
        write_reg: writes a controller register (offset, value).
        run: runs an op program on the bench.
    """

    def __init__(self, write_reg: Callable[[int, int], None],
                 run: Callable[[Program], Results]) -> None:
        self._write_reg = write_reg
        self._run = run
        self._taps = [0] * LANES

    @property
    def lanes(self) -> int:
        return LANES

    @property
    def taps(self) -> int:
        return TAPS

    @property
    def tap_ps(self) -> float:
        return float(TAP_PS)

    def set_capture_delay(self, lane: int, tap: int) -> None:
        """Capture lane `lane` `tap` taps after its DQS edge (RangeError outside 0..taps-1)."""
        if not 0 <= lane < LANES:
            raise RangeError(f"lane {lane} does not exist: this bench has {LANES} byte lane(s)")
        if not 0 <= tap < TAPS:
            raise RangeError(f"capture delay {tap} taps is outside 0..{TAPS - 1}")
        self._taps[lane] = tap
        self.load(self._taps)

    def load(self, taps: list[int]) -> None:
        """Write every lane's delay into DQS_DELAY."""
        self._taps = list(taps)
        value = sum(t << (LANE_BITS * k) for k, t in enumerate(self._taps))
        self._write_reg(REG["DQS_DELAY"].offset, value)

    def lane_bit_errors(self, program: Program, expected: bytes) -> tuple[int, ...]:
        """Run `program` (one DATA record of len(expected) bytes): bit errors per lane."""
        results = self._run(program)
        results.raise_for_errors()
        if len(results.data) != 1:
            raise TransportError(
                f"an eye-scan read must give one DATA record, this one gave {len(results.data)}")
        return lane_bit_errors(results.data[0], expected, LANES)
