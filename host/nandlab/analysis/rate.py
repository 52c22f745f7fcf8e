"""Error rates with their confidence interval.

A rate is errors in trials (bits); its interval is the Wilson score interval
(Wilson 1927; Newcombe 1998, method 3): the rates p whose normal-approximation
test |k/n - p| <= z sqrt(p (1 - p) / n) does not reject, solved in closed form.
Unlike k/n +- z sqrt(k/n (1 - k/n) / n) it stays inside [0, 1] and, for zero
errors, gives a real upper bound (z^2 / (n + z^2), about 3.8 / n at 95 %) instead
of an interval of width zero. Zero errors is never reported as a rate of 1/n.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist


@dataclass(frozen=True)
class Rate:
    """`errors` in `bits` trials, with its two-sided `confidence` interval (Wilson score)."""

    errors: int
    bits: int
    confidence: float = 0.95

    def __post_init__(self) -> None:
        if self.bits < 0 or not 0 <= self.errors <= max(self.bits, 0):
            raise ValueError(f"rate: need 0 <= errors <= bits, got {self.errors} in {self.bits}")
        if not 0.0 < self.confidence < 1.0:
            raise ValueError(f"confidence must be in (0, 1), got {self.confidence}")

    @property
    def value(self) -> float | None:
        """The measured rate errors / bits (None when nothing was measured)."""
        return self.errors / self.bits if self.bits else None

    @property
    def interval(self) -> tuple[float, float]:
        """(low, high) Wilson score bounds; (0, 1) when nothing was measured."""
        n, k = self.bits, self.errors
        if n == 0:
            return 0.0, 1.0
        z = NormalDist().inv_cdf(0.5 + self.confidence / 2.0)
        p = k / n
        denom = 1.0 + z * z / n
        centre = (p + z * z / (2.0 * n)) / denom
        half = z / denom * math.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n))
        low = 0.0 if k == 0 else max(0.0, centre - half)
        high = 1.0 if k == n else min(1.0, centre + half)
        return low, high

    @property
    def low(self) -> float:
        return self.interval[0]

    @property
    def high(self) -> float:
        return self.interval[1]

    def __str__(self) -> str:
        return format_rate(self.errors, self.bits)


def format_rate(errors: int, bits: int) -> str:
    """'1.2e-04', or '0 in N bits' when nothing failed (so zero always says how many bits)."""
    if bits == 0:
        return "n/a"
    if errors == 0:
        return f"0 in {bits:.3g} bits"
    return f"{errors / bits:.2e}"
