"""`sim_store` and `sim_search`: Search-in-Memory pages and queries (characterization/sim/).

`sim_store` writes SiM pages in pairs into a block a cycle step just erased: page 2i holds
504 sorted keys, page 2i + 1 the value of each key in the same slot (a B+tree leaf split
into a key page and a value page, the paper's Sec. V-A). Keys and values come from the
unit's seed, so `sim_search` regenerates what was written instead of trusting a read.

`sim_search` runs, on each key page: a raw full read against the data written (the page's
true raw bit errors, row `sim-search:page`), `masks` searches with random field masks
compared slot by slot with the host reference on the data written (`sim-search:mask`: the
paper's Sec. III), and `queries` point queries, the last one for an absent key
(`sim-search:point`): search the key page, gather the value chunk, each answer compared
with the truth; the bytes it moved (counted from the op programs) and the bytes a full read
of both pages moves (the baseline) go into the row's detail. An `UncorrectableData` answer
is recorded as such (no answer is not a wrong answer).

The optimistic path follows the paper's policy (`policy: paper`): verification read and
the age margin `max_age_h` (default 6 months), the page's age being its retention age
(pages are stored with timestamp 0 and the step's clock reads the block's retention age).
`policy: sample-only` is the ablation without the margin. `threshold` is the search's
failed-bit threshold (default 2: candidates confirmed on their gathered, ECC-checked
chunks); `threshold: 0` is the paper's exact search. Every row names both. The raw-error
row also counts where the tolerant search's guarantee ends: data slots with more than
`threshold` raw bit errors (a match there can be missed) and chunks (data + ECC bytes)
with more than the code detects (a miscorrection there meets only the CRC-16).

`io_energy: true` (a bench with "power") runs the SiM commands at the part's match-mode
rate and the baseline's two full reads at its storage-mode rate, and puts each point
query's I/O energy and bus time from the die's supply samples into the row's detail
(`io_nJ`, `io_us`; the baseline's `baseline_io_nJ`, `baseline_io_us`): Table I.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Literal

import numpy as np
from pydantic import Field

from nandlab.bench import Bench
from nandlab.campaign.fields import Strict
from nandlab.campaign.steps.base import At, Context, Outcome, StepKind, base_row
from nandlab.campaign.unit import Unit
from nandlab.characterize.readback import DataSpec
from nandlab.errors import UncorrectableData
from nandlab.onfi_spec.search import (
    CHUNK_BYTES,
    CHUNK_DETECTS,
    CHUNK_ECC_BYTES,
    CHUNKS,
    DATA_BYTES,
    DATA_SLOTS,
    HEADER_SLOTS,
    MAX_THRESHOLD,
    SLOT_BYTES,
    SLOTS,
    encode_page,
)
from nandlab.schemes.sim_search import DEFAULT_THRESHOLD, SAFETY_MARGIN_S, SimSearch
from nandlab.schemes.sim_search_data import SearchAnswer, Traffic

PATTERN = "sim-search"


class SimStoreStep(Strict):
    """Program `pairs` key / value page pairs (pages 0 .. 2 * pairs - 1)."""

    pairs: int = Field(default=4, ge=1, le=32)


class SimSearchStep(Strict):
    """Per key page: `masks` masked searches and `queries` point queries (the last absent).
    `policy`: "paper" (verification read + age margin: pages older than `max_age_h`, their
    retention age, are read in full) or "sample-only" (the ablation: the verification read
    alone decides). `threshold`: the search's failed-bit threshold (0: the paper's exact
    search, which can answer wrong where a page younger than the margin has errors).
    The part's vendor commands are gated like test mode: `allow_test_mode: true` here and
    at the campaign's top."""

    masks: int = Field(default=4, ge=0, le=64)
    queries: int = Field(default=4, ge=1, le=64)
    policy: Literal["paper", "sample-only"] = "paper"
    max_age_h: float = Field(default=SAFETY_MARGIN_S / 3600.0, gt=0)
    threshold: int = Field(default=DEFAULT_THRESHOLD, ge=0, le=MAX_THRESHOLD)
    io_energy: bool = False
    allow_test_mode: bool = False


