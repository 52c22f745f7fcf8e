"""`pe_loop`: P/E cycling with a verify read every cycle, run by the board's CPU when it can.

A bench that declares the `firmware` role (a board CPU running firmware/, or
`nandlab.transport.firmware_native.FirmwareBoard`) gets the whole loop in one mailbox
command: no host round trip per operation, rows streamed back in batches.
Any other bench runs the same loop from the host, one op program at a time.
Both put the same op programs on the chip (`nandlab.sequences.core` in SDR
mode 0, the pattern generator for the data, the comparator for the verify), so
the rows are the same either way: one per cycle with the erase and program
busy times, the status FAIL count and the verify's bit errors (0->1, 1->0). As
campaign rows, each cycle is an erase row, a program row (mean busy time per page;
the status FAIL count in `detail`) and an rber row of the verify.

The read-offset sweep, its Vth histogram and the read-disturb loop of the same
firmware are `sweep_loop_rows` (one row per offset), `hist_loop_rows` (one row
per offset) and `disturb_loop_rows` (one row per checkpoint), library calls for now.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic import Field

from nandlab.bench import Bench
from nandlab.campaign.fields import Strict
from nandlab.campaign.steps.base import At, BlockState, Context, Outcome, StepKind, base_row
from nandlab.campaign.unit import Unit
from nandlab.characterize.common import op_row
from nandlab.onfi import Chip
from nandlab.onfi_spec.opcodes import Cmd as Op
from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.ops import DinPattern, DoutCompare, Pattern, Program
from nandlab.sequences import core

MAX_CYCLES = 1_000_000
LOOP_TIMEOUT_NS = 50_000_000
"""WAIT_RDY timeout of every busy phase of a loop (50 ms: past any tBERS)."""
STATUS_FAIL = 0x01
"""ONFI status bit 0: the last erase or program failed."""


@dataclass(frozen=True)
class Loop:
    """One block's loop: its first `pages` pages, `page_bytes` from column 0 (the data
    area: the spare keeps its bad-block marker), written with `pattern` (seeded with
    `seed`), compared in `chunk`-byte chunks."""

    ce: int
    block: int
    pages: int
    page_bytes: int
    pattern: Pattern
    seed: int
    chunk: int
    timeout_ns: int = LOOP_TIMEOUT_NS

    def params(self, chip: Chip, count: int, **extra: int) -> dict[str, Any]:
        """The firmware's loop descriptor fields (nandlab.firmware.LoopDescriptor)."""
        row = int.from_bytes(chip.geometry.row_bytes(self.block), "little")
        return {"target": self.ce, "row": row, "pages": self.pages,
                "page_bytes": self.page_bytes, "pattern": self.pattern, "seed": self.seed,
                "chunk": self.chunk, "count": count, "timeout_ns": self.timeout_ns, **extra}


def pe_loop_rows(bench: Bench, chip: Chip, loop: Loop, cycles: int) -> list[dict[str, int]]:
    """`cycles` P/E cycles of `loop.block`; one row per cycle (cycle, erase_ns,
    program_ns, status_fails, err_0to1, err_1to0). On the board's CPU when the bench
    has firmware, else from the host; the chip layer's wear tally counts the erases."""
    if bench.has("firmware"):
        rows = bench.firmware.run_loop("pe_cycle", loop.params(chip, cycles))
        chip.wear.ran_on_board(loop.block, len(rows))
        return rows
    return [_host_cycle(chip, loop, c) for c in range(cycles)]


def sweep_loop_rows(bench: Bench, chip: Chip, loop: Loop, feature: int,
                    offsets: range) -> list[dict[str, int]]:
    """Verify reads of the loop's pages at each read offset of `offsets` (signed DAC
    codes, P1 of SET FEATURES `feature`); one row per offset (offset, read_ns, err_0to1,
    err_1to0). The offset is set back to 0 after the sweep."""
    if bench.has("firmware"):
        return bench.firmware.run_loop("read_sweep", loop.params(
            chip, len(offsets), feature=feature, first=offsets.start, step=offsets.step))
    rows = []
    t = sdr(0)
    for offset in offsets:
        chip.run(core.set_features(t, feature, bytes([offset & 0xFF, 0, 0, 0]),
                                   loop.timeout_ns), "SET FEATURES (read offset)")
        read_ns, e01, e10 = _verify(chip, loop, range(loop.pages))
        rows.append({"offset": offset, "read_ns": read_ns, "err_0to1": e01, "err_1to0": e10})
    chip.run(core.set_features(t, feature, bytes(4), loop.timeout_ns), "SET FEATURES (read offset)")
    return rows


