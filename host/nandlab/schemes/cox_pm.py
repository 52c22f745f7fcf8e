"""PiF / CoX-PM: in-chip LDPC decode + multi-pattern match, controller fallback on failure.

`CoxPmScan` drives a part that declares `vendor.coxpm` (page format and
protocol in `nandlab.onfi_spec.coxpm`):

- `store` writes a page in the CoX-PM format (data randomised, each 1 KiB
  sub-page a codeword of the (9216, 8192) QC-LDPC code, parity in the spare).
- `set_patterns` loads up to 8 patterns of up to 32 bytes into the matcher.
- `scan(block, pages)` issues read_when_matched on each page, in the cache form
  (page n + 1 sensed while page n is decoded and matched), and reads status
  bits 4-3: a matched page's plain data comes from the chip; a not-matched page
  moves nothing; on a decoding failure the chip sends the sensed page, the
  controller adds a soft-bit read, decodes with min-sum (`nandlab.codes`) and
  matches on the host; when min-sum fails too, read-retry (hard + soft reads with
  every reference moved down, `RETRY_OFFSETS_MV`) until it decodes. A page no
  offset decodes raises UncorrectableData: never a guess.

On an ordinary part (no `vendor.coxpm`) on a bench that declares `fpga_coxpm` (rtl://:
the controller runs the kernel hw/hls/coxpm on its read stream, as the paper's OpenSSD
emulation), the same scan reads each page plainly into the bench's `matcher` role, which
decodes, de-randomises and matches it with the die's decoder and hands on what the die
would (`path` "fpga" instead of "chip"); the fallback is the same.

Fallbacks run after the scan's last page, so the soft-bit reads do not cut
into the cache pipeline. What each page cost is in its `PageAnswer`: the busy
time the chip reported, the energy estimated from the datasheet currents plus
the in-chip logic's power, bytes to the host and, on the fallback path, the
raw bit errors min-sum corrected.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from nandlab.analysis import operation_energy_uJ
from nandlab.codes import min_sum_decode, pif_code, soft_read_llrs
from nandlab.errors import ChipStatusFail, RangeError, UncorrectableData, UnsupportedCapability
from nandlab.onfi import Chip
from nandlab.onfi.results import busy_steps
from nandlab.onfi.target import Controller
from nandlab.onfi_spec.coxpm import (
    Outcome,
    codewords,
    encode_page,
    layout_problem,
    matches,
    outcome_of,
    pattern_bytes,
    plain_data,
)
from nandlab.onfi_spec.opcodes import Status
from nandlab.ops import Program
from nandlab.profiles import Profile
from nandlab.schemes.vendor_permit import require_permit
from nandlab.sequences import core
from nandlab.sequences import coxpm as seq
from nandlab.transport.roles import ReadStreamMatcher

SOFT_DELTA_CODE = 10
"""Soft-bit read window: +-10 DAC steps (100 mV on the virtual part) around each reference;
at 2K P/E + 12 months it marks ~93 % of the raw errors weak (60 mV: ~75 %)."""
RETRY_OFFSETS_MV = (-30.0, -60.0, -90.0, -120.0)
"""Read-retry: every read reference moved down by these (retention lowers Vth), tried in
order when min-sum fails on the sensed page."""
STRONG_LLR, WEAK_LLR = 6.6, 1.4
"""LLR magnitudes of strong / weak cells (docs/codes.md: the Gaussian read model at 72 raw
errors per codeword)."""


@dataclass(frozen=True)
class PageAnswer:
    """One page of a scan: matched or not, the path ("chip", "fpga", "fallback"), its plain
    data when matched, and what it cost."""

    block: int
    page: int
    matched: bool
    path: str
    data: bytes | None
    busy_us: float
    energy_uJ: float
    host_bytes: int
    bit_errors: int | None = None
    """Raw bit errors the controller's decoder corrected in the read that decoded (fallback
    path only; the chip's decoder does not report its count)."""
    kernel_us: float = 0.0
    """The board's decode + match time for the page (the fpga path; 0 on the chip's)."""


