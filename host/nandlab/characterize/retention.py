"""Retention conditions: parse ``AGE@TEMP`` and convert ages to bake times.

A retention condition is an age at a use temperature, written ``AGE@TEMP``:
``1y@30C``, ``6mo@30C``, ``2w@40C``, ``3d@85C``, ``12h@55C``. Age units:
y (365 days), mo (1/12 year), w, d, h; decimals are allowed (``1.5y@30C``).
A lab reaches that age faster by baking at a higher temperature; the bake
time follows Arrhenius' law with the activation energy of the part.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from nandlab.errors import UsageError

BOLTZMANN_EV_PER_K = 8.617333262e-5
HOURS_PER_UNIT = {"y": 8760.0, "mo": 730.0, "w": 168.0, "d": 24.0, "h": 1.0}
MAX_AGE_H = 1000 * 8760.0
RETENTION_FORM = (
    "AGE@TEMP with AGE a number and a unit y, mo, w, d or h and TEMP in degrees C, "
    "e.g. 1y@30C, 6mo@30C, 3d@85C"
)
_PATTERN = re.compile(
    r"^\s*(?P<age>\d+(?:\.\d+)?)\s*(?P<unit>y|mo|w|d|h)\s*@\s*"
    r"(?P<temp>-?\d+(?:\.\d+)?)\s*(?:°?C)\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Retention:
    """A retention age `age_h` (hours) at `temp_C` (°C); `label` as the user wrote it."""

    age_h: float
    temp_C: float
    label: str


def parse_retention(text: str) -> Retention:
    """Parse ``AGE@TEMP``; raises UsageError naming the allowed form."""
    match = _PATTERN.match(text)
    if match is None:
        raise UsageError(f"retention '{text}' is malformed: use {RETENTION_FORM}")
    unit = match["unit"].lower()
    age_h = float(match["age"]) * HOURS_PER_UNIT[unit]
    if not age_h <= MAX_AGE_H:  # also a number of hundreds of digits (inf as a float)
        raise UsageError(f"retention '{text}': the age is over {MAX_AGE_H / 8760:.0f} years")
    temp_C = float(match["temp"])
    if temp_C <= -273.15 or temp_C > 300:
        raise UsageError(f"retention temperature {temp_C} C is outside -273..300 C")
    label = f"{_compact(float(match['age']))}{unit}@{_compact(temp_C)}C"
    return Retention(age_h=age_h, temp_C=temp_C, label=label)


def _compact(x: float) -> str:
    return str(int(x)) if x == int(x) else f"{x:g}"


def acceleration_factor(
    use_temp_C: float, bake_temp_C: float, activation_energy_eV: float
) -> float:
    """Arrhenius acceleration of `bake_temp_C` over `use_temp_C` (> 1 when hotter)."""
    t_use = use_temp_C + 273.15
    t_bake = bake_temp_C + 273.15
    return math.exp(activation_energy_eV / BOLTZMANN_EV_PER_K * (1.0 / t_use - 1.0 / t_bake))


def bake_hours(retention: Retention, bake_temp_C: float, activation_energy_eV: float) -> float:
    """Hours at `bake_temp_C` equivalent to `retention` (1y@30C -> 13.6 h at 85 C, Ea 1.1 eV)."""
    factor = acceleration_factor(retention.temp_C, bake_temp_C, activation_energy_eV)
    return retention.age_h / factor
