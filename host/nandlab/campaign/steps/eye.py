"""`eye`: the data eye of each byte lane: sweep the DQS capture delay and record where reads pass.

A real lab measurement of the DDR interfaces (NV-DDR2 / NV-DDR3, Toggle DDR 2.0): the bench's
controller moves the capture point of each byte lane after its DQS edge in
taps (role `eye`, `transport.roles.EyeScanner`) and the step counts, per tap
and lane, the bits read wrong out of a page register loaded once. The page
is read once (tR) and then read out again per tap by CHANGE READ COLUMN, so
every tap sees the same stored bits: the array's own raw bit errors are a
floor common to all taps, and a tap passes when its lane reads no more
errors than that floor (the lane's best tap). The pass window of a lane is
its longest run of passing taps; its width in ps is the timing margin of
that lane at that interface mode.

Rows: one `eye_scan` row per (mode, tap, lane) with bits, bit_errors and the
capture delay; one `eye_window` row per (mode, lane) with the window's first
and last passing delay, its width and its centre (capture_delay_ps), where
each lane's capture delay is left, as read training leaves it. With
`modes`, the scan runs at each interface mode in turn (each one the part and
the bench offer); without, at the chip's DDR interface, negotiated first when
the chip is in SDR. The chip returns to the interface it had.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from nandlab.bench import Bench, MissingRole
from nandlab.campaign.fields import Strict
from nandlab.campaign.steps.base import At, Context, Outcome, StepKind, UnitError, base_row
from nandlab.campaign.unit import Unit
from nandlab.characterize.readback import page_address, page_data
from nandlab.errors import TransportError
from nandlab.onfi.interface import NegotiatedInterface
from nandlab.ops import Program
from nandlab.sequences import core
from nandlab.transport.roles import EyeScanner


class EyeMode(Strict):
    """One interface mode to scan."""

    interface: str = Field(pattern="^(nv-ddr[23]|toggle2)$")
    mode: int = Field(ge=0, le=15)


class EyeStep(Strict):
    """Scan the capture delay of every byte lane over the first `bytes` of a page of WL `wl`
    (a block holding data), at each of `modes`, else at the chip's DDR interface (the fastest
    the part and the bench share, negotiated when the chip runs SDR)."""

    wl: int = Field(default=0, ge=0)
    page_type: int = Field(default=0, ge=0, le=3)
    bytes: int = Field(default=4096, ge=16, le=1 << 16)
    tap_step: int = Field(default=1, ge=1, le=64, description="scan every tap_step-th tap")
    modes: list[EyeMode] = Field(default=[], max_length=32)


def windows(errors: list[int]) -> tuple[int, int, int] | None:
    """(first, last) index of the longest run of entries equal to the minimum, and that
    minimum; None for no entries."""
    if not errors:
        return None
    floor = min(errors)
    best: tuple[int, int] = (0, -1)
    start = None
    for i, e in enumerate([*errors, floor + 1]):
        if e == floor and start is None:
            start = i
        elif e != floor and start is not None:
            if i - 1 - start > best[1] - best[0]:
                best = (start, i - 1)
            start = None
    return best[0], best[1], floor


def scan(eye: EyeScanner, program: Any, expected: bytes, taps: list[int]
         ) -> dict[int, list[int]]:
    """Bit errors per lane (lane -> one count per tap in `taps`), every lane at the same tap."""
    counts: dict[int, list[int]] = {lane: [] for lane in range(eye.lanes)}
    for tap in taps:
        for lane in range(eye.lanes):
            eye.set_capture_delay(lane, tap)
        for lane, errors in enumerate(eye.lane_bit_errors(program, expected)):
            counts[lane].append(int(errors))
    return counts


def centre(eye: EyeScanner, program: Program, expected: bytes, taps: list[int],
           counts: dict[int, list[int]]) -> None:
    """Leave every lane at the middle of its window, as read training does, and read once
    there: the chip reads right after the scan (whose last tap is usually outside the eye),
    and a centre that does not read back at the lane's floor is an error, not a window."""
    floors = []
    for lane, errs in counts.items():
        found = windows(errs)
        assert found is not None
        eye.set_capture_delay(lane, taps[(found[0] + found[1]) // 2])
        floors.append(found[2])
    got = eye.lane_bit_errors(program, expected)
    worse = [lane for lane, (e, f) in enumerate(zip(got, floors, strict=True)) if e > f]
    if worse:
        raise TransportError(
            f"the data eye's centre did not read back on lane(s) {worse}: {list(got)} bit "
            f"errors where the scan saw {floors}; the capture is not stable"
        )


class Eye(StepKind[EyeStep]):
    name = "eye"

    def bench_problem(self, bench: Bench) -> str | None:
        return None if bench.has("eye") else str(MissingRole("eye", bench.url))

    def apply(self, unit: Unit, ctx: Context) -> None:
        p = self.params(unit)
        held = self.holding_data(unit, ctx, [p.wl])
        g = ctx.profile.geometry
        if p.page_type >= (1 if held.written.slc else g.bits_per_cell):
            raise self.refuse(unit, f"page type {p.page_type} does not exist in that mode")
        if p.bytes > g.page_bytes + g.spare_bytes:
            total = g.page_bytes + g.spare_bytes
            raise self.refuse(unit, f"bytes {p.bytes} is past the page's {total} bytes")
        offered = ctx.profile.interfaces
        for m in p.modes:
            if m.mode not in offered.modes(m.interface):
                raise UnitError(
                    f"unit {unit.key}: {ctx.profile.name} does not offer {m.interface} mode "
                    f"{m.mode} (it offers {part_modes_text(offered)})"
                )

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        p = self.params(unit)
        eye = at.bench.eye  # MissingRole: "has no capture-delay control"
        chip, profile = at.chip, ctx.profile
        held = self.holding_data(unit, ctx, [p.wl])
        spec, slc = held.written, held.written.slc
        expected = page_data(profile, spec, held.block, p.wl, p.page_type)[: p.bytes]
        page = page_address(profile, p.wl, p.page_type, slc)
        column = bytes(chip.geometry.column_cycles)
        taps = list(range(0, eye.taps, p.tap_step))
        start = chip.interface
        targets = [(m.interface, m.mode) for m in p.modes]
        if not targets:
            best = start if start.interface != "sdr" else chip.negotiate_interface()
            if best.interface == "sdr":
                raise self.refuse(unit, f"no DDR interface to scan: {best.reason}")
            targets = [(best.interface, best.mode)]
        base = {**base_row(unit, ctx, at.chip_id), "block": held.block, "wl": p.wl,
                "page": page}
        rows: list[dict[str, Any]] = []
        for i, (iface, mode) in enumerate(targets):
            now = chip.interface
            if (now.interface, now.mode) != (iface, mode):
                now = chip.use_interface(iface, mode)
            chip.read_page(held.block, page, slc=slc, length=p.bytes)  # loads the page register
            program = Program().ce(chip.ce) + core.change_read_column(column, chip.t_ccs, p.bytes)
            counts = scan(eye, program, expected, taps)
            rows += _rows(base, now, eye, taps, counts, p.bytes)
            centre(eye, program, expected, taps, counts)
            at.progress("eye scan", i + 1, len(targets))
        if (chip.interface.interface, chip.interface.mode) != (start.interface, start.mode):
            chip.use_interface(start.interface, start.mode)
        return Outcome(rows)


def part_modes_text(offered: Any) -> str:
    parts = [f"{name} {offered.modes(name)}" for name in ("nv-ddr2", "nv-ddr3", "toggle2")
             if offered.modes(name)]
    return ", ".join(parts) or "SDR only"


def _rows(base: dict[str, Any], now: NegotiatedInterface, eye: EyeScanner, taps: list[int],
          counts: dict[int, list[int]], n_bytes: int) -> list[dict[str, Any]]:
    coords = {**base, "interface": now.interface, "timing_mode": now.mode,
              "data_rate_mts": now.data_rate_mts}
    out: list[dict[str, Any]] = []
    for lane, errs in counts.items():
        bits = 8 * len(range(lane, n_bytes, eye.lanes))
        for tap, e in zip(taps, errs, strict=True):
            out.append({**coords, "operation": "eye_scan", "lane": lane, "capture_tap": tap,
                        "capture_delay_ps": tap * eye.tap_ps, "bits": bits, "bit_errors": e,
                        "rber": e / bits})
        found = windows(errs)
        assert found is not None
        first, last, floor = found
        lo, hi = taps[first] * eye.tap_ps, taps[last] * eye.tap_ps
        out.append({**coords, "operation": "eye_window", "lane": lane, "bits": bits,
                    "bit_errors": floor, "window_start_ps": lo, "window_end_ps": hi,
                    "window_ps": hi - lo, "capture_delay_ps": (lo + hi) / 2})
    return out


STEP = Eye()
