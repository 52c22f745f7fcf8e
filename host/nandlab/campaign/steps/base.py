"""What every step kind shares: the run's context, the common interface, the rows' base.

A step kind is a `StepKind`: its parameter model (what the campaign file
gives), whether it runs per block and how its sweep points spread, an
`apply(unit, ctx)` that checks the unit before any chip access and changes the
context exactly as running it does (so a resumed run rebuilds the context of
the units it skips), and a `run(unit, ctx, at)` that measures and returns the
unit's rows and ledger events.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, get_args, get_origin

from nandlab.bench import Bench
from nandlab.campaign.fields import Strict
from nandlab.campaign.unit import Unit
from nandlab.characterize.progress import ProgressFn
from nandlab.characterize.readback import DataSpec
from nandlab.errors import UsageError
from nandlab.yamlfile import read_regular

if TYPE_CHECKING:
    from nandlab.onfi.chip import Chip
    from nandlab.profiles import Profile


@dataclass
class BlockState:
    """What the run knows of one block: wear, data written and what happened since."""

    pec: int
    fast_forwarded_cycles: int = 0
    erased: bool = False
    written: DataSpec | None = None
    wls: tuple[int, ...] = ()
    retention_age_h: float = 0.0
    retention_label: str | None = None
    bake_temp_C: float | None = None
    bake_h: float = 0.0
    disturb_reads: int = 0


@dataclass
class Context:
    """The run's state between units; built from the ledger snapshot at the run's start."""

    profile: Profile
    blocks: dict[tuple[int, int], BlockState]
    temp_C: float
    fast_forward: bool = False
    """The bench can fast-forward wear (a virtual die)."""
    campaign_dir: Path | None = None
    files: dict[str, bytes] = field(default_factory=dict)
    calibrations: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    """What steps measured to tune themselves, kept for the rest of the run (MCFlash's
    state model per block group); a resumed run measures again."""

    def block(self, unit: Unit) -> BlockState:
        assert unit.ce is not None and unit.block is not None
        return self.blocks[(unit.ce, unit.block)]

    def copy(self) -> Context:
        """A copy whose block states can change without touching this one's."""
        return replace(self, blocks={k: replace(v) for k, v in self.blocks.items()})


class UnitError(UsageError):
    """A unit cannot run in the run's context (e.g. measure before program)."""


@dataclass
class Outcome:
    """A unit's rows and its ledger events (kind, block, pec_delta...)."""

    rows: list[dict[str, Any]]
    ledger: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class At:
    """Where a unit runs: the bench, the chip of its CE (None for bench-wide steps)."""

    bench: Bench
    chip_or_none: Chip | None
    chip_id: str
    progress: ProgressFn

    @property
    def chip(self) -> Chip:
        assert self.chip_or_none is not None, "a per-block step runs on a chip"
        return self.chip_or_none


@dataclass(frozen=True)
class DataBlock:
    """A block that holds data: its number, its state and the data written."""

    block: int
    state: BlockState
    written: DataSpec


P = TypeVar("P", bound=Strict)


class StepKind(ABC, Generic[P]):
    """One kind of campaign step. Subclasses set `name` and register in
    `nandlab.campaign.steps.STEPS`; `model` is the type argument of `StepKind[...]`
    (a subclass of another kind sets it)."""

    name: ClassVar[str]
    model: type[P]
    per_block: ClassVar[bool] = True
    """Runs once per (chip, block); False: once for the whole bench."""
    per_chip: ClassVar[bool] = False
    """With per_block False: runs once per chip, over all the campaign's blocks at once."""
    partition: ClassVar[bool] = False
    """Its sweep points go to groups of blocks instead of being repeated on each."""
    temperature_control: ClassVar[bool] = False
    """Needs the bench's oven or temperature controller; checked before the run starts."""
    writes_chip: ClassVar[bool] = False
    """Erases or programs blocks (its own or scratch ones): a campaign holding such a step
    runs only when the user confirms it (`nandlab run --yes`, the dashboard's checkbox)."""

    def bench_problem(self, bench: Bench) -> str | None:
        """Why this kind cannot run on `bench` (its declared capabilities and roles), or
        None; checked before the run starts, so nothing is erased for a step that cannot."""
        return None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for base in cls.__dict__.get("__orig_bases__", ()):
            origin, args = get_origin(base), get_args(base)
            concrete = args and isinstance(args[0], type)
            if isinstance(origin, type) and issubclass(origin, StepKind) and concrete:
                cls.model = args[0]

    def params(self, unit: Unit) -> P:
        assert isinstance(unit.params, self.model)
        return unit.params

    @abstractmethod
    def apply(self, unit: Unit, ctx: Context) -> None:
        """Change `ctx` as the unit does; UnitError when it cannot run in this context."""

    @abstractmethod
    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        """Run the unit (ctx holds the state before it); rows are complete when this returns."""

    def after(self, unit: Unit, ctx: Context) -> Context:
        """A copy of the context with the unit applied (rows carry the state after the unit)."""
        later = ctx.copy()
        self.apply(unit, later)
        return later

    def refuse(self, unit: Unit, why: str) -> UnitError:
        """The error for a unit that cannot run in the run's context."""
        return UnitError(f"unit {unit.key}: {why}")

    def holding_data(
        self, unit: Unit, ctx: Context, wls: list[int] | None, native: str | None = None
    ) -> DataBlock:
        """The unit's block, which must hold data (on `wls` when given); with `native` (what
        needs it), data programmed in the part's native mode, not SLC."""
        b = ctx.block(unit)
        if b.written is None:
            raise self.refuse(unit, f"block {unit.block} holds no data: add a program step first")
        if wls is not None and not set(wls) <= set(b.wls):
            raise self.refuse(unit, f"WLs {sorted(set(wls) - set(b.wls))} were not programmed")
        if native is not None and b.written.slc:
            raise self.refuse(unit, f"{native}; block {unit.block} was programmed in SLC mode")
        assert unit.block is not None
        return DataBlock(unit.block, b, b.written)

    def data_written(
        self,
        unit: Unit,
        ctx: Context,
        pattern: str,
        mode: str,
        scramble: bool = False,
        inverse: bool = False,
    ) -> DataSpec:
        """The data a step writes with `pattern` in `mode` (its file read once); UnitError
        for SLC mode on a part without one."""
        if mode == "slc":
            need_slc(ctx, unit)
        load_pattern_file(ctx, pattern)
        return data_spec(ctx, unit, pattern, scramble, inverse, mode_of(ctx.profile, mode))

    def bench_row(self, unit: Unit, chip_id: str, **values: Any) -> dict[str, Any]:
        """The row of a bench-wide step."""
        return {
            "step": f"s{unit.step:02d}.{unit.kind}",
            "unit": unit.key,
            "chip": chip_id,
            "operation": self.name,
            **values,
        }


