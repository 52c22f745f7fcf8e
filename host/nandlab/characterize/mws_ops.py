"""Bit errors of Flash-Cosmos operations over many operands (Flash-Cosmos Sec. 5.2: zero
errors with ESP-programmed operands): AND / NAND over operands stored as they are, OR / NOR
over operands stored inverted (De Morgan: one intra-block MWS per string, read inversely).

Each operation runs again and again, its operand count cycling through `operand_counts`
(the first n operand WLs), until `target_bits` result bits were compared with the host's
answer; repeated sensings of the same cells draw fresh read noise each time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from nandlab.analysis import BitErrors, bit_errors
from nandlab.characterize.readback import DataSpec, page_data
from nandlab.schemes.flashcosmos import FcResult, FlashCosmos, reference

if TYPE_CHECKING:
    from nandlab.onfi.chip import Chip

PLAIN_OPS = ("AND", "NAND")
"""Operations on operands stored as they are."""
INVERSE_OPS = ("OR", "NOR")
"""Operations on operands stored inverted."""


def measure_mws_ops(
    chip: Chip,
    block: int,
    wls: Sequence[int],
    spec: DataSpec,
    ops: Sequence[str],
    operand_counts: Sequence[int],
    target_bits: float,
    base: dict[str, Any],
) -> list[dict[str, Any]]:
    """Rows per (operation, operand count): result bits compared, errors each way, the
    operations run (`sensings`: one or more MWS each) and the distinct operand cells."""
    fc = FlashCosmos(chip, allow_test_mode=True)
    n_bytes = fc.page_bytes
    logical = replace(spec, inverse=False)
    data = [page_data(chip.profile, logical, block, wl, 0)[:n_bytes] for wl in wls]
    operands = [(block, wl) for wl in wls]
    rows = []
    for op in ops:
        counts: dict[int, tuple[BitErrors, int]] = {}
        done, i = 0, 0
        while done < target_bits:
            n = operand_counts[i % len(operand_counts)]
            got = _run(fc, op, operands[:n], spec.inverse)
            errors = bit_errors(reference(op.lower(), data[:n]), got.data[:n_bytes])
            before, runs = counts.get(n, (BitErrors(0, 0, 0), 0))
            counts[n] = (before + errors, runs + 1)
            done += errors.bits
            i += 1
        for n, (errors, runs) in sorted(counts.items()):
            rows.append(
                {
                    **base,
                    "block": block,
                    "operation": "mws",
                    "scheme": "flashcosmos",
                    "expression": op,
                    "chunk": n,
                    "sensings": runs,
                    "cells": n * n_bytes * 8,
                    "bits": errors.bits,
                    "errors_0to1": errors.errors_0to1,
                    "errors_1to0": errors.errors_1to0,
                }
            )
    return rows


def _run(fc: FlashCosmos, op: str, operands: list[tuple[int, int]], inverse: bool) -> FcResult:
    if op == "AND":
        return fc.and_(operands)
    if op == "NAND":
        return fc.nand(operands)
    if op == "OR":
        return fc.or_(operands, stored_inverse=inverse)
    return fc.nor(operands, stored_inverse=inverse)
