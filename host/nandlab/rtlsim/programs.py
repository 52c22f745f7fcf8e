"""Op programs the RTL tests run, and how their results must match the reference.

Programs are built with the chip layer's `OpsBuilder`, so they carry the same
ONFI delays (tWB, tWHR, tADL, tCCS) the chip layer sends to any bench. The
reference is `sim://` (SimTransport) on dies of the same profile and seed:
`compare()` requires the same records in the same order, byte-identical DATA,
ERRCNT and ERROR records, and (when asked) BUSY times within one controller clock.
"""

from __future__ import annotations

from nandlab.onfi.address import ChipGeometry
from nandlab.onfi.ops_builder import OpsBuilder
from nandlab.onfi_spec.opcodes import Cmd, Feature
from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.ops import (
    BusyRecord,
    DataRecord,
    EndRecord,
    ErrCountRecord,
    ErrorRecord,
    MarkRecord,
    Pattern,
    PowerRecord,
    Program,
    Results,
)
from nandlab.profiles import Profile

TIMEOUT_NS = 50_000_000


class Programs:
    """Program factory for one target of a profile, in SDR timing mode `mode`."""

    def __init__(self, profile: Profile, ce: int = 0, mode: int = 0) -> None:
        self.profile = profile
        self.geo = ChipGeometry.from_profile(profile)
        self.ce = ce
        self.mode = mode

    def ops(self) -> OpsBuilder:
        return OpsBuilder(self.ce, sdr(self.mode))

    @property
    def page_bytes(self) -> int:
        return self.geo.total_bytes

    def reset(self) -> Program:
        """RESET; both die and controller return to mode 0."""
        self.mode = 0
        return self.ops().cmd(Cmd.RESET).delay_wb().wait(TIMEOUT_NS).timing(0).program()

    def set_timing_mode(self, mode: int) -> Program:
        """SET FEATURES 01h = mode, wait tFEAT, then TIMING mode (the controller follows)."""
        ops = (
            self.ops()
            .cmd(Cmd.SET_FEATURES)
            .addr(bytes([Feature.TIMING_MODE]))
            .delay_adl()
        )
        ops.din(bytes([mode, 0, 0, 0])).delay_wb().wait(TIMEOUT_NS).timing(mode)
        self.mode = mode
        return ops.program()

    def read_id(self, address: int, n: int) -> Program:
        return (
            self.ops()
            .cmd(Cmd.READ_ID)
            .addr(bytes([address]))
            .delay_whr()
            .dout(n)
            .program()
        )

    def parameter_page(self, n: int = 256) -> Program:
        ops = (
            self.ops()
            .cmd(Cmd.READ_PARAMETER_PAGE)
            .addr(b"\x00")
            .delay_wb()
            .wait(TIMEOUT_NS)
        )
        return ops.delay_rr().dout(n).program()

    def set_features(self, fa: int, params: bytes) -> Program:
        ops = self.ops().cmd(Cmd.SET_FEATURES).addr(bytes([fa])).delay_adl().din(params)
        return ops.delay_wb().wait(TIMEOUT_NS).program()

    def get_features(self, fa: int) -> Program:
        ops = (
            self.ops()
            .cmd(Cmd.GET_FEATURES)
            .addr(bytes([fa]))
            .delay_wb()
            .wait(TIMEOUT_NS)
        )
        return ops.delay_rr().dout(4).program()

    def status(self) -> Program:
        return self.ops().cmd(Cmd.READ_STATUS).delay_whr().dout(1).program()

    def erase(self, block: int, timeout_ns: int = TIMEOUT_NS) -> Program:
        ops = (
            self.ops()
            .cmd(Cmd.ERASE)
            .addr(self.geo.row_bytes(block))
            .cmd(Cmd.ERASE_CONFIRM)
        )
        return (
            ops.delay_wb()
            .wait(timeout_ns)
            .cmd(Cmd.READ_STATUS)
            .delay_whr()
            .dout(1)
            .program()
        )

    def program_page(self, block: int, page: int, data: bytes) -> Program:
        ops = (
            self.ops()
            .cmd(Cmd.PROGRAM)
            .addr(self.geo.full_address(block, page))
            .delay_adl()
        )
        ops.din(data).cmd(Cmd.PROGRAM_CONFIRM).delay_wb().wait(TIMEOUT_NS)
        return ops.cmd(Cmd.READ_STATUS).delay_whr().dout(1).program()

    def program_pattern(
        self, block: int, page: int, pattern: Pattern, seed: int
    ) -> Program:
        ops = (
            self.ops()
            .cmd(Cmd.PROGRAM)
            .addr(self.geo.full_address(block, page))
            .delay_adl()
        )
        prog = ops.program()
        prog.din_pattern(self.page_bytes, pattern, seed)
        tail = self.ops().cmd(Cmd.PROGRAM_CONFIRM).delay_wb().wait(TIMEOUT_NS)
        tail.cmd(Cmd.READ_STATUS).delay_whr().dout(1)
        return prog.extend(list(tail.program())[1:])

    def read_page(
        self, block: int, page: int, n: int | None = None, column: int = 0
    ) -> Program:
        ops = self.ops().cmd(Cmd.READ).addr(self.geo.full_address(block, page, column))
        ops.cmd(Cmd.READ_CONFIRM).delay_wb().wait(TIMEOUT_NS).delay_rr()
        return ops.dout(self.page_bytes - column if n is None else n).program()

    def read_compare(
        self, block: int, page: int, pattern: Pattern, seed: int, chunk: int
    ) -> Program:
        ops = self.ops().cmd(Cmd.READ).addr(self.geo.full_address(block, page))
        prog = (
            ops.cmd(Cmd.READ_CONFIRM).delay_wb().wait(TIMEOUT_NS).delay_rr().program()
        )
        return prog.dout_compare(self.page_bytes, pattern, seed, chunk)

    def change_read_column(self, column: int, n: int) -> Program:
        ops = self.ops().cmd(Cmd.CHANGE_READ_COLUMN).addr(self.geo.column_bytes(column))
        return (
            ops.cmd(Cmd.CHANGE_READ_COLUMN_CONFIRM)
            .delay(sdr(self.mode).tCCS)
            .dout(n)
            .program()
        )


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
