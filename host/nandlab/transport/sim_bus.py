"""The sim bench's controller: virtual dies on one channel, one clock, op programs run.

`DieBus` plays what the FPGA sequencer does on a hardware bench: CMD / ADDR /
DIN / DOUT drive the selected die's byte-cycle interface, WAIT_RDY polls
R/B#, its pattern generator and comparator serve DIN_PAT / DOUT_CMP, POWER
sums the dies' current logs. All dies share one virtual clock (`now`): time
spent on one target passes for every die. The rules a hardware bench leaves to
its firmware are pinned down in `nandlab.transport.sim`'s docstring.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from nandlab.errors import OpProgramError
from nandlab.onfi_spec.nvddr_timing import DDR_MODES, DdrInterface
from nandlab.ops import (
    MAX_SDR_MODE,
    Addr,
    BusyRecord,
    Ce,
    Cmd,
    DataRecord,
    Delay,
    Din,
    DinPattern,
    Dout,
    DoutCompare,
    EndRecord,
    ErrCountRecord,
    ErrorCode,
    ErrorRecord,
    Gpio,
    Instruction,
    Interface,
    Mark,
    MarkRecord,
    Power,
    PowerRecord,
    Program,
    Record,
    Results,
    Timing,
    WaitRdy,
    pattern_bytes,
)
from nandlab.ops._generated import OP_LAYOUTS, Opcode
from nandlab.ops.layout import CODE_SHIFT, WORD, unpack
from nandlab.vchip.die import VirtualDie

U32_MAX = 0xFFFFFFFF
# The interfaces a virtual die speaks (the DDR ones at the modes the spec tables hold);
# the bench follows a SET FEATURES 01h switch with TIMING in the same interface.
_INTERFACE_MODES: dict[int, tuple[str, int]] = {
    Interface.SDR: ("sdr", MAX_SDR_MODE + 1),
    Interface.NV_DDR2: ("nv-ddr2", len(DDR_MODES[DdrInterface.NV_DDR2])),
    Interface.NV_DDR3: ("nv-ddr3", len(DDR_MODES[DdrInterface.NV_DDR3])),
    Interface.TOGGLE: ("toggle2", len(DDR_MODES[DdrInterface.TOGGLE2])),
}
GPIO_WP_N = 0x01


@dataclass(frozen=True)
class TimingMismatch:
    """A TIMING instruction whose mode differs from the selected die's mode."""

    index: int
    expected_mode: int
    die_mode: int


class _Stop(Exception):
    """Internal: an instruction failed; the program stops with an ERROR record."""

    def __init__(self, code: ErrorCode) -> None:
        self.code = code



class DieBus:
    """The dies of one bench and their shared clock (ns), running op programs on them."""

    def __init__(self, dies: list[VirtualDie]) -> None:
        self.dies = dies
        self.now = max(d.now_ns for d in dies)
        self.timing_mismatches: list[TimingMismatch] = []
        self.expected_timing_mode = 0
        # False: every instruction through its own handler (what the whole-op path is
        # tested against)
        self.whole_op = True
        self.sync()

    def sync(self) -> None:
        """Every die follows the bench clock."""
        for die in self.dies:
            if die.now_ns < self.now:
                die.advance(self.now - die.now_ns)

    def execute(self, program: Program, limit_words: int = 0) -> Results:
        """Run `program`. limit_words > 0: the FPGA sequencer's RSP_LIMIT rule (nandlab_seq):
        a record is sent only if the closing ERROR (2 words) and END (3) still fit after
        it; the first that does not ends the program with ERROR OVERFLOW naming its
        instruction. A DOUT / DOUT_CMP that would not fit is not run at all (the chip
        sees no data-out), a WAIT_RDY has waited before its BUSY record is refused, and
        nothing after the failing instruction runs.

        With `whole_op` (and no limit) each run of CMD / ADDR / DIN / DOUT / WAIT_RDY /
        DELAY instructions on a selected die goes to `VirtualDie.run_bus` in one call; the
        other dies follow the clock after it rather than after each instruction (their
        clocks only count time, and nothing in the run reads them: the same result)."""
        results = Results()
        append = results.append
        start = self.now
        run = _Run(self, start)
        handlers = _HANDLERS
        dies = self.dies
        die0 = dies[0] if len(dies) == 1 else None
        items = list(program)
        whole = self.whole_op and not limit_words
        used = 0
        index, count = 0, len(items)
        while index < count:
            ins = items[index]
            if whole and run.die is not None and type(ins) in _BUS_CYCLES:
                end = index + 1
                while end < count and type(items[end]) in _BUS_CYCLES:
                    end += 1
                if not self._run_bus(run, items[index:end], index, append):
                    break
                index = end
                continue
            words = 0  # result words of this instruction's record, when known before it runs
            if limit_words and isinstance(ins, (Dout, DoutCompare)):
                words = _record_words(ins)
                if used + words + 5 > limit_words:
                    append(ErrorRecord(ErrorCode.OVERFLOW, index))
                    break
            handler = handlers.get(type(ins))
            try:
                # a class without its own handler (a subclass) takes the generic path
                record = run.step(index, ins) if handler is None else handler(run, index, ins)
            except _Stop as stop:
                run.tick()
                append(ErrorRecord(stop.code, index))
                self.sync()
                break
            except BaseException:
                run.tick()
                self.sync()
                raise
            run.tick()
            # every die follows the bench clock (one die: the common case, inlined)
            if die0 is not None:
                if die0.now_ns < self.now:
                    die0.advance(self.now - die0.now_ns)
            else:
                self.sync()
            if record is not None:
                if limit_words:
                    words = words or len(record.encode()) // 4
                    if used + words + 5 > limit_words:
                        append(ErrorRecord(ErrorCode.OVERFLOW, index))
                        break
                    used += words
                append(record)
            index += 1
        append(EndRecord(self.now - start))
        return results

    def _run_bus(
        self, run: _Run, steps: list[Instruction], first: int, append: Callable[[Record], None]
    ) -> bool:
        """Bus instructions `first`.. on the selected die in one call, their DATA / BUSY
        records appended; False when a WAIT_RDY timed out (its ERROR record appended)."""
        die = run.die
        assert die is not None
        try:
            outs = die.run_bus(steps)
        finally:
            run.tick()
            self.sync()
        for pos, value in outs:
            if isinstance(value, bytes):
                append(DataRecord(value))
            elif value is None:
                append(ErrorRecord(ErrorCode.TIMEOUT, first + pos))
                return False
            else:
                append(BusyRecord(first + pos, min(value, U32_MAX)))
        return True