def mode_of(profile: Profile, mode: str) -> bool:
    """True for SLC mode; 'native' is the profile's own cell type."""
    return mode == "slc" and profile.geometry.bits_per_cell > 1


def need_slc(ctx: Context, unit: Unit) -> None:
    if ctx.profile.geometry.bits_per_cell > 1 and ctx.profile.vendor.slc_mode is None:
        raise UnitError(f"unit {unit.key}: profile {ctx.profile.name} has no SLC mode")


def data_spec(
    ctx: Context, unit: Unit, pattern: str, scramble: bool, inverse: bool, slc: bool
) -> DataSpec:
    file_data = b""
    if pattern.startswith("file:"):
        file_data = ctx.files.get(pattern, b"")
    return DataSpec(pattern, unit.seed, scramble, inverse, slc, file_data)


MAX_PATTERN_FILE = 16 << 20
"""A pattern file fills each page from its start (repeated when shorter), so a page's worth is
used; a larger file (a wrong one) is refused after 16 MiB, a device or FIFO unread."""


def load_pattern_file(ctx: Context, pattern: str) -> None:
    """Read a file: pattern (relative to the campaign file) into the context once."""
    if not pattern.startswith("file:") or pattern in ctx.files:
        return
    path = Path(pattern[5:])
    if not path.is_absolute() and ctx.campaign_dir is not None:
        path = ctx.campaign_dir / path
    try:
        data = read_regular(path, MAX_PATTERN_FILE)
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the name
        why = getattr(exc, "strerror", None) or exc
        raise UsageError(f"pattern {pattern}: cannot read {path}: {why}") from None
    if not data:
        raise UsageError(f"pattern {pattern}: {path} is empty")
    if len(data) > MAX_PATTERN_FILE:  # a regular file, so this ends
        raise UsageError(
            f"pattern {pattern}: {path} holds more than {MAX_PATTERN_FILE} bytes; a pattern "
            "file needs one page of data (it is repeated to fill each page)"
        )
    ctx.files[pattern] = data


def base_row(unit: Unit, ctx: Context, chip_id: str) -> dict[str, Any]:
    """The coordinates every row of a per-block unit carries."""
    row: dict[str, Any] = {
        "step": f"s{unit.step:02d}.{unit.kind}",
        "unit": unit.key,
        "chip": chip_id,
        "temp_C": ctx.temp_C,
    }
    if unit.ce is not None:
        b = ctx.block(unit)
        row.update(
            ce=unit.ce,
            pec=b.pec,
            fast_forwarded=b.fast_forwarded_cycles > 0,
            fast_forwarded_cycles=b.fast_forwarded_cycles,
            retention_age_h=b.retention_age_h,
            retention_label=b.retention_label or "fresh",
            disturb_reads=b.disturb_reads,
        )
        if b.bake_temp_C is not None:
            row.update(bake_temp_C=b.bake_temp_C, bake_h=b.bake_h)
        if b.written is not None:
            w = b.written
            row.update(
                pattern=w.pattern
                + (" scrambled" if w.scramble else "")
                + (" inverse" if w.inverse else ""),
                seed=w.seed,
                mode="mlc" if w.mlc else ("slc" if w.slc else ctx.profile.geometry.cell),
            )
    return row
