"""The dashboard's parts without a browser: who may connect, which campaigns need the
confirmation, the progress arithmetic, and the figures' numbers (the browser test in
tests/test_dashboard_browser.py drives the whole)."""

from __future__ import annotations

import json
import math
import os
import socket
from pathlib import Path

import pytest

from nandlab.dataset.catalog import catalog
from nandlab.dataset.store import RunStore
from nandlab.errors import RefusedOperation, UsageError
from nandlab.serve import figures
from nandlab.serve.auth import is_loopback, read_token_file
from nandlab.serve.jobs import Jobs, changes_chip
from nandlab.serve.progress import find_run, run_progress

CAMPAIGN = """\
name: c
bench: sim://mlc-64l?seed=1
blocks: [10]
steps:
{steps}
"""


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("127.3.2.1", True), ("::1", True), ("[::1]", True),
     ("localhost", True), ("0.0.0.0", False), ("::", False), ("192.168.1.20", False),
     ("lab-pc.example", False)],
)
def test_loopback_addresses(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_token_file(tmp_path: Path) -> None:
    good = tmp_path / "token"
    good.write_text("  s3cret-token-of-20-chars \nsecond line\n")
    assert read_token_file(good) == "s3cret-token-of-20-chars"
    short = tmp_path / "short"
    short.write_text("abc\n")
    with pytest.raises(UsageError, match="16 characters"):
        read_token_file(short)
    with pytest.raises(UsageError, match="cannot be read"):
        read_token_file(tmp_path / "missing")


def test_which_campaigns_need_confirmation(tmp_path: Path) -> None:
    reads = tmp_path / "reads.yaml"
    reads.write_text(CAMPAIGN.format(
        steps="  - measure: {what: [rber]}\n  - bake: {retention: 1y@30C}\n  - wait: {hours: 1}"))
    writes = tmp_path / "writes.yaml"
    writes.write_text(CAMPAIGN.format(
        steps="  - cycle: {pec: 100}\n  - program: {wls: 0-1}\n  - measure: {what: [rber]}"))
    assert changes_chip(reads) == []
    assert changes_chip(writes) == ["step 1 cycle", "step 2 program"]

    out = tmp_path / "runs"
    jobs = Jobs(out)
    with pytest.raises(RefusedOperation, match="step 1 cycle, step 2 program"):
        jobs.start(writes, confirmed=False)
    with pytest.raises(UsageError, match="not a campaign file"):
        jobs.start(tmp_path / "nothing.yaml", confirmed=True)
    assert not out.exists()  # nothing was started, no folder made


def _run_folder(out: Path, units: int, done: list[tuple[int, int, float]]) -> Path:
    """A run folder as the runner leaves it: run.json (status running, this process) and
    `done` units (rows, chip time ns, wall s) committed to its store."""
    folder = out / "r1"
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({
        "run_id": "r1", "campaign": "c", "status": "running", "units": units,
        "campaign_file": "c.yaml", "blocks": list(range(units)),
        "campaign_text": "name: c\nbench: sim://mlc-64l?seed=1\n"
                         f"blocks: {{range: {{from: 0, to: {units - 1}}}}}\n"
                         "steps:\n  - measure: {what: [rber]}\n",
        "start_utc": "2026-11-25T10:00:00Z", "pid": os.getpid(), "host": socket.gethostname(),
        "bench": {"url": "sim://mlc-64l?seed=1", "transport": "sim", "roles": ["power", "oven"],
                  "instruments": {"power": {"kind": "virtual", "model": "die log"}},
                  "bitstream": "nandlab_core v3"},
        "temperatures_C": {"ambient": 30.0, "measured_at_start": None},
        "nandlab_version": "0.1.0", "git_commit": "0123456789abcdef", "git_dirty": True,
    }))
    store = RunStore(folder)
    for idx, (rows, chip_ns, wall_s) in enumerate(done):
        store.commit_unit(idx, f"s00.measure/ce0/b{idx}", idx,
                          [{"operation": "rber", "bits": 8}] * rows,
                          checkpoint=None, chip_time_ns=chip_ns, wall_s=wall_s)
    store.close()
    return folder


def test_progress_counts_and_time_left(tmp_path: Path) -> None:
    _run_folder(tmp_path, 10, [(3, 2_000_000_000, 0.5), (5, 4_000_000_000, 1.5)])
    (entry,) = catalog(tmp_path)
    doc = run_progress(entry)
    assert (doc["units_done"], doc["units_total"], doc["rows"]) == (2, 10, 8)
    assert doc["last_unit"] == {"idx": 1, "key": "s00.measure/ce0/b1"}
    # measuring now: the plan's first unit not committed, with its chip and block
    assert doc["current_unit"] == {"idx": 2, "key": "s00.measure/ce0/b2", "kind": "measure",
                                   "ce": 0, "block": 2, "point": {}}
    assert doc["wall_s"] == pytest.approx(2.0)
    assert doc["chip_s"] == pytest.approx(6.0)
    assert doc["rows_per_s"] == pytest.approx(8 / 2.0)
    # 8 units left at the mean so far: 1 s of wall and 3 s of chip time each
    assert doc["eta_s"] == pytest.approx(8.0)
    assert doc["chip_eta_s"] == pytest.approx(24.0)
    assert doc["bench"] == [
        ("bench", "sim://mlc-64l?seed=1"),
        ("roles", "power, oven"),
        ("power instrument", "kind virtual, model die log"),
        ("temperatures (°C)", "ambient 30.0, measured_at_start -"),
        ("bitstream", "nandlab_core v3"),  # what a transport adds is shown under its name
        ("nandlab", "0.1.0 (git 0123456789, dirty)"),
    ]