@dataclass
class Stats:
    """Counts over a scan's life: pages per outcome, soft-bit reads."""

    matched: int = 0
    not_matched: int = 0
    decoding_failures: int = 0
    soft_reads: int = 0
    retries: int = 0
    outcomes: list[str] = field(default_factory=list)


class CoxPmScan:
    """The cox-pm scheme on one chip (UnsupportedCapability without `vendor.coxpm`)."""

    name = "cox-pm"
    title = "PiF / CoX-PM: in-chip LDPC decode + pattern match, controller fallback"

    def __init__(
        self,
        chip: Chip,
        *,
        matcher: ReadStreamMatcher | None = None,
        soft_delta_code: int = SOFT_DELTA_CODE,
        allow_test_mode: bool = False,
    ) -> None:
        """`matcher`: the bench's read-stream matcher (`Bench.matcher`), used when the part
        itself has no CoX-PM logic; the bench must declare `fpga_coxpm`. `allow_test_mode`:
        the permit set_pattern and read_when_matched need (`vendor_permit`); on the
        matcher's path too, which stands in for those commands. `store` needs none."""
        problem = self.unsupported(chip)
        if problem is None and not self.in_chip(chip) and matcher is None:
            problem = f"cox-pm on {chip.profile.name} needs the bench's matcher role: none given"
        if problem is not None:
            raise UnsupportedCapability(problem)
        problem = layout_problem(chip.geometry.page_bytes, chip.geometry.spare_bytes)
        if problem is not None:
            raise RangeError(f"{chip.profile.name} cannot hold CoX-PM pages: {problem}")
        chip.check_soft_bit_delta(soft_delta_code)
        self.chip, self._spec = chip, chip.profile.vendor.coxpm
        self._matcher = None if self.in_chip(chip) else matcher
        self.soft_delta_code = soft_delta_code
        self.allow_test_mode = allow_test_mode
        self.patterns: list[bytes] = []
        self.stats = Stats()

    @staticmethod
    def in_chip(chip: Chip) -> bool:
        """Whether the part decodes and matches (vendor.coxpm, driven by the bench)."""
        return chip.profile.vendor.coxpm is not None and chip.transport.supports("coxpm")

    @classmethod
    def unsupported(cls, chip: Chip) -> str | None:
        return cls.unsupported_on(chip.transport, chip.profile)

    @staticmethod
    def unsupported_on(t: Controller, profile: Profile) -> str | None:
        """Why the scheme cannot run on bench `t` with a part of `profile`, or None."""
        name, vendor = profile.name, profile.vendor
        in_chip = vendor.coxpm is not None and t.supports("coxpm")
        if not in_chip and not t.supports("fpga_coxpm"):
            if vendor.coxpm is None:
                return (
                    f"cox-pm needs a part that decodes and matches (vendor.coxpm; {name} has "
                    f"none) or a bench that does it on its read stream: {t.cannot('fpga_coxpm')}"
                )
            return f"cox-pm on {name}: {t.cannot('coxpm')}"
        if vendor.soft_bit_read is None or not t.supports("soft_bit_read"):
            return f"cox-pm's fallback needs the soft-bit read (vendor.soft_bit_read) of {name}"
        return None

    # ---------------------------------------------------------------- store

    def store(self, block: int, page: int, data: bytes) -> None:
        """Program one page in the CoX-PM format (at most page_bytes of data, zero padded)."""
        geo = self.chip.check_address(block, page, False)
        self.chip.program_page(
            block, page, encode_page(block, page, data, geo.page_bytes, geo.spare_bytes)
        )

    # ------------------------------------------------------------- patterns

    def set_patterns(self, patterns: Sequence[bytes | str]) -> None:
        """Load the matcher: 1..8 patterns of 1..32 bytes (str as UTF-8); RangeError else."""
        require_permit(self.allow_test_mode, "cox-pm set_pattern")
        pats = [p.encode() if isinstance(p, str) else bytes(p) for p in patterns]
        payload = pattern_bytes(pats)
        if self._matcher is not None:
            self._matcher.set_patterns(pats)
            self.patterns = pats
            return
        c = self.chip
        assert self._spec is not None
        out = c.run(seq.set_pattern(c.sdr, self._spec, payload, c.timeouts.read), "set_pattern")
        if out.data[0][0] & Status.FAIL:
            raise ChipStatusFail(f"set_pattern: the chip refused {len(pats)} patterns")
        self.patterns = pats

    # ----------------------------------------------------------------- scan

    def scan(self, block: int, pages: Iterable[int], *, cache: bool = True) -> list[PageAnswer]:
        """read_when_matched on each page (cache form by default); every page's answer."""
        require_permit(self.allow_test_mode, "cox-pm read_when_matched")
        if not self.patterns:
            raise RangeError("set_patterns first: the matcher holds no pattern")
        todo = [int(p) for p in pages]
        for p in todo:
            self.chip.check_address(block, p, False)
        if self._matcher is not None:
            return [self._answer(block, *self._read_matched(block, p, self._matcher)) for p in todo]
        c, spec = self.chip, self._spec
        assert spec is not None
        t, tmo = c.sdr, c.timeouts.read
        results: list[tuple[int, Outcome, bytes, float, bool]] = []
        if not cache:
            for p in todo:
                prog = seq.read_when_matched(t, spec, c.geometry.row_bytes(block, p), tmo)
                results.append((p, *self._issue(prog, f"read_when_matched b{block}/p{p}"), True))
        elif todo:
            first = seq.read_when_matched_cache(t, spec, c.geometry.row_bytes(block, todo[0]), tmo)
            _, _, lead_us = self._issue(first, f"read_when_matched (cache) b{block}/p{todo[0]}")
            for prev, p in zip(todo, todo[1:], strict=False):
                prog = seq.read_when_matched_cache(t, spec, c.geometry.row_bytes(block, p), tmo)
                what = f"read_when_matched (cache) b{block}/p{p}"
                results.append((prev, *self._issue(prog, what), True))
            out = self._issue(seq.read_when_matched_last(t, spec, tmo), "read_when_matched last")
            results.append((todo[-1], *out, False))
            # the first command only sensed: its time and energy go to the first page
            p0, o0, d0, b0, s0 = results[0]
            results[0] = (p0, o0, d0, b0 + lead_us, s0)
        return [self._answer(block, *r) for r in results]

    def _read_matched(
        self, block: int, page: int, matcher: ReadStreamMatcher
    ) -> tuple[int, Outcome, bytes, float, bool, float]:
        """A plain page read into the bench's matcher (the cache form is the chip's; the
        board decodes a page while it reads the next)."""
        c = self.chip
        what = f"READ into the matcher b{block}/p{page}"
        geo = c.check_address(block, page, False)
        cycles = geo.full_address(block, page)
        body = core.page_read(c.sdr, cycles, geo.total_bytes, c.timeouts.read)
        prog = Program().ce(c.ce) + c.array_op(body, slc=False, what=what)
        got = matcher.run_matched(prog, block, page, geo.page_bytes)
        c.raise_errors(got.results, what)
        busy_us = sum(busy_steps(got.results)) / 1000.0
        return page, Outcome(got.outcome), got.data, busy_us, True, got.kernel_ns / 1000.0

    def _issue(self, prog: Program, what: str) -> tuple[Outcome, bytes, float]:
        """Run a read_when_matched form; (outcome, data out, busy µs)."""
        c = self.chip
        res = c.run(prog, what)
        busy_us = sum(busy_steps(res)) / 1000.0
        outcome = outcome_of(res.data[-1][0])
        geo = c.geometry
        n = {Outcome.MATCHED: geo.page_bytes, Outcome.DECODING_FAILURE: geo.total_bytes}
        data = b""
        if outcome in n:
            data = bytes(c.run(seq.outcome_data(c.sdr, n[outcome]), f"{what}: data out").data[0])
        return outcome, data, busy_us

    def _energy(self, busy_us: float, sensed: bool) -> float:
        """Datasheet energy (µJ) of one read_when_matched form, plus the in-chip logic's
        (the board's kernel on the fpga path draws from the board's supply, not counted)."""
        if self._spec is None:
            return operation_energy_uJ(self.chip.profile, "read", busy_us)
        logic_uJ = self._spec.logic_mW * self._spec.t_decode_match_us / 1000.0
        if sensed:
            return operation_energy_uJ(self.chip.profile, "read", busy_us) + logic_uJ
        return operation_energy_uJ(self.chip.profile, "xor", busy_us) + logic_uJ

    def _answer(
        self,
        block: int,
        page: int,
        outcome: Outcome,
        data: bytes,
        busy_us: float,
        sensed: bool,
        kernel_us: float = 0.0,
    ) -> PageAnswer:
        energy = self._energy(busy_us, sensed)
        self.stats.outcomes.append(outcome.name.lower())
        path = "chip" if self._matcher is None else "fpga"
        if outcome is Outcome.MATCHED:
            self.stats.matched += 1
            return PageAnswer(
                block, page, True, path, data, busy_us, energy, len(data), kernel_us=kernel_us
            )
        if outcome is Outcome.NOT_MATCHED:
            self.stats.not_matched += 1
            return PageAnswer(
                block, page, False, path, None, busy_us, energy, 0, kernel_us=kernel_us
            )
        self.stats.decoding_failures += 1
        plain, errors, extra_us = self.fallback_decode(block, page, data)
        hit = matches(plain, self.patterns)
        energy += operation_energy_uJ(self.chip.profile, "read", extra_us)
        return PageAnswer(
            block, page, hit, "fallback", plain if hit else None, busy_us + extra_us, energy,
            2 * len(data), errors, kernel_us,
        )

    def fallback_decode(self, block: int, page: int, raw: bytes) -> tuple[bytes, int, float]:
        """The controller's path: `raw` (the sensed page) + a soft-bit read, min-sum decode,
        then read-retry; (plain data, raw bit errors corrected, busy µs of the reads it
        added). UncorrectableData when no read offset decodes every codeword."""
        c = self.chip
        busy_us = 0.0
        bad: list[int] = []
        try:
            for retry, mV in enumerate((0.0, *RETRY_OFFSETS_MV)):
                if retry:
                    for ref in range(len(c.profile.read_offsets.references)):
                        c.set_read_offset_mV(ref, mV)
                    read = c.read_page(block, page)
                    raw, busy_us = read.data, busy_us + read.busy_ns / 1000.0
                soft = c.soft_bit_read(block, page, self.soft_delta_code)
                self.stats.soft_reads += 1
                busy_us += soft.busy_ns / 1000.0
                page_bytes = c.geometry.page_bytes
                hard = codewords(raw, page_bytes)
                weak = 1 - codewords(soft.data, page_bytes)  # soft bit 1: the sensings agree
                llr = soft_read_llrs(hard, weak, STRONG_LLR, WEAK_LLR)
                bits, ok, _ = min_sum_decode(pif_code(), llr)
                if ok.all():
                    self.stats.retries += retry
                    errors = int(np.count_nonzero(bits != hard))
                    return plain_data(block, page, bits), errors, busy_us
                bad = [int(i) for i in np.flatnonzero(~ok)]
        finally:
            c.reset_read_offsets()
        raise UncorrectableData(
            f"CoX-PM page b{block}/p{page}: sub-pages {bad} fail the min-sum decoder at every "
            f"read offset (0, {', '.join(f'{o:g}' for o in RETRY_OFFSETS_MV)} mV)"
        )
