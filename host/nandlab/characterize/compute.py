"""Error rate, latency and energy of in-flash bitwise operations on stored data.

The data a campaign programmed are the operands; an in-flash computing scheme
(`nandlab.schemes`) evaluates bitwise operations over them on the chip, and
each result is compared bit by bit with the same operation evaluated on the
host from the data that were written. One row per operation and WL (pairs) or
per operation (WL sets), with the errors split 0->1 / 1->0, the sensings the
chip ran, their busy time and energy.

Operand layouts:
- `pair`: each WL holds two operands, A in its LSB page and B in its MSB page
  (MCFlash, ParaBit). Named operations: AND, OR, XOR, XNOR, NAND, NOR, NOT
  (of A) and NOT-MSB (of B).
- `wordlines`: the WLs listed are the operands W0, W1, ... (one page each; SLC
  data, as Flash-Cosmos stores them). Named operations: AND, OR, NAND, NOR of
  all of them.
Any other entry of `ops` is taken as an expression over those names, e.g.
`(A | B) & ~A` or `W0 & ~W1`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from nandlab.analysis import cell_bit_errors, unpack_cells
from nandlab.characterize.readback import DataSpec, page_address, page_data, wl_data
from nandlab.characterize.vth import measure_vth
from nandlab.errors import UsageError
from nandlab.schemes.base import PageLoc, Scratch
from nandlab.schemes.compute import make_scheme
from nandlab.schemes.expr import parse, variables
from nandlab.schemes.mcflash import McFlash
from nandlab.schemes.mcflash_model import StateModel
from nandlab.schemes.reference import evaluate

if TYPE_CHECKING:
    from nandlab.onfi.chip import Chip

PAIR_OPS = {
    "AND": "A & B",
    "OR": "A | B",
    "XOR": "A ^ B",
    "XNOR": "~(A ^ B)",
    "NAND": "~(A & B)",
    "NOR": "~(A | B)",
    "NOT": "~A",
    "NOT-MSB": "~B",
}
WORDLINE_OPS = {"AND": "&", "OR": "|", "NAND": "&", "NOR": "|"}
LAYOUTS = ("pair", "wordlines")


def expression_of(op: str, layout: str, count: int) -> str:
    """The expression a named operation stands for (other text is returned as it is)."""
    name = op.upper()
    if layout == "pair":
        return PAIR_OPS.get(name, op)
    if name in WORDLINE_OPS:
        body = f" {WORDLINE_OPS[name]} ".join(f"W{i}" for i in range(count))
        return f"~({body})" if name in ("NAND", "NOR") else body
    return op


def check_ops(ops: Sequence[str], layout: str, count: int) -> None:
    """UsageError naming the first operation that is neither known nor a valid expression."""
    allowed = {"A", "B"} if layout == "pair" else {f"W{i}" for i in range(count)}
    for op in ops:
        text = expression_of(op, layout, count)
        unknown = sorted(set(variables(parse(text))) - allowed)
        if unknown:
            known = ", ".join(PAIR_OPS if layout == "pair" else WORDLINE_OPS)
            raise UsageError(
                f"operation {op!r}: operands {', '.join(unknown)} are not in the {layout} "
                f"layout (operands {', '.join(sorted(allowed))}; named operations {known})"
            )


def _bits(chip: Chip, spec: DataSpec, block: int, wl: int, page_type: int) -> np.ndarray:
    nbytes = chip.profile.geometry.page_bytes
    data = page_data(chip.profile, spec, block, wl, page_type)[:nbytes]
    return unpack_cells(data, nbytes * 8)


def _read_bits(chip: Chip, loc: PageLoc) -> np.ndarray:
    nbytes = chip.profile.geometry.page_bytes
    got = chip.read_page(loc.block, loc.page, slc=loc.slc, length=nbytes)
    return unpack_cells(got.data, nbytes * 8)


def _state_model(chip: Chip, block: int, wl: int, spec: DataSpec) -> StateModel:
    """The states of WL `wl` of `block` (holding `spec`'s data) from a Vth sweep."""
    vth = measure_vth(chip, chip.profile, block, wl, wl_data(chip.profile, spec, block, wl))
    return StateModel.from_vth(vth.states, f"Vth of b{block}/wl{wl}")


def _counts(got: np.ndarray, want: np.ndarray) -> dict[str, Any]:
    return dict(cell_bit_errors(want, got).as_row())


def measure_compute(
    chip: Chip,
    block: int,
    wls: Sequence[int],
    spec: DataSpec,
    base: Mapping[str, Any],
    *,
    scheme: str,
    ops: Sequence[str],
    layout: str = "pair",
    options: Mapping[str, Any] | None = None,
    scratch: Sequence[int] = (),
    against_reads: bool = False,
) -> list[dict[str, Any]]:
    """Run each of `ops` with `scheme` over the data `spec` wrote to `wls` of `block`.

    Each result gives a row with `reference` "written": errors against the operation
    on the data written (the operation's error rate). With `against_reads`, a second
    row with `reference` "read" compares it with the operation on what plain reads
    of the operands return, so raw bit errors of the cells drop out and what is left
    is the scheme's own logic (exact on error-free cells).

    Scratch blocks a scheme erases (intermediate results, aligned copies) wear like any
    other: the chip layer counts their erases for the chip ledger.

    MCFlash plans its read offsets against the states a Vth sweep of the first WL measures
    (unless `options` give a `model`), as a lab does on silicon; the sweep's reads add a
    little read disturb to the block. Energies are the plans' datasheet estimates
    (`energy_measured` False).
    """
    profile = chip.profile
    bpc = 1 if spec.slc else profile.geometry.bits_per_cell
    if layout == "pair" and bpc < 2:
        raise UsageError(
            f"the pair layout needs LSB and MSB pages; block {block} holds SLC data "
            "(use layout: wordlines)"
        )
    if layout not in LAYOUTS:
        raise UsageError(f"layout {layout!r}: allowed {', '.join(LAYOUTS)}")
    check_ops(ops, layout, len(wls))
    options = dict(options or {})
    if scheme == McFlash.name and layout == "pair" and "model" not in options:
        options["model"] = _state_model(chip, block, wls[0], spec)
    run = make_scheme(scheme, chip, **options)
    groups: list[tuple[int | None, dict[str, PageLoc], dict[str, np.ndarray]]] = []
    if layout == "pair":
        for wl in wls:
            locs = {
                "A": PageLoc(block, page_address(profile, wl, 0, False)),
                "B": PageLoc(block, page_address(profile, wl, 1, False)),
            }
            bits = {"A": _bits(chip, spec, block, wl, 0), "B": _bits(chip, spec, block, wl, 1)}
            groups.append((wl, locs, bits))
    else:
        locs = {
            f"W{i}": PageLoc(block, page_address(profile, wl, 0, spec.slc), spec.slc)
            for i, wl in enumerate(wls)
        }
        bits = {f"W{i}": _bits(chip, spec, block, wl, 0) for i, wl in enumerate(wls)}
        groups.append((None, locs, bits))
    rows: list[dict[str, Any]] = []
    for group_wl, locs, operand_bits in groups:
        read_bits = {n: _read_bits(chip, loc) for n, loc in locs.items()} if against_reads else {}
        for op in ops:
            text = expression_of(op, layout, len(locs))
            expr = parse(text)
            names = variables(expr)
            want = evaluate(expr, {n: operand_bits[n] for n in names})
            result = run.run(
                expr, {n: locs[n] for n in names}, Scratch(chip, list(scratch)), text=text
            )
            got = np.asarray(result.bits, dtype=np.uint8)
            plan = result.plan
            row = {
                **base,
                "block": block,
                "operation": f"compute:{op.upper() if op.upper() in PAIR_OPS else op}",
                "scheme": scheme,
                "expression": text,
                "reference": "written",
                **_counts(got, want),
                "sensings": plan.sensings,
                "latency_us": plan.latency_us,
                "energy_uJ": plan.energy_uJ,
                "energy_measured": False,
            }
            if group_wl is not None:
                row["wl"] = group_wl
            rows.append(row)
            if against_reads:
                want_read = evaluate(expr, {n: read_bits[n] for n in names})
                rows.append({**row, "reference": "read", **_counts(got, want_read)})
    return rows
