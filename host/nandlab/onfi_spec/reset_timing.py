"""tRST: how long a target stays busy after RESET (FFh), by what the RESET interrupts.

Datasheet maxima of ONFI parts (the Micron 4/8/16 Gb family, among others): 5 µs when
the target is idle or reading, 10 µs when it aborts a program, 500 µs when it aborts an
erase; the first RESET after power-on may keep the target busy for up to 1 ms. (Linux's
SDR table allows 250 ms, a bound, not a figure to plan by.)

Users: the chip layer's RESET timeout (`onfi.Target`, `ops.WAIT_TIMEOUT_MARGIN` x the
power-on figure, the longest) and the FT2232H compiler's R/B# sample plan (the idle
figure: a RESET the chip layer issues finds the target idle; a longer one is still waited
for on the chip side, its busy time then a lower bound).
"""

from __future__ import annotations

T_RST_US: dict[str, float] = {"idle": 5.0, "program": 10.0, "erase": 500.0}
"""tRST (max, µs) of a RESET that finds the target idle (or reading), programming, erasing."""
T_RST_POWER_ON_US = 1000.0
"""tRST (max, µs) of the first RESET after power-on."""
