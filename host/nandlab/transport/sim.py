"""`sim://` transport: op programs run on virtual dies in-process.

Target (chip enable) k is virtual die k. The transport plays the controller:
CMD / ADDR / DIN / DOUT drive the die's byte-cycle interface, WAIT_RDY polls
R/B#, and its pattern generator and comparator serve DIN_PAT / DOUT_CMP. All
dies share one virtual clock: time spent on one target (bus cycles, busy
waits, delays) passes for every die.

Behaviour a hardware bench leaves to its firmware is pinned down here:

- A bus instruction before any CE, or CE of a missing target, stops the
  program with ERROR NO_TARGET.
- WAIT_RDY past its timeout stops the program with ERROR TIMEOUT.
- POWER samples the sum of every die's supply current (one supply rail); a
  window still open at END yields nothing; POWER stop without start is BAD_ARG.
- TIMING sets the interface timing the bench expects; when the selected die is
  in another mode this is only recorded (`timing_mismatches`), since the die's
  own mode decides its bus cycle times. Interfaces other than SDR are BAD_ARG.
- GPIO WP# (bit 0) drives every die's WP# (one board signal).

Declared roles (`roles`): the virtual clock (`now_ns`), the virtual oven
(`bake()`), wear fast-forward (`fast_forward_wear()`), the dies' own current
log as power monitor, and a fault injector (`link_lost`: a program fails as
if the link to the bench broke). A bake ages the dies' cells by Arrhenius
but takes no bus time: the virtual clock does not move.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nandlab.analysis import chunk_bit_errors
from nandlab.errors import OpProgramError, RangeError, TransportError
from nandlab.ops import (
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
    encode_results,
    pattern_bytes,
)
from nandlab.ops._generated import OP_LAYOUTS, Opcode
from nandlab.ops.layout import CODE_SHIFT, WORD, unpack
from nandlab.paths import data_root
from nandlab.profiles import Profile, builtin_names, load_profile
from nandlab.transport.base import Transport
from nandlab.transport.image import ImageStore, image_folder
from nandlab.transport.roles import Roles
from nandlab.transport.url import SimOptions
from nandlab.vchip.die import VirtualDie

U32_MAX = 0xFFFFFFFF
GPIO_WP_N = 0x01

BENCH_CAPABILITIES = frozenset(
    {
        "power",
        "din_pattern",
        "dout_compare",
        "cache_read",
        "cache_program",
        "multiplane",
        "copyback",
    }
)
"""What every sim bench's controller can do (its oven and wear fast-forward are roles);
chip capabilities come from the profile's vendor section."""
VENDOR_CAPABILITIES = (
    "slc_mode",
    "soft_bit_read",
    "test_mode",
    "inverse_read",
    "latch_ops",
    "mws",
    "latch_xor",
    "esp",
    "sense_time",
)


@dataclass(frozen=True)
class TimingMismatch:
    """A TIMING instruction whose mode differs from the selected die's mode."""

    index: int
    expected_mode: int
    die_mode: int


class VirtualSupply:
    """The power monitor of a sim bench: the virtual dies' own current log, summed over dies."""

    def __init__(self, dies: int, vcc_V: float) -> None:
        self._dies = dies
        self._vcc_V = vcc_V

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "virtual",
            "model": "virtual die current log",
            "rail": f"VCC {self._vcc_V:g} V, {self._dies} dies summed",
        }


class SimFaults:
    """The fault injector of a sim bench."""

    faults = ("link_lost",)

    def __init__(self, url: str) -> None:
        self._url = url
        self._countdown: int | None = None

    def inject(self, fault: str, *, after_programs: int = 0) -> None:
        if fault not in self.faults:
            raise RangeError(f"fault '{fault}' is unknown: a sim bench injects {self.faults}")
        if after_programs < 0:
            raise RangeError(f"after_programs {after_programs} must be >= 0")
        self._countdown = after_programs

    def before_program(self) -> None:
        """Raise the armed fault when its program comes."""
        if self._countdown is None:
            return
        if self._countdown > 0:
            self._countdown -= 1
            return
        self._countdown = None
        raise TransportError(f"bench {self._url}: link lost (injected fault)")


class _Stop(Exception):
    """Internal: an instruction failed; the program stops with an ERROR record."""

    def __init__(self, code: ErrorCode) -> None:
        self.code = code