def hist_loop_rows(bench: Bench, chip: Chip, loop: Loop, feature: int,
                   offsets: range) -> list[dict[str, int]]:
    """The Vth histogram of the loop's pages over `offsets` (as `sweep_loop_rows`): one
    row per offset (offset, read_ns, ones_below, zeros_below), the cells written 1 and
    written 0 that read 1 there, which is hw/hls/vth_hist's per-state count with the
    pattern as the states. Each page is read once per offset; the comparator takes it
    twice, against the pattern (its 0->1 errors: written 0, read 1) and, after CHANGE
    READ COLUMN to 0 (no new sensing), against the inverted pattern (written 1, read 1).
    The offset is set back to 0 after."""
    if bench.has("firmware"):
        return bench.firmware.run_loop("vth_hist", loop.params(
            chip, len(offsets), feature=feature, first=offsets.start, step=offsets.step))
    t = sdr(0)
    inverted = replace(loop.pattern, invert=not loop.pattern.invert)
    again = (Program().cmd(Op.CHANGE_READ_COLUMN) + core.address(bytes(2))
             + Program().cmd(Op.CHANGE_READ_COLUMN_CONFIRM)).delay(t.tCCS).dout_compare(
        loop.page_bytes, inverted, loop.seed, loop.chunk)
    rows = []
    for offset in offsets:
        chip.run(core.set_features(t, feature, bytes([offset & 0xFF, 0, 0, 0]),
                                   loop.timeout_ns), "SET FEATURES (read offset)")
        read_ns = ones = zeros = 0
        for page in range(loop.pages):
            n, zeros_below, _ = _verify(chip, loop, [page])
            read_ns += n
            zeros += zeros_below
            res = chip.run(again, f"histogram read of block {loop.block}")
            ones += sum(a for e in res.err_counts for a, _ in e.counts)
        rows.append({"offset": offset, "read_ns": read_ns, "ones_below": ones,
                     "zeros_below": zeros})
    chip.run(core.set_features(t, feature, bytes(4), loop.timeout_ns), "SET FEATURES (read offset)")
    return rows


def disturb_loop_rows(bench: Bench, chip: Chip, loop: Loop, aggressor: int, reads: int,
                      checkpoints: int) -> list[dict[str, int]]:
    """Read disturb: at each of `checkpoints`, `reads` senses of page `aggressor` of the
    loop's block (READ 00h-30h, no data out), then a verify of the loop's other pages;
    one row per checkpoint (checkpoint, reads of the aggressor so far, read_ns of this
    checkpoint's senses, err_0to1, err_1to0 of the other pages)."""
    if bench.has("firmware"):
        return bench.firmware.run_loop("read_disturb", loop.params(
            chip, checkpoints, aggressor=aggressor, reads=reads))
    t, geo = sdr(0), chip.geometry
    sense = (Program().cmd(Op.READ) + core.address(geo.full_address(loop.block, aggressor))
             + Program().cmd(Op.READ_CONFIRM) + core.busy(t, loop.timeout_ns))
    victims = [p for p in range(loop.pages) if p != aggressor]
    rows = []
    for c in range(checkpoints):
        read_ns = sum(sum(chip.run(sense, f"read disturb of block {loop.block}").busy_ns)
                      for _ in range(reads))
        _, e01, e10 = _verify(chip, loop, victims)
        rows.append({"checkpoint": c, "reads": (c + 1) * reads, "read_ns": read_ns,
                     "err_0to1": e01, "err_1to0": e10})
    return rows


def _host_cycle(chip: Chip, loop: Loop, cycle: int) -> dict[str, int]:
    """One P/E cycle from the host, in the firmware's order and op program shapes."""
    t, geo = sdr(0), chip.geometry
    what = f"P/E cycle {cycle} of block {loop.block}"
    erase = chip.run(core.erase(t, geo.row_bytes(loop.block), loop.timeout_ns)
                     + core.read_status(t), what)
    fails, program_ns = erase.data[0][0] & STATUS_FAIL, 0
    for page in range(loop.pages):
        data = DinPattern(loop.page_bytes, loop.pattern, loop.seed)
        res = chip.run(core.page_program(t, geo.full_address(loop.block, page), data,
                                         loop.timeout_ns) + core.read_status(t), what)
        program_ns += sum(res.busy_ns)
        fails += res.data[0][0] & STATUS_FAIL
    _, e01, e10 = _verify(chip, loop, range(loop.pages))
    return {"cycle": cycle, "erase_ns": sum(erase.busy_ns), "program_ns": program_ns,
            "status_fails": fails, "err_0to1": e01, "err_1to0": e10}


