"""`cox_store` and `cox_pm`: CoX-PM pages and pattern scans (characterization/pif/).

`cox_store` writes `pages` pages in the CoX-PM format into a block a cycle step just
erased: text of random words from the unit's seed, every third page carrying one of the
planted strings. `cox_pm` regenerates what was written (nothing trusts a read) and
records, per page:

- `cox-pm:page`: a raw full read against the stored page written: the page's true raw bit
  errors, and per 1 KiB codeword in the detail (`codeword_errors`, the paper's Fig. 7);
- `cox-pm:match`: one scan of the block with read_when_matched (the cache form unless
  `cache: false`): the chip's outcome, the path of the answer (chip or fallback), the
  answer against the host reference on the data written (a false match is an error 0->1,
  a missed one 1->0), busy time, energy and the bytes handed to the host beside a full
  read's (the baseline). A page no read offset decodes is recorded as `uncorrectable`
  (no answer is not a wrong answer).
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
from pydantic import Field, field_validator

from nandlab.bench import Bench
from nandlab.campaign.fields import Strict
from nandlab.campaign.steps.base import At, Context, Outcome, StepKind, base_row
from nandlab.campaign.unit import Unit
from nandlab.characterize.readback import DataSpec
from nandlab.errors import RangeError, UncorrectableData
from nandlab.onfi_spec.coxpm import (
    SUBPAGE_BYTES,
    codewords,
    encode_page,
    layout_problem,
    pattern_bytes,
)
from nandlab.schemes.cox_pm import CoxPmScan, PageAnswer

PATTERN = "cox-pm"
PERMIT = "set allow_test_mode: true on the step (and at the campaign's top)"
WORDS = (
    "select", "from", "where", "group", "order", "by", "join", "left", "inner", "outer",
    "union", "having", "count", "sum", "avg", "nation", "region", "supplier", "customer",
    "orders", "lineitem", "part", "partsupp", "shipdate", "discount",
)  # fmt: skip
PLANTS = ("special requests", "green almond", "PROMO BRUSHED")
PLANT_EVERY = 3


class CoxStoreStep(Strict):
    """Program `pages` pages (0 .. pages - 1); every third holds a planted string."""

    pages: int = Field(default=12, ge=1, le=576)


class CoxPmStep(Strict):
    """Scan the stored pages for `patterns` (1..8 of 1..32 bytes, UTF-8). The part's
    vendor commands are gated like test mode: `allow_test_mode: true` here and at the
    campaign's top."""

    patterns: list[str] = Field(default_factory=lambda: list(PLANTS[:2]), min_length=1)
    cache: bool = True
    allow_test_mode: bool = False

    @field_validator("patterns")
    @classmethod
    def _fit_the_matcher(cls, v: list[str]) -> list[str]:
        """Refused when the campaign is read, not after the block is programmed."""
        try:
            pattern_bytes([s.encode() for s in v])
        except RangeError as exc:
            raise ValueError(str(exc)) from None
        return v


