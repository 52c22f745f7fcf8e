"""What a run reads from the chip ledger when it starts and writes into it as it goes.

At the start: each block's P/E count and, for data already on the chip, the bakes
it went through since its block's erase (run.json keeps both, so a resumed run
rebuilds the same context). After each unit: the unit's events (the wear the chip
layer counted, bakes) under the unit's key, so a repeated unit is counted once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from nandlab.campaign.bench_session import BenchSession
from nandlab.campaign.steps import BlockState, Outcome
from nandlab.campaign.unit import Unit
from nandlab.dataset.sqlite import utc_now
from nandlab.ledger import Ledger
from nandlab.onfi.wear import BlockCycles


def start_state(
    ledger: Ledger | None, ids: dict[int, str], ces: Iterable[int], blocks: list[int]
) -> dict[str, Any]:
    """run.json's ledger snapshot: `ledger_start` (ce -> block -> P/E count) and
    `ledger_start_retention` (ce -> block -> (equivalent age h, bake labels)) for the
    blocks whose data was baked since their erase. `ledger` None: a fresh virtual die (no
    history: the run resets the chip's ledger once every check has passed)."""
    pec: dict[str, dict[str, int]] = {}
    retention: dict[str, dict[str, tuple[float, str | None]]] = {}
    for ce in ces:
        if ledger is None:
            pec[str(ce)] = dict.fromkeys(map(str, blocks), 0)
            continue
        pec[str(ce)] = {str(b): ledger.pec(ids[ce], b) for b in blocks}
        for b in blocks:
            age_h, label = ledger.data_retention(ids[ce], b)
            if age_h > 0:
                retention.setdefault(str(ce), {})[str(b)] = (age_h, label)
    return {"ledger_start": pec, "ledger_start_retention": retention}


def start_blocks(meta: dict[str, Any]) -> dict[tuple[int, int], BlockState]:
    """The blocks' states at the run's start, from run.json's ledger snapshot."""
    blocks = {
        (int(ce), int(b)): BlockState(pec=int(pec))
        for ce, per in meta["ledger_start"].items()
        for b, pec in per.items()
    }
    # data found on the chip (a holds step) is as old as the bakes since its block's erase
    for ce, per in meta.get("ledger_start_retention", {}).items():
        for b, (age_h, label) in per.items():
            state = blocks[(int(ce), int(b))]
            state.retention_age_h, state.retention_label = float(age_h), label
    return blocks


def book_unit(
    ledger: Ledger, unit: Unit, outcome: Outcome, ids: dict[int, str], run_id: str
) -> None:
    """Write the unit's events: on its chip, or on every chip for a bench-wide unit."""
    targets = [ids[unit.ce]] if unit.ce is not None else list(ids.values())
    for ev in outcome.ledger:
        ev = dict(ev)
        kind = ev.pop("kind")
        block = ev.pop("block", unit.block)  # another block than the unit's: scratch
        pec_delta = int(ev.pop("pec_delta", 0)) if kind == "cycle" else 0
        for uid in targets:
            ledger.record(
                uid,
                run_id,
                unit.key,
                kind,
                block if block is not None else -1,
                pec_delta=pec_delta,
                fast_forwarded=ev.get("fast_forwarded"),
                detail=ev,
            )


def book_partial_wear(
    session: BenchSession, ledger: Ledger, ids: dict[int, str], run_id: str, unit: str | None
) -> None:
    """Book the erases of the unit that stopped half-way; the die image keeps them."""
    if unit is None:
        return
    wear = {ids[ce]: chip.wear.take() for ce, chip in session.chips.items()}
    book_wear_taken(ledger, wear, run_id, unit, session.virtual)


def book_wear_taken(
    ledger: Ledger, wear: Mapping[str, Mapping[int, BlockCycles]], run_id: str, unit: str,
    virtual: bool,
) -> None:
    """Book `wear` (unique ID -> the chip's `WearTally.take()`) of the stopped unit `unit`.
    On a virtual die it goes under the unit's own key, so the retry on resume (which
    restores the die to the checkpoint before the unit) replaces it; a real chip keeps both
    attempts' wear, so it gets a key of its own."""
    key = unit if virtual else f"{unit}@stopped-{utc_now()}"
    for uid, taken in wear.items():
        ledger.record_wear(uid, run_id, key, taken)