def test_a_run_is_found_by_its_id_even_in_a_renamed_folder(tmp_path: Path) -> None:
    folder = _run_folder(tmp_path, 3, [(1, 1, 0.1)])
    found = find_run(tmp_path, "r1")
    assert found is not None and Path(found.folder) == folder
    moved = folder.rename(tmp_path / "archived-r1")
    found = find_run(tmp_path, "r1")
    assert found is not None and Path(found.folder) == moved
    assert find_run(tmp_path, "..") is None and find_run(tmp_path, "r2") is None


def _wilson(k: int, n: int) -> tuple[float, float]:
    """The 95 % Wilson score interval, written out from its textbook formula."""
    z = 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (0.0 if k == 0 else centre - half), centre + half


def test_rber_figure_bands_are_wilson_intervals() -> None:
    rows = [
        {"operation": "rber", "pec": 1, "retention_label": "fresh", "page_type": "LSB",
         "bits": 100_000, "errors_0to1": 0, "errors_1to0": 0},
        {"operation": "rber", "pec": 3000, "retention_label": "fresh", "page_type": "LSB",
         "bits": 60_000, "errors_0to1": 7, "errors_1to0": 5},
        {"operation": "rber", "pec": 3000, "retention_label": "fresh", "page_type": "LSB",
         "bits": 40_000, "errors_0to1": 3, "errors_1to0": 0},
        {"operation": "read", "pec": 3000, "latency_us": 50.0},
    ]
    fig = figures.rber_vs_pec(rows)
    upper, lower, line = fig.data
    assert list(line.x) == [1, 3000]
    low_0, high_0 = _wilson(0, 100_000)
    low_1, high_1 = _wilson(15, 100_000)  # the two pages at 3000 P/E pooled
    assert list(upper.y) == pytest.approx([high_0, high_1], rel=1e-9)
    # no error: drawn at its upper bound, as a downward triangle; its band goes to the
    # bottom of the plot (a tenth of the smallest non-zero bound)
    assert list(line.y) == pytest.approx([high_0, 15 / 100_000], rel=1e-9)
    assert list(line.marker.symbol) == ["triangle-down", "circle"]
    assert low_0 == 0.0
    assert list(lower.y) == pytest.approx([min(high_0, low_1) / 10, low_1], rel=1e-9)
    assert lower.fill == "tonexty"


def test_scheme_errors_per_scheme_and_condition() -> None:
    base = {"scheme": "mcflash", "operation": "compute:and", "mode": "slc",
            "retention_label": "fresh", "errors_1to0": 0}
    rows = [
        {**base, "pec": 1, "bits": 50_000, "errors_0to1": 4},
        {**base, "pec": 1, "bits": 50_000, "errors_0to1": 6},
        {**base, "pec": 3000, "bits": 100_000, "errors_0to1": 0},
        {"operation": "rber", "pec": 1, "bits": 8, "errors_0to1": 8, "errors_1to0": 0},
    ]
    fresh, worn = figures.scheme_errors(rows).data
    assert (fresh.name, list(fresh.x)) == ("P/E 1, fresh", ["mcflash and slc"])
    assert list(fresh.y) == pytest.approx([10 / 100_000])
    low, high = _wilson(10, 100_000)
    assert list(fresh.error_y.array) == pytest.approx([high - 10 / 100_000])
    assert list(fresh.error_y.arrayminus) == pytest.approx([10 / 100_000 - low])
    assert list(worn.y) == pytest.approx([_wilson(0, 100_000)[1]])
    assert list(worn.marker.symbol) == ["triangle-down"]


def test_heatmap_places_each_block() -> None:
    fig = figures.wear_heatmap("ab", [{"block": 200, "pec": 7}, {"block": 3, "pec": 1}])
    z = fig.data[0].z
    assert len(z) == 200 // 64 + 1
    assert z[3][8] == 7 and z[0][3] == 1
    assert sum(v is not None for row in z for v in row) == 2
    # over the whole chip when its size is known
    z = figures.wear_heatmap("ab", [{"block": 200, "pec": 7}], chip_blocks=1024).data[0].z
    assert len(z) == 1024 // 64 and z[3][8] == 7


def test_unknown_figure_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="rber-pec"):
        figures.run_figure("nope", [])