def page_values(seed: int, block: int, pair: int) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique keys (fields: 16-bit group, 48-bit id) and values of one page pair."""
    rng = np.random.default_rng([seed, block, pair])
    group = rng.integers(0, 16, DATA_SLOTS).astype(np.uint64) << np.uint64(48)
    ids = rng.choice(1 << 40, DATA_SLOTS, replace=False).astype(np.uint64) << np.uint64(1)
    keys = np.sort(group | ids)
    values = rng.integers(0, 1 << 63, DATA_SLOTS, dtype=np.uint64)
    return keys, values


def _stored(block: int, page: int, values: np.ndarray) -> bytes:
    return encode_page(block, page, values.astype(">u8").tobytes())


def _bench_problem(bench: Bench) -> str | None:
    profile = bench.transport.profile
    if profile is None:
        return f"bench {bench.url} declares no chip profile"
    return SimSearch.unsupported_on(bench.transport, profile)


class SimStore(StepKind[SimStoreStep]):
    name = "sim_store"
    writes_chip = True

    def bench_problem(self, bench: Bench) -> str | None:
        return _bench_problem(bench)

    def apply(self, unit: Unit, ctx: Context) -> None:
        p = self.params(unit)
        if ctx.profile.vendor.search is None:
            raise self.refuse(unit, f"profile {ctx.profile.name} has no vendor.search")
        b = ctx.block(unit)
        if not b.erased:
            raise self.refuse(unit, f"block {unit.block} must be erased by a cycle step first")
        if 2 * p.pairs > ctx.profile.geometry.wls_per_block:
            raise self.refuse(unit, f"{p.pairs} page pairs do not fit a block")
        b.written = DataSpec(PATTERN, unit.seed)
        b.wls = tuple(range(2 * p.pairs))
        b.erased = False
        b.retention_age_h, b.retention_label, b.bake_h, b.bake_temp_C = 0.0, None, 0.0, None
        b.disturb_reads = 0

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        after = self.after(unit, ctx)
        b = after.block(unit)
        assert unit.block is not None
        for pair in range(len(b.wls) // 2):
            keys, values = page_values(unit.seed, unit.block, pair)
            for page, data in ((2 * pair, keys), (2 * pair + 1, values)):
                at.chip.program_page(unit.block, page, _stored(unit.block, page, data))
        row = base_row(unit, after, at.chip_id)
        return Outcome([{**row, "block": unit.block, "operation": "sim_store", "scheme": PATTERN}])


class SimSearchKind(StepKind[SimSearchStep]):
    name = "sim_search"

    def bench_problem(self, bench: Bench) -> str | None:
        return _bench_problem(bench)

    def apply(self, unit: Unit, ctx: Context) -> None:
        if not self.params(unit).allow_test_mode:
            raise self.refuse(
                unit,
                "sim_search runs the part's vendor commands: set allow_test_mode: true on "
                "the step (and at the campaign's top)",
            )
        b = ctx.block(unit)
        if b.written is None or b.written.pattern != PATTERN:
            raise self.refuse(unit, f"block {unit.block} holds no SiM pages: add sim_store")

    def run(self, unit: Unit, ctx: Context, at: At) -> Outcome:
        p = self.params(unit)
        b = ctx.block(unit)
        assert unit.block is not None and b.written is not None
        block, seed = unit.block, b.written.seed
        age_s = b.retention_age_h * 3600.0  # pages are stored with timestamp 0
        max_age_s = p.max_age_h * 3600.0 if p.policy == "paper" else None
        sim = SimSearch(
            at.chip,
            max_age_s=max_age_s,
            clock=lambda: age_s,
            threshold=p.threshold,
            measure_io=p.io_energy,
            allow_test_mode=p.allow_test_mode,
        )
        base = {**base_row(unit, ctx, at.chip_id), "block": block, "scheme": PATTERN}
        policy = {
            "policy": p.policy,
            "max_age_h": p.max_age_h if max_age_s else None,
            "threshold": p.threshold,
        }
        rng = np.random.default_rng([unit.seed, 0x51])
        rows: list[dict[str, Any]] = []
        try:
            for pair in range(len(b.wls) // 2):
                keys, values = page_values(seed, block, pair)
                kp, vp = 2 * pair, 2 * pair + 1
                rows.append({**base, "page": kp, **_raw_errors(at, block, kp, keys, p.threshold)})
                truth = np.zeros(SLOTS, dtype=np.uint64)
                truth[HEADER_SLOTS:] = keys
                for _ in range(p.masks):
                    key = int(keys[rng.integers(0, DATA_SLOTS)])
                    mask = (0xFFFF << 48) if rng.integers(0, 2) else int(rng.integers(1, 1 << 63))
                    want = (truth & np.uint64(mask)) == np.uint64(key & mask)
                    want[:HEADER_SLOTS] = False
                    rows.append({**base, "page": kp, **_mask_row(sim, block, kp, key, mask, want)})
                picks = [int(i) for i in rng.integers(0, DATA_SLOTS, p.queries - 1)]
                for i in [*picks, None]:
                    # keys are even: key 0 | 1 is absent
                    key = int(keys[0]) | 1 if i is None else int(keys[i])
                    want_value = None if i is None else int(values[i])
                    rows.append(
                        {**base, "page": kp, **_point_row(sim, block, (kp, vp), key, want_value)}
                    )
        finally:  # the bus back where it was, even when a query raised
            sim.restore_interface()
        for r in rows:  # every row says which policy decided the optimistic path
            r["detail"] = json.dumps({**json.loads(r.get("detail", "{}")), **policy})
        return Outcome(rows)


def _raw_errors(
    at: At, block: int, page: int, keys: np.ndarray, threshold: int
) -> dict[str, Any]:
    written = np.frombuffer(_stored(block, page, keys), dtype=np.uint8)
    read = np.frombuffer(at.chip.read_page(block, page).data, dtype=np.uint8)
    flips = np.unpackbits(written ^ read)
    slots = flips[: DATA_BYTES * 8].reshape(SLOTS, SLOT_BYTES * 8).sum(axis=1)[HEADER_SLOTS:]
    chunks = flips[: DATA_BYTES * 8].reshape(CHUNKS, CHUNK_BYTES * 8).sum(axis=1)
    chunks += flips[DATA_BYTES * 8 :].reshape(CHUNKS, CHUNK_ECC_BYTES * 8).sum(axis=1)
    detail = {
        "slot_errors_max": int(slots.max()),
        "slots_over_threshold": int((slots > threshold).sum()),
        "chunks_over_detect": int((chunks > CHUNK_DETECTS).sum()),
    }
    return {
        "operation": "sim-search:page",
        "reference": "written",
        "bits": int(written.size * 8),
        "errors_0to1": int(np.unpackbits(~written & read).sum()),
        "errors_1to0": int(np.unpackbits(written & ~read).sum()),
        "detail": json.dumps(detail),
    }


def _moved(before: Traffic, after: Traffic) -> dict[str, int]:
    return {
        "chip_out": after.chip_out - before.chip_out,
        "chip_in": after.chip_in - before.chip_in,
        "host": after.host - before.host,
    }


def _cost(before: Traffic, after: Traffic) -> dict[str, Any]:
    """The dataset's sensings, latency and energy columns for what ran between the two."""
    return {
        "sensings": after.sensings - before.sensings,
        "latency_us": after.busy_us - before.busy_us,
        "energy_uJ": after.energy_uJ - before.energy_uJ,
        "energy_measured": False,
    }


