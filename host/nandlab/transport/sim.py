"""`sim://` transport: op programs run on virtual dies in-process.

Target (chip enable) k is virtual die k. The controller is `sim_bus.DieBus`:
CMD / ADDR / DIN / DOUT drive the die's byte-cycle interface, WAIT_RDY polls
R/B#, and its pattern generator and comparator serve DIN_PAT / DOUT_CMP. All
dies share one virtual clock: time spent on one target (bus cycles, busy
waits, delays) passes for every die. This module keeps the dies' images
between opens and declares the bench's roles.

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

from pathlib import Path
from typing import Any

from nandlab.errors import OpProgramError, RangeError, TransportError
from nandlab.locks import Lock, acquire
from nandlab.ops import (
    EndRecord,
    ErrorRecord,
    Program,
    Results,
    encode_results,
)
from nandlab.paths import data_root
from nandlab.profiles import Profile, builtin_names, load_profile
from nandlab.transport.base import Transport
from nandlab.transport.image import LOCK, BenchImage, ImageStore, image_folder
from nandlab.transport.roles import Roles
from nandlab.transport.sim_bus import DieBus, TimingMismatch, diagnose
from nandlab.transport.sim_roles import SimFaults, VirtualSupply
from nandlab.transport.url import SimOptions
from nandlab.vchip.die import VirtualDie

BENCH_CAPABILITIES = frozenset(
    {
        "power",
        "din_pattern",
        "dout_compare",
        "cache_read",
        "cache_program",
        "multiplane",
        "copyback",
        "nv-ddr2",
        "nv-ddr3",
        "toggle2",
    }
)
"""What every sim bench's controller can do (its oven and wear fast-forward are roles;
"nv-ddr2" / "nv-ddr3" / "toggle2": it runs every tabled mode of those interfaces);
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
    "search",
    "coxpm",
)