def _verify(chip: Chip, loop: Loop, pages: Iterable[int]) -> tuple[int, int, int]:
    """Read busy time and bit errors (0->1, 1->0) of `pages` against the loop's pattern."""
    t, geo = sdr(0), chip.geometry
    read_ns = e01 = e10 = 0
    for page in pages:
        out = DoutCompare(loop.page_bytes, loop.pattern, loop.seed, loop.chunk)
        res = chip.run(core.page_read(t, geo.full_address(loop.block, page), out,
                                      loop.timeout_ns), f"verify read of block {loop.block}")
        read_ns += sum(res.busy_ns)
        e01 += sum(a for e in res.err_counts for a, _ in e.counts)
        e10 += sum(b for e in res.err_counts for _, b in e.counts)
    return read_ns, e01, e10


PATTERNS = {"prbs": Pattern.prbs(), "checker": Pattern.checker(), "zeros": Pattern.constant(0)}


class PeLoopStep(Strict):
    """P/E cycle each block `cycles` times with a verify read of its first `pages` pages
    (all when not given) after each cycle's programs; one row per cycle."""

    cycles: int = Field(ge=1, le=MAX_CYCLES)
    pages: int | None = Field(default=None, ge=1)
    pattern: Literal["prbs", "checker", "zeros"] = "prbs"
    chunk: int = Field(default=512, ge=1, le=1 << 16)


class PeLoop(StepKind[PeLoopStep]):
    name = "pe_loop"
    writes_chip = True

    def apply(self, unit: Unit, ctx: Context) -> None:
        p = self.params(unit)
        b = ctx.block(unit)
        if p.pages is not None and p.pages > ctx.profile.geometry.pages_per_block:
            raise self.refuse(unit, f"pages {p.pages} is more than the block's "
                                    f"{ctx.profile.geometry.pages_per_block}")
        assert unit.ce is not None and unit.block is not None
        # the pattern generator's data is not a DataSpec the run could read back by name
        ctx.blocks[(unit.ce, unit.block)] = BlockState(
            pec=b.pec + p.cycles, fast_forwarded_cycles=b.fast_forwarded_cycles)

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        p = self.params(unit)
        assert unit.block is not None and unit.ce is not None
        geo = at.chip.geometry
        loop = Loop(ce=unit.ce, block=unit.block, pages=p.pages or geo.pages_per_block,
                    page_bytes=geo.page_bytes, pattern=PATTERNS[p.pattern],
                    seed=unit.seed & 0xFFFFFFFF, chunk=p.chunk)
        base = {**base_row(unit, self.after(unit, ctx), at.chip_id), "block": unit.block,
                "pattern": p.pattern, "mode": geo_mode(ctx)}
        pec0 = ctx.block(unit).pec
        rows: list[dict[str, Any]] = []
        for r in pe_loop_rows(at.bench, at.chip, loop, p.cycles):
            at_cycle = {**base, "pec": pec0 + r["cycle"] + 1, "chunk": r["cycle"]}
            rows.append(op_row(ctx.profile, "erase", r["erase_ns"], at_cycle,
                               energy_measured=False))
            rows.append(op_row(ctx.profile, "program", r["program_ns"] // loop.pages, at_cycle,
                               energy_measured=False,
                               detail=json.dumps({"pages": loop.pages,
                                                  "status_fails": r["status_fails"]})))
            bits = 8 * loop.page_bytes * loop.pages
            errors = r["err_0to1"] + r["err_1to0"]
            rows.append({**at_cycle, "operation": "rber", "bits": bits,
                         "errors_0to1": r["err_0to1"], "errors_1to0": r["err_1to0"],
                         "rber": errors / bits})
        return Outcome(rows)


def geo_mode(ctx: Context) -> str:
    """The loop programs in the part's native mode."""
    return ctx.profile.geometry.cell


STEP = PeLoop()