def page_text(seed: int, block: int, page: int, page_bytes: int) -> bytes:
    """The plain data of one page (seeded words, maybe one planted string)."""
    rng = np.random.default_rng([seed, block, page])
    text = " ".join(WORDS[i] for i in rng.integers(0, len(WORDS), page_bytes // 3)).encode()
    text = text[:page_bytes]
    if page % PLANT_EVERY == 0:
        plant = PLANTS[int(rng.integers(0, len(PLANTS)))].encode()
        at = int(rng.integers(0, page_bytes - len(plant)))
        text = text[:at] + plant + text[at + len(plant) :]
    return text


def _bench_problem(bench: Bench) -> str | None:
    profile = bench.transport.profile
    if profile is None:
        return f"bench {bench.url} declares no chip profile"
    return CoxPmScan.unsupported_on(bench.transport, profile)


class CoxStore(StepKind[CoxStoreStep]):
    name = "cox_store"
    writes_chip = True

    def bench_problem(self, bench: Bench) -> str | None:
        return _bench_problem(bench)

    def apply(self, unit: Unit, ctx: Context) -> None:
        p = self.params(unit)
        geo = ctx.profile.geometry
        problem = layout_problem(geo.page_bytes, geo.spare_bytes)
        if problem is not None:
            name = ctx.profile.name
            raise self.refuse(unit, f"profile {name} cannot hold CoX-PM pages: {problem}")
        b = ctx.block(unit)
        if not b.erased:
            raise self.refuse(unit, f"block {unit.block} must be erased by a cycle step first")
        if p.pages > ctx.profile.geometry.pages_per_block:
            raise self.refuse(unit, f"{p.pages} pages do not fit a block")
        b.written = DataSpec(PATTERN, unit.seed)
        b.wls = tuple(range(p.pages))
        b.erased = False
        b.retention_age_h, b.retention_label, b.bake_h, b.bake_temp_C = 0.0, None, 0.0, None
        b.disturb_reads = 0

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        after = self.after(unit, ctx)
        assert unit.block is not None
        scan = _scan(at)  # refuses a bench and part without CoX-PM before programming
        size = at.chip.geometry.page_bytes
        for page in after.block(unit).wls:
            scan.store(unit.block, page, page_text(unit.seed, unit.block, page, size))
        row = base_row(unit, after, at.chip_id)
        return Outcome([{**row, "block": unit.block, "operation": "cox_store", "scheme": PATTERN}])


class CoxPmKind(StepKind[CoxPmStep]):
    name = "cox_pm"

    def bench_problem(self, bench: Bench) -> str | None:
        return _bench_problem(bench)

    def apply(self, unit: Unit, ctx: Context) -> None:
        if not self.params(unit).allow_test_mode:
            raise self.refuse(unit, f"cox_pm runs the part's vendor commands: {PERMIT}")
        b = ctx.block(unit)
        if b.written is None or b.written.pattern != PATTERN:
            raise self.refuse(unit, f"block {unit.block} holds no CoX-PM pages: add cox_store")

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        p = self.params(unit)
        b = ctx.block(unit)
        assert unit.block is not None and b.written is not None
        block, seed = unit.block, b.written.seed
        geo = at.chip.geometry
        texts = {pg: page_text(seed, block, pg, geo.page_bytes) for pg in b.wls}
        base = {**base_row(unit, ctx, at.chip_id), "block": block, "scheme": PATTERN}
        rows = [{**base, "page": pg, **_raw_errors(at, block, pg, t)} for pg, t in texts.items()]
        scan = _scan(at, allow_test_mode=p.allow_test_mode)
        patterns = [s.encode() for s in p.patterns]
        scan.set_patterns(patterns)
        answers: dict[int, PageAnswer | None] = {}
        try:
            answers = {a.page: a for a in scan.scan(block, b.wls, cache=p.cache)}
        except UncorrectableData:
            # one page beyond the controller too: page by page, so the others still answer
            for pg in b.wls:
                try:
                    answers[pg] = scan.scan(block, [pg], cache=False)[0]
                except UncorrectableData:
                    answers[pg] = None
        regex = re.compile(b"|".join(re.escape(s) for s in patterns))
        for pg, text in texts.items():
            want = regex.search(text) is not None
            rows.append({**base, "page": pg, **_match_row(answers[pg], want, geo.page_bytes)})
        return Outcome(rows)


def _scan(at: At, *, allow_test_mode: bool = False) -> CoxPmScan:
    """The scan on the part's own logic, or on the bench's read-stream matcher (storing
    needs no permit, scanning does)."""
    matcher = at.bench.matcher if at.bench.has("matcher") else None
    return CoxPmScan(at.chip, matcher=matcher, allow_test_mode=allow_test_mode)


def _raw_errors(at: At, block: int, page: int, text: bytes) -> dict[str, Any]:
    geo = at.chip.geometry
    stored = encode_page(block, page, text, geo.page_bytes, geo.spare_bytes)
    read = at.chip.read_page(block, page).data
    w, r = np.frombuffer(stored, dtype=np.uint8), np.frombuffer(read, dtype=np.uint8)
    per_cw = (codewords(read, geo.page_bytes) != codewords(stored, geo.page_bytes)).sum(axis=1)
    frames = geo.page_bytes // SUBPAGE_BYTES
    return {
        "operation": "cox-pm:page",
        "reference": "written",
        "bits": int(w.size * 8),
        "errors_0to1": int(np.unpackbits(~w & r).sum()),
        "errors_1to0": int(np.unpackbits(w & ~r).sum()),
        "detail": json.dumps({"codeword_errors": [int(e) for e in per_cw[:frames]]}),
    }


def _match_row(a: PageAnswer | None, want: bool, page_bytes: int) -> dict[str, Any]:
    row: dict[str, Any] = {"operation": "cox-pm:match", "reference": "host"}
    if a is None:
        return {**row, "detail": json.dumps({"path": "uncorrectable", "want": want})}
    detail = {
        "path": a.path,
        "matched": a.matched,
        "want": want,
        "host_bytes": a.host_bytes,
        "baseline_host_bytes": page_bytes,
        "corrected_bits": a.bit_errors,
        "kernel_us": a.kernel_us,
    }
    return {
        **row,
        "sensings": 1,
        "latency_us": a.busy_us,
        "energy_uJ": a.energy_uJ,
        "energy_measured": False,
        "bits": 1,
        "errors_0to1": int(a.matched and not want),
        "errors_1to0": int(want and not a.matched),
        "detail": json.dumps(detail),
    }


STORE_STEP = CoxStore()
STEP = CoxPmKind()
