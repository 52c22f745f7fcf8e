"""Holding a temperature for a time: the virtual oven of a sim bench, or the bench's
temperature controller held for real time (bake, wait steps)."""

from __future__ import annotations

import time

from nandlab.bench import Bench, ThermalController
from nandlab.characterize.progress import ProgressFn, no_progress

THERMAL_HINT = (
    "declare the board's temperature controller (board file section temperature:) and "
    "open the bench with instruments=1"
)


def hold(
    ctl: ThermalController | None, hours: float, what: str, progress: ProgressFn
) -> list[float]:
    """Let `hours` of real time pass (a real bench), reading the temperature once a minute."""
    readings: list[float] = []
    total = hours * 3600.0
    start = time.monotonic()
    while True:
        if ctl is not None:
            readings.append(float(ctl.read_C()))
        left = total - (time.monotonic() - start)
        progress(what, round(total - max(left, 0.0)), max(round(total), 1))
        if left <= 0:
            return readings
        time.sleep(min(60.0, left))


def oven(
    bench: Bench,
    temp: float,
    hours: float,
    back_to: float,
    progress: ProgressFn = no_progress,
) -> list[float]:
    """Bake: the virtual oven of a sim bench, or the bench's controller held at `temp` for
    `hours` of real time and then brought back to `back_to` (°C). Returns the readings."""
    if bench.has("oven"):
        bench.oven.bake(temp, hours)
        return []
    ctl = bench.thermal
    readings = [float(ctl.settle(temp))]
    readings += hold(ctl, hours, f"baking at {temp:g} °C", progress)
    ctl.settle(back_to)
    return readings


def mean(readings: list[float], otherwise: float) -> float:
    return sum(readings) / len(readings) if readings else otherwise
