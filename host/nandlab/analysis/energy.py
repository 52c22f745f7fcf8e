"""Supply energy: measured from current samples, or estimated from datasheet currents.

Measured: a POWER window returns mean supply current per sample period (µA);
energy = sum(I) x period x VCC. Estimated: the profile's `power` section gives
what a datasheet does, the supply current of each operation phase (ICC read,
program, erase, standby, and the current profile of a read: its setup spike
and sensing current, and the extra current per block of a multi-block sensing
from the vendor's test-mode sheet) at VCC; energy = I x VCC x busy time. The
estimate covers the array operation only (R/B# low), not the I/O cycles.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nandlab.profiles import Profile
    from nandlab.profiles.model import Power

ARRAY_READ_KINDS = ("read", "soft_bit_read")
"""Operations that are one array read (READ 00h-30h, soft-bit read, inverse read)."""

PHASE_CURRENT = {
    "read": "read_mA",
    "soft_bit_read": "read_mA",
    "copyback": "program_mA",
    "program": "program_mA",
    "erase": "erase_mA",
}
"""Operation kind -> the `power` field of the current it draws throughout."""


def samples_energy_uJ(samples_uA: Sequence[int], period_ns: int, vcc_V: float) -> float:
    """Energy (µJ) of a POWER window: sum(µA) x period (ns) x VCC (V) x 1e-9."""
    return sum(samples_uA) * period_ns * 1e-6 * vcc_V * 1e-3


def segments_energy_uJ(segments: Iterable[tuple[int, float]], vcc_V: float) -> float:
    """Energy (µJ) of (duration ns, current mA) segments at VCC."""
    return sum(mA * dur for dur, mA in segments) * vcc_V / 1e6


def read_energy_uJ(power: Power, busy_ns: int, setup_ns: int) -> float:
    """Energy (µJ) of one array read of `busy_ns` whose first `setup_ns` is its setup."""
    return segments_energy_uJ(power.read_current(busy_ns, setup_ns), power.vcc_V)


def operation_energy_uJ(
    profile: Profile,
    kind: str,
    busy_us: float,
    sensings: int = 0,
    blocks: int = 1,
    read_us: float | None = None,
) -> float:
    """Estimated supply energy (µJ) of one chip operation of `kind` busy for `busy_us`.

    Array reads: the read current profile (`Power.read_current`, setup = t_read_base_us).
    MWS over `blocks` blocks: the multi-block read current (`Power.mws_read_mA`)
    throughout. A latch-sequenced run: read current for its `sensings` sensings of
    t_sense_us each, standby current for the latch steps between them. A latch XOR or
    SET FEATURES: standby current (no array activity). A copyback whose read part
    (`read_us`) is known: that read, then program current. Other kinds draw their phase
    current (`PHASE_CURRENT`) throughout; unknown kinds 0.
    """
    pw = profile.power
    setup_ns = round(profile.timing.t_read_base_us * 1000)
    if kind in ARRAY_READ_KINDS:
        return read_energy_uJ(pw, round(busy_us * 1000), setup_ns)
    if kind == "mws":
        return pw.mws_read_mA(max(blocks, 1)) * pw.vcc_V * busy_us / 1000.0
    if kind == "latch":
        sense_us = min(sensings * profile.timing.t_sense_us, busy_us)
        return (pw.read_mA * sense_us + pw.idle_mA * (busy_us - sense_us)) * pw.vcc_V / 1000.0
    if kind in ("xor", "set_feature"):
        return pw.idle_mA * pw.vcc_V * busy_us / 1000.0
    if kind == "copyback" and read_us is not None:
        read_us = min(read_us, busy_us)
        read = read_energy_uJ(pw, round(read_us * 1000), setup_ns)
        return read + pw.program_mA * pw.vcc_V * (busy_us - read_us) / 1000.0
    attr = PHASE_CURRENT.get(kind)
    if attr is None:
        return 0.0
    return float(getattr(pw, attr)) * pw.vcc_V * busy_us / 1000.0
