"""The step kinds one-off commands are built from: erase (one real P/E cycle), program with an
explicit pattern seed, holds (data written before the run)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from nandlab.campaign.runner import run_campaign
from nandlab.campaign.schema import Campaign
from nandlab.errors import UsageError
from nandlab.ops.pattern import page_pattern

BENCH = "sim://mlc-64l?seed=8"
BLOCK = 30


def _run(tmp_path: Path, steps: list[dict[str, Any]], *, fresh: bool = False) -> list[dict]:
    campaign = Campaign.model_validate(
        {"name": "oneoff", "bench": BENCH, "fresh": fresh, "blocks": [BLOCK], "steps": steps}
    )
    return run_campaign(campaign, tmp_path / "runs").rows()


def _rber(rows: list[dict]) -> float:
    r = [x for x in rows if x["operation"] == "rber"]
    return sum(x["errors_0to1"] + x["errors_1to0"] for x in r) / sum(x["bits"] for x in r)


def test_erase_adds_one_cycle_to_the_ledger_count(tmp_path: Path) -> None:
    steps = [{"erase": {}}, {"program": {"wls": [0]}}, {"measure": {"what": "rber"}}]
    first = _run(tmp_path, steps, fresh=True)
    second = _run(tmp_path, steps)
    assert {r["pec"] for r in first} == {1} and {r["pec"] for r in second} == {2}
    (erase,) = [r for r in second if r["operation"] == "erase"]
    assert erase["latency_us"] > 0 and not erase["fast_forwarded"]


def test_program_seed_writes_that_pattern_and_holds_reads_it_back(tmp_path: Path) -> None:
    written = _run(
        tmp_path,
        [
            {"erase": {}},
            {"program": {"wls": [0, 1], "seed": 7}},
            {"measure": {"what": "rber", "wls": [0]}},
        ],
        fresh=True,
    )
    assert {r["seed"] for r in written if r["operation"] == "program"} == {7}
    assert _rber(written) < 1e-3
    held = _run(tmp_path, [{"holds": {"wls": [0, 1], "seed": 7}}, {"measure": {"what": "rber"}}])
    assert {r["operation"] for r in held} == {"rber", "read"}
    assert _rber(held) < 1e-3
    wrong = _run(tmp_path, [{"holds": {"wls": [0], "seed": 8}}, {"measure": {"what": "rber"}}])
    assert 0.4 < _rber(wrong) < 0.6  # another seed's random data: half the bits differ


def test_program_seed_is_the_pattern_generators_seed(tmp_path: Path) -> None:
    from nandlab.onfi.chip import Chip
    from nandlab.profiles import load_profile
    from nandlab.transport import open_bench

    _run(tmp_path, [{"erase": {}}, {"program": {"wls": [0], "seed": 3}}], fresh=True)
    geo = load_profile("mlc-64l").geometry
    bench = open_bench(BENCH)
    try:
        got = Chip(bench).read_page(BLOCK, 0).data
    finally:
        bench.close()
    want = page_pattern(
        "random",
        geo.page_bytes + geo.spare_bytes,
        seed=3,
        block=BLOCK,
        page=0,
        marker_column=geo.page_bytes,
    )
    assert sum(bin(a ^ b).count("1") for a, b in zip(got, want, strict=True)) < 100


@pytest.mark.parametrize(
    ("holds", "needle"),
    [({"wls": [999]}, "WL 999 outside"), ({"wls": [0], "pattern": "file:x.bin"}, "file")],
)
def test_holds_refuses_what_it_cannot_regenerate(
    tmp_path: Path, holds: dict[str, Any], needle: str
) -> None:
    with pytest.raises(UsageError, match=needle):
        _run(tmp_path, [{"holds": holds}, {"measure": {"what": "rber"}}], fresh=True)
