"""Store operands, run an expression with one scheme or every scheme the chip supports,
and compare each result with the host-side reference.

Example::

    with open_bench("sim://mlc-64l?seed=1") as bench:
        chip = Chip(bench)
        stored = store_operands(chip, {"A": "random:1", "B": "random:2"}, block=100)
        report = compute(chip, "A & B", stored, schemes=["mcflash"], scratch=[102])
        report.runs[0].result.plan.latency_us, report.runs[0].bit_errors
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from nandlab.analysis import cell_bit_errors, unpack_cells
from nandlab.errors import NandlabError, UnsupportedCapability, UsageError
from nandlab.ops.pattern import page_pattern
from nandlab.schemes.base import SCHEMES, PageLoc, Scheme, SchemeResult, Scratch
from nandlab.schemes.expr import parse, variables
from nandlab.schemes.reference import evaluate

if TYPE_CHECKING:
    from nandlab.onfi import Chip

SCHEME_MODULES = ("mcflash", "parabit", "flashcosmos_scheme")
"""Modules under nandlab.schemes that register a Scheme (a missing one is skipped)."""
SPEC_KINDS = ("random:SEED", "zeros", "ones", "checker")


def load_schemes() -> dict[str, type[Scheme]]:
    """Import the scheme modules so they register; name -> class."""
    for mod in SCHEME_MODULES:
        try:
            importlib.import_module(f"nandlab.schemes.{mod}")
        except ModuleNotFoundError as exc:
            if exc.name != f"nandlab.schemes.{mod}":
                raise
    return dict(SCHEMES)


def supported_schemes(chip: Chip) -> dict[str, str | None]:
    """Every known scheme -> None if it can run on `chip`, else the reason it cannot."""
    return {name: cls.unsupported(chip) for name, cls in load_schemes().items()}


def make_scheme(name: str, chip: Chip, **options: Any) -> Scheme:
    """Instantiate scheme `name` on `chip`; options a scheme does not take are dropped."""
    schemes = load_schemes()
    if name not in schemes:
        raise UsageError(f"unknown scheme {name!r}: allowed {', '.join(sorted(schemes))}")
    cls = schemes[name]
    reason = cls.unsupported(chip)
    if reason:
        raise UnsupportedCapability(reason)
    import inspect

    accepted = inspect.signature(cls.__init__).parameters
    return cls(chip, **{k: v for k, v in options.items() if k in accepted})


def spec_bytes(spec: str, nbytes: int, block: int, page: int) -> bytes:
    """Page data for an operand spec: random:SEED, zeros, ones, checker."""
    kind, _, arg = spec.partition(":")
    if kind == "random":
        try:
            seed = int(arg, 0) if len(arg) <= 20 else -1
        except ValueError:
            seed = -1
        if not 0 <= seed < 2**63:
            raise UsageError(
                f"operand data {spec!r}: random needs a seed in 0..2^63-1, e.g. random:1"
            )
        return page_pattern("random", nbytes, seed=seed, block=0, page=0)
    if kind in ("zeros", "ones", "checker") and not arg:
        return page_pattern(kind, nbytes, block=block, page=page, wl=0)
    raise UsageError(f"operand data {spec!r}: allowed {', '.join(SPEC_KINDS)}")


@dataclass(frozen=True)
class StoredOperand:
    name: str
    loc: PageLoc
    bits: np.ndarray  # the data written (data area), the reference's input


def store_operands(
    chip: Chip,
    specs: Mapping[str, str],
    *,
    block: int,
    scheme: str = "mcflash",
    erase: bool = True,
) -> dict[str, StoredOperand]:
    """Program operands (name -> spec) into `block` in `scheme`'s layout (MLC pairs by default).

    Erases the block first (erase=False: the pages must be erased).
    """
    schemes = load_schemes()
    cls = schemes.get(scheme)
    if cls is None:
        raise UsageError(f"unknown scheme {scheme!r} for the layout")
    profile = chip.profile
    layout = cls.layout(list(specs), block, profile)
    if erase:
        chip.erase_block(block)
    nbytes = profile.geometry.page_bytes
    out: dict[str, StoredOperand] = {}
    # Flash-Cosmos' layout holds ESP-programmed SLC operands (regular SLC data has a real RBER)
    fc = None
    if scheme == "flashcosmos" and profile.vendor.esp is not None:
        from nandlab.schemes.flashcosmos import FlashCosmos

        fc = FlashCosmos(chip, allow_test_mode=True)
    for name, loc in sorted(layout.items(), key=lambda kv: (kv[1].page, kv[0])):
        data = spec_bytes(specs[name], nbytes, loc.block, loc.page)
        if fc is not None and loc.slc:
            fc.store(loc.block, loc.page, data)
        else:
            chip.program_page(loc.block, loc.page, data, slc=loc.slc, blank_check=False)
        out[name] = StoredOperand(name, loc, unpack_cells(data, nbytes * 8))
    if fc is not None:
        fc.tm.clear_esp()
    return out


def read_operands(chip: Chip, locs: Mapping[str, PageLoc]) -> dict[str, StoredOperand]:
    """Operands already on the chip: their reference data is read back at default offsets."""
    nbits = chip.profile.geometry.page_bytes * 8
    chip.reset_read_offsets()
    return {
        n: StoredOperand(
            n, loc, unpack_cells(chip.read_page(loc.block, loc.page, slc=loc.slc).data, nbits)
        )
        for n, loc in locs.items()
    }


@dataclass
class SchemeRun:
    scheme: str
    result: SchemeResult | None
    bit_errors: int | None = None
    bits: int = 0
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"scheme": self.scheme}
        if self.error is not None:
            d["error"] = self.error
            return d
        assert self.result is not None
        d.update(
            bits=self.bits,
            bit_errors=self.bit_errors,
            matches_reference=self.bit_errors == 0,
            plan=self.result.plan.to_dict(),
        )
        return d


@dataclass
class ComputeReport:
    expression: str
    reference_ones: int
    bits: int
    runs: list[SchemeRun] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "expression": self.expression,
            "bits": self.bits,
            "reference_ones": self.reference_ones,
            "runs": [r.to_dict() for r in self.runs],
        }


def compute(
    chip: Chip,
    text: str,
    operands: Mapping[str, StoredOperand],
    *,
    schemes: Sequence[str] | None = None,
    scratch: Sequence[int],
    **options: Any,
) -> ComputeReport:
    """Evaluate `text` with each scheme (None: every scheme the chip supports).

    Schemes that cannot run give a run with `error` set (when several were asked)
    or raise (when one was named). options go to the schemes that take them
    (allow_test_mode, variant, MCFlash's model...).
    """
    expr = parse(text)
    missing = [n for n in variables(expr) if n not in operands]
    if missing:
        raise UsageError(f"operand {', '.join(missing)} of the expression is not stored")
    reference = evaluate(expr, {n: operands[n].bits for n in variables(expr)})
    if schemes is None:
        names = [n for n, why in supported_schemes(chip).items() if why is None]
        if not names:
            raise UnsupportedCapability(f"no scheme runs on {chip.profile.name}")
        single = False
    else:
        names, single = list(schemes), len(schemes) == 1
    report = ComputeReport(text, int(reference.sum()), int(reference.size))
    locs = {n: operands[n].loc for n in variables(expr)}
    for name in names:
        try:
            scheme = make_scheme(name, chip, **options)
            result = scheme.run(expr, locs, Scratch(chip, list(scratch)), text=text)
        except NandlabError as exc:
            if single:
                raise
            report.runs.append(SchemeRun(name, None, error=str(exc)))
            continue
        errors = cell_bit_errors(reference, result.bits).errors
        report.runs.append(SchemeRun(name, result, errors, int(reference.size)))
    return report
