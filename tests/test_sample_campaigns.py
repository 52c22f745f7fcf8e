"""The sample campaigns measure what their headers say, read from their seeded rows.

The rows are the golden ones, which tests/test_rows_unchanged.py proves the campaign files
still give; so this costs no run of its own.
"""

from __future__ import annotations

from collections import defaultdict

import pyarrow.parquet as pq
from golden import rows  # tests/ is on sys.path: pytest's rootdir conftest


def _rows(name: str) -> list[dict]:
    return pq.read_table(rows.GOLDEN / f"{name}.parquet").to_pylist()


def test_read_disturb_errors_grow_with_reads() -> None:
    errors: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
    for r in _rows("mlc-read-disturb"):
        if r["operation"] == "rber":
            e = errors[(int(r["pec"]), int(r["disturb_reads"]))]
            e[0] += int(r["errors_0to1"])
            e[1] += int(r["errors_1to0"])
    assert sorted(errors) == [(p, n) for p in (3000, 10000) for n in (0, 1000, 10000)]
    for pec in (3000, 10000):
        # disturb raises Vth: 1->0 errors (a cell read above its reference) grow with reads.
        # Each condition reads other cells (2.3 Mbit), so a count carries Poisson noise of
        # about its square root: 1000 reads add fewer errors than that (35 -> 30 at 3K P/E in
        # the golden rows), so that step may not fall beyond the noise, and 10000 reads must
        # rise clearly above it.
        up = [errors[(pec, n)][1] for n in (0, 1000, 10000)]
        assert up[1] >= up[0] - 3 * up[0] ** 0.5, (pec, up)
        assert up[2] > up[0] + 3 * up[0] ** 0.5, (pec, up)
        assert up[2] > up[1] + 3 * up[1] ** 0.5, (pec, up)
        # in total too (0->1 errors may fall: disturb lifts cells off a low read), beyond noise
        before = sum(errors[(pec, 0)])
        assert sum(errors[(pec, 10000)]) > before + 3 * before**0.5, pec
    growth = {p: errors[(p, 10000)][1] - errors[(p, 0)][1] for p in (3000, 10000)}
    assert growth[10000] > growth[3000]  # a worn block is disturbed faster


def test_vth_sweep_shows_four_states_and_retention_shift() -> None:
    hist: dict[tuple[int, float, str], dict[float, int]] = defaultdict(dict)
    below: dict[tuple[int, float, str], int] = {}
    offsets: dict[tuple[int, float], list[list[int]]] = defaultdict(list)
    for r in _rows("mlc-vth-sweep"):
        if r["pec"] is None:  # the bake's row
            continue
        key = (int(r["pec"]), float(r["retention_age_h"]))
        if r["operation"] == "vth" and r["vth_mV"] is not None:
            hist[(*key, r["state"])][float(r["vth_mV"])] = int(r["cells"])
        elif r["operation"] == "vth":
            below[(*key, r["state"])] = below.get((*key, r["state"]), 0) + int(
                r["cells"]
            )
        elif r["operation"] == "read_retry":
            offsets[key].append(list(r["offsets"]))
    conditions = {(p, a) for p, a, _ in hist}
    assert conditions == {(p, a) for p in (1, 3000, 10000) for a in (0.0, 8760.0)}
    for pec, age in conditions:
        peaks = []
        for state in ("L1", "L2", "L3"):
            h = hist[(pec, age, state)]
            peaks.append(max(h, key=h.__getitem__))
            assert sum(h.values()) > 30_000  # the whole state inside the sweep
        # three programmed peaks, each well apart, above the erased state
        assert peaks[0] + 500 < peaks[1] and peaks[1] + 500 < peaks[2], (
            pec,
            age,
            peaks,
        )
        # the erased state peaks at the bottom of the sweep (the sense floor) or below it,
        # far under L1's peak
        erased = hist[(pec, age, "L0")]
        assert max(erased, key=erased.__getitem__) <= min(erased) + 100
        assert below[(pec, age, "L0")] > 0
        assert max(erased) < peaks[0]
    mean = {
        k: sum(v * n for v, n in h.items()) / sum(h.values())
        for k, h in hist.items()
        if k[2] == "L3"
    }
    assert mean[(10000, 8760.0, "L3")] < mean[(10000, 0.0, "L3")] - 20  # charge loss
    # read retry: no shift on fresh data, VREF0 up and VREF2 down on the worn, aged block
    assert all(o == [0, 0, 0] for o in offsets[(1, 0.0)])
    aged = offsets[(10000, 8760.0)]
    assert any(o[0] > 0 and o[2] < 0 for o in aged), aged