class SimTransport(Transport):
    """Virtual dies behind the op program interface.

    Args:
        profile: a Profile, a built-in profile name or a profile YAML path.
        seed: physics seed shared by the dies (die k is chip k of that seed).
        dies: number of dies / chip enables (1..8).
        fresh: start from fresh dies; they replace the saved image at the first save.
        state_dir: image root (default: $NANDLAB_DATA_DIR or the user data dir).
        persist: load the image on open and save it on close; False keeps
            everything in memory.
        read_only: load the image (under a shared lock) but never write it: what
            the session changes (read noise, read disturb, clock, features) is
            dropped on close; with `fresh`, fresh dies in memory, image untouched.
            Otherwise the bench holds the chip's exclusive lock while open.
        corrupt_param: test aid: each die damages its first N parameter page
            copies (0..3; 3 = every copy, recovered only by majority).
        url: the URL to report; built from the options when None.
    """

    bench_capabilities = BENCH_CAPABILITIES
    vendor_capabilities = VENDOR_CAPABILITIES
    lacks = {
        "fpga_coxpm": "a sim:// bench has no FPGA on its read stream; use rtl://PROFILE (the "
        "controller in simulation runs the CoX-PM kernel) or a part with the CoX-PM commands "
        "(sim://tlc-coxpm)",
    }

    def __init__(
        self,
        profile: Profile | str | Path,
        *,
        seed: int = 0,
        dies: int = 1,
        fresh: bool = False,
        state_dir: Path | None = None,
        persist: bool = True,
        read_only: bool = False,
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
        self._closed = False
        self.fast_forward_ns = 0  # chip time of cycles that fast_forward_wear stood for
        self._corrupt = tuple(range(corrupt_param))
        self._store: ImageStore | None = None
        self._lock: Lock | None = None
        self.read_only = read_only
        self.image_note = "not persisted"
        image = None
        if persist:
            folder = image_folder(data_root(state_dir), self._profile, seed, user_profile)
            self._lock = acquire(folder / LOCK, f"virtual chip {folder}", shared=read_only)
            try:
                image = self._open_image(ImageStore(folder, self._profile, seed), fresh)
                if image is not None and len(image.dies) > dies:
                    # saving fewer dies would drop the others' state for good
                    raise RangeError(
                        f"the die image in {folder} holds {len(image.dies)} dies: open it "
                        f"with dies={len(image.dies)}, or start fresh dies with --fresh"
                    )
            except BaseException:
                self._lock.release()
                raise
        made: list[VirtualDie] = []
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
            made.append(die)
        self._bus = DieBus(made)
        self._faults = SimFaults(self.url)
        self._roles = Roles(
            power=VirtualSupply(dies, self._profile.power.vcc_V),
            clock=self,
            faults=self._faults,
            wear=self,
            oven=self,
        )

    def _open_image(self, store: ImageStore, fresh: bool) -> BenchImage | None:
        if self.read_only:
            image = None if fresh else store.load()
            self.image_note = (
                ("fresh" if fresh else store.note or "loaded") + " (read-only: not saved)"
            )
            return image
        self._store = store
        if fresh:
            # the saved image is replaced at the first save, not now: a start refused
            # before then (abandon) leaves it as it was
            store.start_fresh()
            self.image_note = "fresh (image discarded)"
            return None
        image = store.load()
        self.image_note = store.note or "loaded"
        return image

    @classmethod
    def from_options(
        cls, options: SimOptions, url: str, *, read_only: bool = False
    ) -> SimTransport:
        board = None
        if options.board is not None:  # before the dies open: a bad board name opens nothing
            # here, not at the top: the board models (pydantic) only when a URL names one
            from nandlab.boards import load_board

            board = load_board(options.board)
        bench = cls(
            options.profile,
            seed=options.seed,
            dies=options.dies,
            fresh=options.fresh,
            state_dir=options.state,
            read_only=read_only,
            corrupt_param=options.corrupt_param,
            url=url,
        )
        bench.board = board
        return bench

    # ------------------------------------------------------------ interface

    @property
    def targets(self) -> int:
        return len(self._bus.dies)

    @property
    def profile(self) -> Profile:
        return self._profile

    @property
    def now_ns(self) -> int:
        """The bench's virtual clock (ns)."""
        return self._bus.now

    @property
    def dies(self) -> tuple[VirtualDie, ...]:
        """The virtual dies, for tests and instruments (the chip layer never uses them)."""
        return tuple(self._bus.dies)

    @property
    def whole_op(self) -> bool:
        """True (default): each run of bus instructions in a program goes to the die in one
        call (`VirtualDie.run_bus`); False: one call per instruction, the path it is
        checked against (same records, clock and power log)."""
        return self._bus.whole_op

    @whole_op.setter
    def whole_op(self, on: bool) -> None:
        self._bus.whole_op = bool(on)

    @property
    def expected_timing_mode(self) -> int:
        """The interface timing mode the last TIMING instruction set."""
        return self._bus.expected_timing_mode

    @property
    def timing_mismatches(self) -> list[TimingMismatch]:
        """TIMING instructions whose mode differed from the selected die's."""
        return self._bus.timing_mismatches

    @property
    def roles(self) -> Roles:
        return self._roles

    @property
    def busy_source(self) -> str:
        return "stream:virtual die R/B# (exact busy time)"

    def describe(self) -> dict[str, Any]:
        return {"seed": self.seed, "dies": self.targets, "die_image": self.image_note}


    def run(self, program: Program) -> Results:
        self._check_open()
        self._faults.before_program()
        return self._bus.execute(program)

    def run_encoded(self, words: bytes, limit_words: int = 0) -> bytes:
        """Run an encoded program and return the encoded result stream.

        A malformed program runs nothing and yields ERROR (BAD_OPCODE,
        TRUNCATED or BAD_ARG, with the failing instruction's index) and END.
        `limit_words` > 0 caps the stream as the FPGA's RSP_LIMIT register does
        (see `DieBus.execute`).
        """
        self._check_open()
        self._faults.before_program()
        try:
            program = Program.decode(bytes(words))
        except OpProgramError:
            code, index = diagnose(bytes(words))
            return encode_results([ErrorRecord(code, index), EndRecord(0)])
        return encode_results(self._bus.execute(program, limit_words))

    def close(self) -> None:
        """Save the die images (crash-safely) unless persist=False or read_only, then release
        the chip's lock; idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            if self._store is not None:
                bus = self._bus
                bus.sync()
                dies = bus.dies
                self._store.save(
                    [d.array for d in dies], [d.state_dict() for d in dies], bus.now
                )
        finally:
            if self._lock is not None:
                self._lock.release()

    def abandon(self) -> None:
        """Close without saving: the die image stays as it was before this open."""
        self._store = None
        self.close()

    # ------------------------------------------------- virtual-bench roles

    def bake(self, temp_C: float, hours: float) -> None:
        """Virtual oven: hold every die at temp_C (°C) for `hours` (>= 0).

        Retention age advances by the Arrhenius factor; no wall time and no bus
        time passes (the virtual clock is the bus clock, in ns).
        """
        self._check_open()
        if hours < 0:
            raise RangeError(f"bake time {hours} h must be >= 0")
        for die in self._bus.dies:
            die.array.bake(temp_C, hours)

    def fast_forward_wear(self, ce: int, block: int, cycles: int, *, slc: bool = False) -> int:
        """Add `cycles` P/E cycles to `block` of target `ce` without running them one by one.

        Wear follows the count, and the bench clock advances by the time those
        cycles take on the chip (erase, then every page programmed with its data
        transferred at the present timing mode), so chip time stays truthful.
        Returns that time in ns; `fast_forward_ns` keeps the total.
        """
        self._check_open()
        dies = self._bus.dies
        if not 0 <= ce < len(dies):
            raise RangeError(f"target {ce} is not on this bench: allowed 0..{len(dies) - 1}")
        die = dies[ce]
        geo = self._profile.geometry
        array_ns = die.array.cycle_time_us(block, cycles, slc) * 1000.0
        cycle_ns = die.timing.tWC
        addr = geo.column_cycles + geo.row_cycles
        pages = geo.wls_per_block * (1 if slc else geo.bits_per_cell)
        page_bus = (2 + addr + geo.page_bytes + geo.spare_bytes) * cycle_ns
        erase_bus = (2 + geo.row_cycles) * cycle_ns
        total = int(array_ns + cycles * (pages * page_bus + erase_bus))
        die.array.add_wear(block, cycles)
        self._bus.now += total
        self._bus.sync()
        self.fast_forward_ns += total
        return total

    # ----------------------------------------------------------- execution

    def _check_open(self) -> None:
        if self._closed:
            raise TransportError(f"bench {self.url} is closed")

