"""Op programs the RTL tests run, and how their results must match the reference.

Programs are the sequence library's (`nandlab.sequences.core`), so they carry
the same ONFI delays (tWB, tWHR, tADL, tCCS) the chip layer sends to any bench. The
reference is `sim://` (SimTransport) on dies of the same profile and seed:
`compare()` requires the same records in the same order, byte-identical DATA,
ERRCNT and ERROR records, and (when asked) BUSY times within one controller clock.
"""

from __future__ import annotations

from nandlab.onfi.address import ChipGeometry
from nandlab.onfi_spec.opcodes import Feature
from nandlab.onfi_spec.sdr_timing import SdrTiming, sdr
from nandlab.ops import (
    MAX_SDR_MODE,
    BusyRecord,
    DataRecord,
    DinPattern,
    DoutCompare,
    EndRecord,
    ErrCountRecord,
    ErrorRecord,
    Interface,
    MarkRecord,
    Pattern,
    PowerRecord,
    Program,
    Results,
)
from nandlab.profiles import Profile
from nandlab.sequences import core
from nandlab.sequences.core import DataIn

TIMEOUT_NS = 50_000_000


class Programs:
    """Program factory for one target of a profile, in SDR timing mode `mode`."""

    def __init__(self, profile: Profile, ce: int = 0, mode: int = 0) -> None:
        self.profile = profile
        self.geo = ChipGeometry.from_profile(profile)
        self.ce = ce
        self.mode = mode

    @property
    def sdr(self) -> SdrTiming:
        """The ONFI delays of the current mode."""
        return sdr(self.mode)

    def ops(self, *sequence: Program) -> Program:
        """A program on this target: CE, then the `sequence` fragments."""
        program = Program().ce(self.ce)
        for fragment in sequence:
            program += fragment
        return program

    @property
    def page_bytes(self) -> int:
        return self.geo.total_bytes

    def reset(self) -> Program:
        """RESET; both die and controller return to mode 0."""
        self.mode = 0
        return self.ops(core.reset(self.sdr, TIMEOUT_NS))

    def set_timing_mode(self, mode: int) -> Program:
        """SET FEATURES 01h = mode, wait tFEAT, then TIMING mode (the controller follows)."""
        program = self.ops(core.set_timing_mode(self.sdr, mode, TIMEOUT_NS))
        self.mode = mode
        return program

    def set_interface(self, interface: Interface, mode: int) -> Program:
        """SET FEATURES 01h = `mode` of a DDR `interface` (bits 5:4), wait tFEAT, then TIMING.

        The delays of later programs (tWB, tWHR, tADL, tCCS) are SDR mode 5's:
        ONFI's figures for those do not depend on the mode.
        """
        p1 = mode | int(interface) << 4
        program = self.ops(core.set_features(self.sdr, Feature.TIMING_MODE, bytes([p1, 0, 0, 0]),
                                             TIMEOUT_NS))
        self.mode = MAX_SDR_MODE
        return program.timing(mode, interface)

    def read_id(self, address: int, n: int) -> Program:
        return self.ops(core.read_id(self.sdr, address, n))

    def parameter_page(self, n: int = 256) -> Program:
        return self.ops(core.read_parameter_page(self.sdr, n, TIMEOUT_NS))

    def set_features(self, fa: int, params: bytes) -> Program:
        return self.ops(core.set_features(self.sdr, fa, params, TIMEOUT_NS))

    def get_features(self, fa: int) -> Program:
        return self.ops(core.get_features(self.sdr, fa, TIMEOUT_NS))

    def status(self) -> Program:
        return self.ops(core.read_status(self.sdr))

    def erase(self, block: int, timeout_ns: int = TIMEOUT_NS) -> Program:
        erase = core.erase(self.sdr, self.geo.row_bytes(block), timeout_ns)
        return self.ops(erase, core.read_status(self.sdr))

    def program_page(self, block: int, page: int, data: bytes) -> Program:
        return self._program(block, page, data)

    def program_pattern(self, block: int, page: int, pattern: Pattern, seed: int) -> Program:
        return self._program(block, page, DinPattern(self.page_bytes, pattern, seed))

    def _program(self, block: int, page: int, data: DataIn) -> Program:
        cycles = self.geo.full_address(block, page)
        program = core.page_program(self.sdr, cycles, data, TIMEOUT_NS)
        return self.ops(program, core.read_status(self.sdr))

    def read_page(self, block: int, page: int, n: int | None = None, column: int = 0) -> Program:
        cycles = self.geo.full_address(block, page, column)
        out = self.page_bytes - column if n is None else n
        return self.ops(core.page_read(self.sdr, cycles, out, TIMEOUT_NS))

    def read_compare(
        self, block: int, page: int, pattern: Pattern, seed: int, chunk: int
    ) -> Program:
        cycles = self.geo.full_address(block, page)
        out = DoutCompare(self.page_bytes, pattern, seed, chunk)
        return self.ops(core.page_read(self.sdr, cycles, out, TIMEOUT_NS))

    def change_read_column(self, column: int, n: int) -> Program:
        column_cycles = self.geo.column_bytes(column)
        return self.ops(core.change_read_column(column_cycles, self.sdr.tCCS, n))


def compare(rtl: Results, ref: Results, clk_ns: float | None) -> list[str]:
    """Differences between an RTL run and the reference run of the same program ([] = match).

    clk_ns: allowed BUSY difference (one controller clock); None compares only
    which instruction reported BUSY, so a test can aim at one feature.
    """
    problems: list[str] = []
    kinds_rtl = [type(r).__name__ for r in rtl]
    kinds_ref = [type(r).__name__ for r in ref]
    if kinds_rtl != kinds_ref:
        return [f"record sequence differs: rtl {kinds_rtl}, reference {kinds_ref}"]
    for i, (a, b) in enumerate(zip(rtl, ref, strict=True)):
        if isinstance(a, BusyRecord):
            assert isinstance(b, BusyRecord)
            off = clk_ns is not None and abs(a.busy_ns - b.busy_ns) > clk_ns
            if a.index != b.index or off:
                problems.append(
                    f"record {i}: BUSY of instruction {a.index} = {a.busy_ns} ns, reference "
                    f"instruction {b.index} = {b.busy_ns} ns (allowed difference {clk_ns} ns)"
                )
        elif isinstance(a, DataRecord | ErrCountRecord | ErrorRecord | PowerRecord):
            if a != b:
                problems.append(f"record {i}: {_short(a)} != reference {_short(b)}")
        elif not isinstance(a, MarkRecord | EndRecord):
            problems.append(f"record {i}: unexpected {a!r}")
    return problems


def _short(record: object) -> str:
    text = repr(record)
    return text if len(text) < 300 else text[:300] + "..."