class SimTransport(Transport):
    """Virtual dies behind the op program interface.

    Args:
        profile: a Profile, a built-in profile name or a profile YAML path.
        seed: physics seed shared by the dies (die k is chip k of that seed).
        dies: number of dies / chip enables (1..8).
        fresh: discard any saved image and start from fresh dies.
        state_dir: image root (default: $NANDLAB_DATA_DIR or the user data dir).
        persist: load the image on open and save it on close; False keeps
            everything in memory.
        corrupt_param: test aid: each die damages its first N parameter page
            copies (0..3; 3 = every copy, recovered only by majority).
        url: the URL to report; built from the options when None.
    """

    bench_capabilities = BENCH_CAPABILITIES
    vendor_capabilities = VENDOR_CAPABILITIES

    def __init__(
        self,
        profile: Profile | str | Path,
        *,
        seed: int = 0,
        dies: int = 1,
        fresh: bool = False,
        state_dir: Path | None = None,
        persist: bool = True,
        corrupt_param: int = 0,
        url: str | None = None,
    ) -> None:
        self._profile = profile if isinstance(profile, Profile) else load_profile(profile)
        # user profiles are keyed by content too: two files may share a name
        name = self._profile.name
        user_profile = name not in builtin_names() or self._profile != load_profile(name)
        if not 1 <= dies <= 8:
            raise RangeError(f"a sim bench has 1..8 dies, not {dies}")
        if not 0 <= corrupt_param <= 3:
            raise RangeError(f"corrupt_param {corrupt_param} is outside 0..3")
        self.seed = seed
        self.url = url or f"sim://{self._profile.name}?seed={seed}&dies={dies}"
        self.persist = persist
        self.timing_mismatches: list[TimingMismatch] = []
        self.expected_timing_mode = 0
        self._closed = False
        self.fast_forward_ns = 0  # chip time of cycles that fast_forward_wear stood for
        self._corrupt = tuple(range(corrupt_param))
        self._store: ImageStore | None = None
        self.image_note = "not persisted"
        image = None
        if persist:
            folder = image_folder(data_root(state_dir), self._profile, seed, user_profile)
            self._store = ImageStore(folder, self._profile, seed)
            if fresh:
                self._store.discard()
                self.image_note = "fresh (image discarded)"
            else:
                image = self._store.load()
                self.image_note = self._store.note or "loaded"
        self._dies: list[VirtualDie] = []
        for k in range(dies):
            saved = image.dies[k] if image is not None and k < len(image.dies) else None
            die = VirtualDie(
                self._profile,
                seed,
                k,
                saved.array if saved else None,
                corrupt_param_copies=self._corrupt,
            )
            if saved is not None:
                die.load_state(saved.state)
                die.advance(saved.now_ns)
            self._dies.append(die)
        self._now = max(d.now_ns for d in self._dies)
        self._sync()
        self._faults = SimFaults(self.url)
        self._roles = Roles(
            power=VirtualSupply(dies, self._profile.power.vcc_V),
            clock=self,
            faults=self._faults,
            wear=self,
            oven=self,
        )

    @classmethod
    def from_options(cls, options: SimOptions, url: str) -> SimTransport:
        return cls(
            options.profile,
            seed=options.seed,
            dies=options.dies,
            fresh=options.fresh,
            state_dir=options.state,
            corrupt_param=options.corrupt_param,
            url=url,
        )

    # ------------------------------------------------------------ interface

    @property
    def targets(self) -> int:
        return len(self._dies)

    @property
    def profile(self) -> Profile:
        return self._profile

    @property
    def now_ns(self) -> int:
        """The bench's virtual clock (ns)."""
        return self._now

    @property
    def dies(self) -> tuple[VirtualDie, ...]:
        """The virtual dies, for tests and instruments (the chip layer never uses them)."""
        return tuple(self._dies)

    @property
    def roles(self) -> Roles:
        return self._roles

    @property
    def busy_source(self) -> str:
        return "stream:virtual die R/B# (exact busy time)"

    def describe(self) -> dict[str, Any]:
        return {"seed": self.seed, "dies": len(self._dies), "die_image": self.image_note}


    def run(self, program: Program) -> Results:
        self._check_open()
        self._faults.before_program()
        return self._execute(program)

    def run_encoded(self, words: bytes, limit_words: int = 0) -> bytes:
        """Run an encoded program and return the encoded result stream.

        A malformed program runs nothing and yields ERROR (BAD_OPCODE,
        TRUNCATED or BAD_ARG, with the failing instruction's index) and END.
        `limit_words` > 0 caps the stream as the FPGA's RSP_LIMIT register does
        (see `_execute`).
        """
        self._check_open()
        self._faults.before_program()
        try:
            program = Program.decode(bytes(words))
        except OpProgramError:
            code, index = diagnose(bytes(words))
            return encode_results([ErrorRecord(code, index), EndRecord(0)])
        return encode_results(self._execute(program, limit_words))

    def close(self) -> None:
        """Save the die images (crash-safely) unless persist=False; idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._store is not None:
            self._sync()
            self._store.save(
                [d.array for d in self._dies], [d.state_dict() for d in self._dies], self._now
            )

    # ------------------------------------------------- virtual-bench roles

    def bake(self, temp_C: float, hours: float) -> None:
        """Virtual oven: hold every die at temp_C (°C) for `hours` (>= 0).

        Retention age advances by the Arrhenius factor; no wall time and no bus
        time passes (the virtual clock is the bus clock, in ns).
        """
        self._check_open()
        if hours < 0:
            raise RangeError(f"bake time {hours} h must be >= 0")
        for die in self._dies:
            die.array.bake(temp_C, hours)

    def fast_forward_wear(self, ce: int, block: int, cycles: int, *, slc: bool = False) -> int:
        """Add `cycles` P/E cycles to `block` of target `ce` without running them one by one.

        Wear follows the count, and the bench clock advances by the time those
        cycles take on the chip (erase, then every page programmed with its data
        transferred at the present timing mode), so chip time stays truthful.
        Returns that time in ns; `fast_forward_ns` keeps the total.
        """
        self._check_open()
        if not 0 <= ce < len(self._dies):
            raise RangeError(f"target {ce} is not on this bench: allowed 0..{len(self._dies) - 1}")
        die = self._dies[ce]
        geo = self._profile.geometry
        array_ns = die.array.cycle_time_us(block, cycles, slc) * 1000.0
        cycle_ns = die.timing.tWC
        addr = geo.column_cycles + geo.row_cycles
        pages = geo.wls_per_block * (1 if slc else geo.bits_per_cell)
        page_bus = (2 + addr + geo.page_bytes + geo.spare_bytes) * cycle_ns
        erase_bus = (2 + geo.row_cycles) * cycle_ns
        total = int(array_ns + cycles * (pages * page_bus + erase_bus))
        die.array.add_wear(block, cycles)
        self._now += total
        self._sync()
        self.fast_forward_ns += total
        return total

    # ----------------------------------------------------------- execution

    def _check_open(self) -> None:
        if self._closed:
            raise TransportError(f"bench {self.url} is closed")

    def _sync(self) -> None:
        for die in self._dies:
            if die.now_ns < self._now:
                die.advance(self._now - die.now_ns)

    def _execute(self, program: Program, limit_words: int = 0) -> Results:
        """Run `program`. limit_words > 0: the FPGA sequencer's RSP_LIMIT rule (nandlab_seq):
        a record is sent only if the closing ERROR (2 words) and END (3) still fit after
        it; the first that does not ends the program with ERROR OVERFLOW naming its
        instruction. A DOUT / DOUT_CMP that would not fit is not run at all (the chip
        sees no data-out), a WAIT_RDY has waited before its BUSY record is refused, and
        nothing after the failing instruction runs."""
        results = Results()
        append = results.append
        start = self._now
        run = _Run(self, start)
        handlers = run.handlers
        dies = self._dies
        die0 = dies[0] if len(dies) == 1 else None
        used = 0
        for index, ins in enumerate(program):
            words = 0  # result words of this instruction's record, when known before it runs
            if limit_words and isinstance(ins, (Dout, DoutCompare)):
                words = _record_words(ins)
                if used + words + 5 > limit_words:
                    append(ErrorRecord(ErrorCode.OVERFLOW, index))
                    break
            handler = handlers.get(type(ins))
            try:
                # a class without its own handler (a subclass) takes the generic path
                record = run.step(index, ins) if handler is None else handler(index, ins)
            except _Stop as stop:
                run.tick()
                append(ErrorRecord(stop.code, index))
                self._sync()
                break
            except BaseException:
                run.tick()
                self._sync()
                raise
            run.tick()
            # every die follows the bench clock (one die: the common case, inlined)
            if die0 is not None:
                if die0.now_ns < self._now:
                    die0.advance(self._now - die0.now_ns)
            else:
                self._sync()
            if record is not None:
                if limit_words:
                    words = words or len(record.encode()) // 4
                    if used + words + 5 > limit_words:
                        append(ErrorRecord(ErrorCode.OVERFLOW, index))
                        break
                    used += words
                append(record)
        append(EndRecord(self._now - start))
        return results


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

    `handlers` maps each instruction class to the bound method that runs it, so an
    instruction costs one dict lookup to dispatch.
    """

    def __init__(self, bench: SimTransport, start_ns: int) -> None:
        self.bench = bench
        self.start_ns = start_ns
        self.die: VirtualDie | None = None
        self.window: tuple[int, int] | None = None  # (t0_ns, period_ns)
        self.handlers: dict[type, Callable[[int, Any], Record | None]] = {
            Ce: self._ce,
            Delay: self._delay,
            Mark: self._mark,
            Power: self._power_step,
            Timing: self._timing,
            Gpio: self._gpio,
            Cmd: self._cmd,
            Addr: self._addr,
            Din: self._din,
            DinPattern: self._din_pattern,
            Dout: self._dout,
            DoutCompare: self._dout_compare,
            WaitRdy: self._wait_rdy,
        }

    def _selected(self) -> VirtualDie:
        if self.die is None:
            raise _Stop(ErrorCode.NO_TARGET)
        return self.die

    def tick(self) -> None:
        """The bench clock follows the selected die's (its bus cycles and busy waits)."""
        die, bench = self.die, self.bench
        if die is not None and die.now_ns > bench._now:
            bench._now = die.now_ns

    def step(self, index: int, ins: Instruction) -> Record | None:
        """Run one instruction (dispatch by its class, or its nearest known base class)."""
        for kind in type(ins).__mro__:
            handler = self.handlers.get(kind)
            if handler is not None:
                return handler(index, ins)
        self._selected()
        raise _Stop(ErrorCode.BAD_OPCODE)

    # -- instructions that need no die

    def _ce(self, index: int, ins: Ce) -> None:
        if ins.target >= len(self.bench._dies):
            raise _Stop(ErrorCode.NO_TARGET)
        self.die = self.bench._dies[ins.target]

    def _delay(self, index: int, ins: Delay) -> None:
        self.bench._now += ins.ns

    def _mark(self, index: int, ins: Mark) -> Record:
        return MarkRecord(ins.id, self.bench._now - self.start_ns)

    def _power_step(self, index: int, ins: Power) -> Record | None:
        return self._power(ins)

    def _timing(self, index: int, ins: Timing) -> None:
        bench = self.bench
        if ins.interface != Interface.SDR:
            raise _Stop(ErrorCode.BAD_ARG)
        bench.expected_timing_mode = ins.mode
        die = self.die
        if die is not None and die.timing_mode != ins.mode:
            bench.timing_mismatches.append(TimingMismatch(index, ins.mode, die.timing_mode))

    def _gpio(self, index: int, ins: Gpio) -> None:
        if ins.mask & GPIO_WP_N:
            for d in self.bench._dies:
                d.set_wp(not ins.value & GPIO_WP_N)

    # -- bus instructions on the selected die (the bench clock follows it after each)

    def _cmd(self, index: int, ins: Cmd) -> None:
        self._selected().cmd(ins.byte)

    def _addr(self, index: int, ins: Addr) -> None:
        die = self._selected()
        for byte in ins.data:
            die.addr(byte)

    def _din(self, index: int, ins: Din) -> None:
        self._selected().write(ins.data)

    def _din_pattern(self, index: int, ins: DinPattern) -> None:
        self._selected().write(pattern_bytes(ins.pattern, ins.seed, ins.n))

    def _dout(self, index: int, ins: Dout) -> Record:
        return DataRecord(self._selected().read(ins.n))

    def _dout_compare(self, index: int, ins: DoutCompare) -> Record:
        read = self._selected().read(ins.n)
        expected = pattern_bytes(ins.pattern, ins.seed, ins.n)
        return ErrCountRecord(ins.chunk, error_counts(read, expected, ins.chunk).tolist())

    def _wait_rdy(self, index: int, ins: WaitRdy) -> Record:
        busy = self._selected().wait_ready(ins.timeout_ns)
        if busy is None:
            raise _Stop(ErrorCode.TIMEOUT)
        return BusyRecord(index, min(busy, U32_MAX))

    def _power(self, ins: Power) -> Record | None:
        bench = self.bench
        if ins.start:
            self.window = (bench._now, ins.period_ns)
            return None
        if self.window is None:
            raise _Stop(ErrorCode.BAD_ARG)
        t0, period = self.window
        self.window = None
        total: np.ndarray | None = None
        for die in bench._dies:
            trace = np.asarray(die.current_trace(t0, bench._now, period), dtype=np.int64)
            total = trace if total is None else total + trace
        assert total is not None
        return PowerRecord(period, np.clip(total, 0, U32_MAX).tolist())


def error_counts(read: bytes, expected: bytes, chunk: int) -> np.ndarray:
    """What the comparator of DOUT_CMP returns: per chunk (bits expected 0 read 1, bits
    expected 1 read 0), shape (chunks, 2)."""
    counts = [(e.errors_0to1, e.errors_1to0) for e in chunk_bit_errors(expected, read, chunk)]
    return np.array(counts, dtype=np.int64).reshape(-1, 2)


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
