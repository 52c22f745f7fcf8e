"""Energy of one chip operation, measured through the op program's POWER window.

The operation's op program is built as `Chip` builds it, with POWER start
right after the command and address cycles that start the array operation
and POWER stop right after its WAIT_RDY, so the window covers the array's
busy time (plus tWB) and not the data transfer. The bench returns supply
current samples (µA, one per `period_ns`); energy = sum(I) x period x the
profile's Vcc.

Example::

    m = read_energy(chip, block=12, page=0)
    m.energy_uJ, m.mean_mA, m.busy_ns
"""

from __future__ import annotations

from dataclasses import dataclass

from nandlab.errors import ChipStatusFail, NandTimeout, TransportError, UnsupportedCapability
from nandlab.onfi.chip import Chip
from nandlab.onfi.ops_builder import OpsBuilder
from nandlab.onfi_spec.opcodes import Cmd, Status
from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.ops import ErrorCode, Instruction, Power, Program, Results, WaitRdy

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
        """Supply energy over the window (µJ): sum(µA) x period (ns) x Vcc (V) x 1e-9."""
        return self.charge_nC * self.vcc_V * 1e-3

    @property
    def mean_mA(self) -> float:
        return sum(self.samples_uA) / len(self.samples_uA) / 1000.0 if self.samples_uA else 0.0

    @property
    def peak_mA(self) -> float:
        return max(self.samples_uA) / 1000.0 if self.samples_uA else 0.0


def _builder(chip: Chip, slc: bool) -> OpsBuilder:
    if not chip.transport.supports("power"):
        raise UnsupportedCapability(
            f"energy measurement needs 'power', which bench {chip.transport.url} does not support"
        )
    ops = OpsBuilder(chip.ce, sdr(chip.timing_mode))
    vendor = chip.profile.vendor.slc_mode
    if slc:
        if vendor is None or not chip.transport.supports("slc_mode"):
            raise UnsupportedCapability(f"SLC mode is not available on bench {chip.transport.url}")
        ops.cmd(vendor.enter_cmd)
    elif vendor is not None:
        ops.cmd(vendor.exit_cmd)
    return ops


def _windowed(ops: OpsBuilder, period_ns: int) -> Program:
    """Insert POWER start before the first WAIT_RDY's tWB delay and stop after it."""
    ins: list[Instruction] = list(ops.program())
    wait = next(i for i, x in enumerate(ins) if isinstance(x, WaitRdy))
    return Program(
        [
            *ins[: wait - 1],
            Power(True, period_ns),
            *ins[wait - 1 : wait + 1],
            Power(False),
            *ins[wait + 1 :],
        ]
    )


def _run(chip: Chip, program: Program, what: str) -> Results:
    results = chip.transport.run(program)
    for err in results.errors:
        if err.code == ErrorCode.TIMEOUT:
            raise NandTimeout(f"{what}: R/B# stayed low past the timeout (CE {chip.ce})")
        raise TransportError(
            f"{what}: the bench reported error {ErrorCode(err.code).name} at instruction "
            f"{err.index} (CE {chip.ce})"
        )
    if not results.power:
        raise TransportError(f"{what}: the bench returned no power samples")
    return results


def _measurement(chip: Chip, op: str, results: Results, status: int | None) -> EnergyMeasurement:
    record = results.power[0]
    data = results.data[0] if op == "read" and results.data else b""
    return EnergyMeasurement(
        op,
        sum(results.busy_ns),
        record.period_ns,
        tuple(record.samples_uA),
        chip.profile.power.vcc_V,
        status,
        data,
    )


def _status(chip: Chip, results: Results, what: str) -> int:
    status = results.data[-1][0]
    if status & Status.FAIL:
        raise ChipStatusFail(f"{what}: status {status:02X}h reports FAIL")
    return int(status)


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
    geo = chip.geometry
    geo.check_block(block)
    geo.check_page(page, slc)
    n = geo.total_bytes if length is None else length
    ops = _builder(chip, slc)
    ops.cmd(Cmd.READ).addr(geo.full_address(block, page, 0)).cmd(Cmd.READ_CONFIRM)
    ops.delay_wb().wait(TIMEOUT_NS).delay_rr().dout(n)
    if slc:
        ops.cmd(chip.profile.vendor.slc_mode.exit_cmd)  # type: ignore[union-attr]
    what = f"READ block {block} page {page} (energy)"
    return _measurement(chip, "read", _run(chip, _windowed(ops, period_ns), what), None)


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
    geo = chip.geometry
    geo.check_block(block)
    geo.check_page(page, slc)
    ops = _builder(chip, slc)
    ops.cmd(Cmd.PROGRAM).addr(geo.full_address(block, page)).delay_adl().din(data)
    ops.cmd(Cmd.PROGRAM_CONFIRM).delay_wb().wait(TIMEOUT_NS)
    if slc:
        ops.cmd(chip.profile.vendor.slc_mode.exit_cmd)  # type: ignore[union-attr]
    ops.cmd(Cmd.READ_STATUS).delay_whr().dout(1)
    what = f"PROGRAM block {block} page {page} (energy)"
    results = _run(chip, _windowed(ops, period_ns), what)
    return _measurement(chip, "program", results, _status(chip, results, what))


def erase_energy(
    chip: Chip, block: int, *, period_ns: int = DEFAULT_PERIOD_NS
) -> EnergyMeasurement:
    """ERASE (60h-D0h) of one block; the window covers tBERS."""
    geo = chip.geometry
    geo.check_block(block)
    ops = _builder(chip, False)
    ops.cmd(Cmd.ERASE).addr(geo.row_bytes(block)).cmd(Cmd.ERASE_CONFIRM)
    ops.delay_wb().wait(TIMEOUT_NS)
    ops.cmd(Cmd.READ_STATUS).delay_whr().dout(1)
    what = f"ERASE block {block} (energy)"
    results = _run(chip, _windowed(ops, period_ns), what)
    return _measurement(chip, "erase", results, _status(chip, results, what))
