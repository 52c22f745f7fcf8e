"""Latency statistics of repeated operations (busy times, µs)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LatencyStats:
    """Count, mean, spread and quantiles of latencies (µs)."""

    n: int
    mean_us: float
    std_us: float
    min_us: float
    p50_us: float
    p99_us: float
    max_us: float

    @classmethod
    def of(cls, latencies_us: Iterable[float]) -> LatencyStats:
        """Statistics of at least one latency; quantiles interpolate linearly between
        order statistics (numpy's default), std is the population deviation."""
        a = np.fromiter((float(x) for x in latencies_us), dtype=np.float64)
        if a.size == 0:
            raise ValueError("latency statistics need at least one latency")
        p50, p99 = np.percentile(a, [50, 99])
        return cls(
            int(a.size), float(a.mean()), float(a.std()), float(a.min()), float(p50),
            float(p99), float(a.max()),
        )