# header words of DATA (the bytes follow, 4 a word) and ERRCNT (2 words a chunk follow)
_DATA_HEADER_WORDS = len(DataRecord(b"\0").encode()) // 4 - 1
_ERRCNT_HEADER_WORDS = len(ErrCountRecord(1, [(0, 0)]).encode()) // 4 - 2


def _record_words(ins: Dout | DoutCompare) -> int:
    """Words of the record a DOUT / DOUT_CMP will send, known before it runs."""
    if isinstance(ins, Dout):
        return _DATA_HEADER_WORDS + -(-ins.n // 4)
    return _ERRCNT_HEADER_WORDS + 2 * -(-ins.n // ins.chunk)


class _Run:
    """State of one program run: selected die, open power window.

    `_HANDLERS` maps each instruction class to the method that runs it, so an
    instruction costs one dict lookup to dispatch (the table is built once, not per run).
    """

    def __init__(self, bench: DieBus, start_ns: int) -> None:
        self.bench = bench
        self.start_ns = start_ns
        self.die: VirtualDie | None = None
        self.window: tuple[int, int] | None = None  # (t0_ns, period_ns)

    def _selected(self) -> VirtualDie:
        if self.die is None:
            raise _Stop(ErrorCode.NO_TARGET)
        return self.die

    def tick(self) -> None:
        """The bench clock follows the selected die's (its bus cycles and busy waits)."""
        die, bench = self.die, self.bench
        if die is not None and die.now_ns > bench.now:
            bench.now = die.now_ns

    def step(self, index: int, ins: Instruction) -> Record | None:
        """Run one instruction (dispatch by its class, or its nearest known base class)."""
        for kind in type(ins).__mro__:
            handler = _HANDLERS.get(kind)
            if handler is not None:
                return handler(self, index, ins)
        self._selected()
        raise _Stop(ErrorCode.BAD_OPCODE)

    # -- instructions that need no die

    def _ce(self, index: int, ins: Ce) -> None:
        if ins.target >= len(self.bench.dies):
            raise _Stop(ErrorCode.NO_TARGET)
        self.die = self.bench.dies[ins.target]

    def _delay(self, index: int, ins: Delay) -> None:
        self.bench.now += ins.ns

    def _mark(self, index: int, ins: Mark) -> Record:
        return MarkRecord(ins.id, self.bench.now - self.start_ns)

    def _power_step(self, index: int, ins: Power) -> Record | None:
        return self._power(ins)

    def _timing(self, index: int, ins: Timing) -> None:
        bench = self.bench
        name, modes = _INTERFACE_MODES.get(ins.interface, ("", 0))
        if ins.mode >= modes:
            raise _Stop(ErrorCode.BAD_ARG)
        bench.expected_timing_mode = ins.mode
        # a Toggle part has no interface feature: it follows the rate the channel strobes
        toggle = ins.mode if ins.interface == Interface.TOGGLE else None
        for d in bench.dies:
            d.follow_toggle(toggle)
        die = self.die
        now = None if die is None else die.data_interface
        if now is not None and now != (name, ins.mode):
            bench.timing_mismatches.append(TimingMismatch(index, ins.mode, now[1]))

    def _gpio(self, index: int, ins: Gpio) -> None:
        if ins.mask & GPIO_WP_N:
            for d in self.bench.dies:
                d.set_wp(not ins.value & GPIO_WP_N)

    # -- bus instructions on the selected die (the bench clock follows it after each)

    def _cmd(self, index: int, ins: Cmd) -> None:
        self._selected().cmd(ins.byte)

    def _addr(self, index: int, ins: Addr) -> None:
        self._selected().addr_cycles(ins.data)

    def _din(self, index: int, ins: Din) -> None:
        self._selected().write(ins.data)

    def _din_pattern(self, index: int, ins: DinPattern) -> None:
        self._selected().write(pattern_bytes(ins.pattern, ins.seed, ins.n))

    def _dout(self, index: int, ins: Dout) -> Record:
        return DataRecord(self._selected().read(ins.n))

    def _dout_compare(self, index: int, ins: DoutCompare) -> Record:
        read = self._selected().read(ins.n)
        expected = pattern_bytes(ins.pattern, ins.seed, ins.n)
        # here, not at the top: only error-count programs need the analysis package
        from nandlab.analysis import chunk_error_counts

        return ErrCountRecord(ins.chunk, chunk_error_counts(expected, read, ins.chunk).tolist())

    def _wait_rdy(self, index: int, ins: WaitRdy) -> Record:
        busy = self._selected().wait_ready(ins.timeout_ns)
        if busy is None:
            raise _Stop(ErrorCode.TIMEOUT)
        return BusyRecord(index, min(busy, U32_MAX))

    def _power(self, ins: Power) -> Record | None:
        bench = self.bench
        if ins.start:
            self.window = (bench.now, ins.period_ns)
            return None
        if self.window is None:
            raise _Stop(ErrorCode.BAD_ARG)
        t0, period = self.window
        self.window = None
        total: np.ndarray | None = None
        for die in bench.dies:
            trace = np.asarray(die.current_trace(t0, bench.now, period), dtype=np.int64)
            total = trace if total is None else total + trace
        assert total is not None
        return PowerRecord(period, np.clip(total, 0, U32_MAX).tolist())


_HANDLERS: dict[type, Callable[[_Run, int, Any], Record | None]] = {
    Ce: _Run._ce,
    Delay: _Run._delay,
    Mark: _Run._mark,
    Power: _Run._power_step,
    Timing: _Run._timing,
    Gpio: _Run._gpio,
    Cmd: _Run._cmd,
    Addr: _Run._addr,
    Din: _Run._din,
    DinPattern: _Run._din_pattern,
    Dout: _Run._dout,
    DoutCompare: _Run._dout_compare,
    WaitRdy: _Run._wait_rdy,
}


# instructions `VirtualDie.run_bus` takes (a DELAY: the selected die's clock runs, the
# others follow after the run) (exact classes: a subclass takes the generic path)
_BUS_CYCLES = frozenset({Cmd, Addr, Din, Dout, WaitRdy, Delay})


def diagnose(words: bytes) -> tuple[ErrorCode, int]:
    """Why `Program.decode` rejects `words`: (error code, index of the failing instruction)."""
    nwords = len(words) // 4
    pos = index = 0
    while pos < nwords:
        (header,) = WORD.unpack_from(words, 4 * pos)
        code = header >> CODE_SHIFT
        if code == Opcode.END:
            if len(words) % 4:
                return ErrorCode.TRUNCATED, index
            return ErrorCode.BAD_ARG, index  # END arg set, or words after END
        layout = OP_LAYOUTS.get(code)
        if layout is None:
            return ErrorCode.BAD_OPCODE, index
        if header & layout.reserved_mask:
            return ErrorCode.BAD_ARG, index
        try:
            _, end = unpack(layout, words, pos)
        except OpProgramError as exc:
            truncated = "truncated" in str(exc)
            return (ErrorCode.TRUNCATED if truncated else ErrorCode.BAD_ARG), index
        try:
            Program.decode(words[4 * pos : 4 * end] + _END_WORD)
        except OpProgramError:
            return ErrorCode.BAD_ARG, index
        pos, index = end, index + 1
    return ErrorCode.TRUNCATED, index


_END_WORD = WORD.pack(Opcode.END << CODE_SHIFT)
