"""Energy of one chip operation, measured through the op program's POWER window.

The operation's op program is the sequence `Chip` runs, wrapped by
`sequences.power.measured`: POWER start right after the command and address
cycles that start the array operation and POWER stop right after its
WAIT_RDY, so the window covers the array's busy time (plus tWB) and not the
data transfer. The bench returns supply
current samples (µA, one per `period_ns`); energy = sum(I) x period x the
profile's Vcc.

Example::

    m = read_energy(chip, block=12, page=0)
    m.energy_uJ, m.mean_mA, m.busy_ns
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nandlab.analysis import samples_energy_uJ
from nandlab.errors import ChipStatusFail, TransportError, UnsupportedCapability
from nandlab.onfi.chip import Chip
from nandlab.onfi.results import busy_steps, data_records
from nandlab.onfi_spec.opcodes import Status
from nandlab.ops import Program, Results
from nandlab.sequences import core, power
from nandlab.sequences import testmode as testmode_seq

if TYPE_CHECKING:
    from nandlab.onfi.testmode import TestMode

DEFAULT_PERIOD_NS = 1000
TIMEOUT_NS = 100_000_000


@dataclass(frozen=True)
class EnergyMeasurement:
    """One operation's window: busy time (ns), current samples (µA) and the energy (µJ)."""

    operation: str
    busy_ns: int
    period_ns: int
    samples_uA: tuple[int, ...]
    vcc_V: float
    status: int | None = None
    data: bytes = b""

    @property
    def window_ns(self) -> int:
        return self.period_ns * len(self.samples_uA)

    @property
    def charge_nC(self) -> float:
        return sum(self.samples_uA) * self.period_ns * 1e-6

    @property
    def energy_uJ(self) -> float:
        """Supply energy over the window (µJ)."""
        return samples_energy_uJ(self.samples_uA, self.period_ns, self.vcc_V)

    @property
    def mean_mA(self) -> float:
        return sum(self.samples_uA) / len(self.samples_uA) / 1000.0 if self.samples_uA else 0.0

    @property
    def peak_mA(self) -> float:
        return max(self.samples_uA) / 1000.0 if self.samples_uA else 0.0


def _measure(
    chip: Chip, op: str, body: Program, slc: bool, period_ns: int, what: str
) -> EnergyMeasurement:
    """Run `body` as an SLC or native operation with its busy period in a POWER window."""
    if not chip.transport.supports("power"):
        raise UnsupportedCapability(
            f"energy measurement needs 'power', which bench {chip.transport.url} does not support"
        )
    program = chip.array_op(body, slc=slc, what=what)
    if op != "read":
        program += core.read_status(chip.sdr)
    results = chip.run(power.measured(program, period_ns), what)
    if not results.power:
        raise TransportError(f"{what}: the bench returned no power samples")
    status = None if op == "read" else _status(results, what)
    record = results.power[0]
    return EnergyMeasurement(
        op,
        sum(busy_steps(results)),
        record.period_ns,
        tuple(record.samples_uA),
        chip.profile.power.vcc_V,
        status,
        data_records(results)[0] if op == "read" else b"",
    )


def _status(results: Results, what: str) -> int:
    status = data_records(results)[-1][0]
    if status & Status.FAIL:
        raise ChipStatusFail(f"{what}: status {status:02X}h reports FAIL")
    return status


def read_energy(
    chip: Chip,
    block: int,
    page: int,
    *,
    slc: bool = False,
    length: int | None = None,
    period_ns: int = DEFAULT_PERIOD_NS,
) -> EnergyMeasurement:
    """READ (00h-30h) of one page with the array sensing inside the POWER window."""
    geo = chip.check_address(block, page, slc)
    n = geo.total_bytes if length is None else length
    body = core.page_read(chip.sdr, geo.full_address(block, page, 0), n, TIMEOUT_NS)
    what = f"READ block {block} page {page} (energy)"
    return _measure(chip, "read", body, slc, period_ns, what)


def program_energy(
    chip: Chip,
    block: int,
    page: int,
    data: bytes,
    *,
    slc: bool = False,
    period_ns: int = DEFAULT_PERIOD_NS,
) -> EnergyMeasurement:
    """PROGRAM (80h-10h) of one erased page; the window covers tPROG."""
    geo = chip.check_address(block, page, slc)
    body = core.page_program(chip.sdr, geo.full_address(block, page), data, TIMEOUT_NS)
    what = f"PROGRAM block {block} page {page} (energy)"
    return _measure(chip, "program", body, slc, period_ns, what)


def erase_energy(
    chip: Chip, block: int, *, period_ns: int = DEFAULT_PERIOD_NS
) -> EnergyMeasurement:
    """ERASE (60h-D0h) of one block; the window covers tBERS."""
    geo = chip.geometry
    geo.check_block(block)
    body = core.erase(chip.sdr, geo.row_bytes(block), TIMEOUT_NS)
    what = f"ERASE block {block} (energy)"
    return _measure(chip, "erase", body, False, period_ns, what)


def mws_energy(
    tm: TestMode,
    groups: Sequence[tuple[int, Sequence[int]]],
    *,
    period_ns: int = DEFAULT_PERIOD_NS,
) -> EnergyMeasurement:
    """Multi-wordline sensing (`TestMode.mws`'s groups) with its sensing in the POWER window;
    within the profile's power budget of blocks (an override's SET FEATURES would be the
    first busy)."""
    sensing, blocks, _ = tm.mws_sensing(groups)
    mode = tm.chip.profile.vendor.test_mode
    assert mode is not None  # a TestMode exists only on a chip that has one
    body = testmode_seq.in_test_mode(mode, sensing)
    what = f"MWS blocks {', '.join(map(str, blocks))} (energy)"
    return _measure(tm.chip, "mws", body, False, period_ns, what)