def _mask_row(
    sim: SimSearch, block: int, page: int, key: int, mask: int, want: np.ndarray
) -> dict[str, Any]:
    before = replace(sim.traffic)
    try:
        hit: SearchAnswer | None = sim.search(block, page, key, mask)
    except UncorrectableData:
        hit = None
    detail: dict[str, Any] = {"key": f"{key:016x}", "mask": f"{mask:016x}"}
    row: dict[str, Any] = {
        "operation": "sim-search:mask",
        "reference": "host",
        **_cost(before, sim.traffic),
    }
    if hit is None:
        return {**row, "detail": json.dumps({**detail, "path": "uncorrectable"})}
    got = hit.matches
    detail.update(
        path=hit.path, retries=hit.retries, matches=int(want.sum()), candidates=hit.candidates
    )
    return {
        **row,
        "bits": DATA_SLOTS,
        "errors_0to1": int((got & ~want).sum()),
        "errors_1to0": int((~got & want).sum()),
        "detail": json.dumps(detail),
    }


def _point_row(
    sim: SimSearch, block: int, pages: tuple[int, int], key: int, want: int | None
) -> dict[str, Any]:
    before = replace(sim.traffic)
    detail: dict[str, Any] = {"key": f"{key:016x}"}
    got: int | None = None
    try:
        hit = sim.search(block, pages[0], key)
        detail.update(path=hit.path, retries=hit.retries, candidates=hit.candidates)
        if hit.slots:
            slot = hit.slots[0]
            got = sim.slots_of(block, pages[1], [slot])[slot]
    except UncorrectableData:
        detail["path"] = "uncorrectable"
    detail["found"] = got is not None
    done = replace(sim.traffic)
    detail.update(_moved(before, done))
    # the baseline: both pages read in full (storage mode when measuring I/O)
    page_bytes = sim.chip.geometry.page_bytes
    for pg in pages:
        sim.page_read(block, pg, page_bytes)
    baseline = _moved(done, sim.traffic)
    detail["baseline_chip_out"] = baseline["chip_out"]
    # I/O time at the part's declared bus rates: match mode for SiM, storage mode for reads
    rates = sim.chip.profile.vendor.search
    assert rates is not None
    detail["bus_us"] = (detail["chip_out"] + detail["chip_in"]) / rates.match_bus_MTps
    detail["baseline_bus_us"] = detail["baseline_chip_out"] / rates.storage_bus_MTps
    if sim.measure_io:
        detail["io_nJ"], detail["io_us"] = (
            done.io_nJ - before.io_nJ,
            (done.io_ns - before.io_ns) / 1e3,
        )
        detail["baseline_io_nJ"] = sim.traffic.io_nJ - done.io_nJ
        detail["baseline_io_us"] = (sim.traffic.io_ns - done.io_ns) / 1e3
    return {
        "operation": "sim-search:point",
        "reference": "host",
        **_cost(before, done),
        "bits": 1,
        "errors_0to1": int(got is not None and got != want),
        "errors_1to0": int(got is None and want is not None and detail["path"] != "uncorrectable"),
        "detail": json.dumps(detail),
    }


STORE_STEP = SimStore()
STEP = SimSearchKind()
