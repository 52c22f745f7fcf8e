"""Vth sweep and RBER on an in-memory virtual die (no die image written)."""

from __future__ import annotations

import numpy as np
import pytest

from nandlab.characterize.readback import DataSpec, measure_pages, program_pages, wl_data
from nandlab.characterize.vth import measure_vth
from nandlab.characterize.wear import cycle_block
from nandlab.errors import AddressError, UsageError
from nandlab.onfi import Chip
from nandlab.transport import SimTransport


@pytest.fixture
def bench():
    with SimTransport("mlc-planar", seed=5, persist=False) as transport:
        yield transport, Chip(transport)


def test_vth_histograms_are_ordered_and_offsets_restored(bench):
    transport, chip = bench
    profile = chip.profile
    block, wl = 11, 4
    calls = []
    chip.erase_block(block)
    spec = DataSpec("random", 9)
    program_pages(chip, block, [wl], spec, {})
    result = measure_vth(
        chip,
        profile,
        block,
        wl,
        wl_data(profile, spec, block, wl),
        code_step=4,
        progress=lambda *a: calls.append(a),
    )
    means = [s.mean_mV for s in result.states]
    assert means == sorted(means)
    for s, verify in zip(result.states[1:], profile.physics.verify_mV, strict=True):
        assert s.mean_mV > verify - 100  # programmed above its verify level
        assert s.in_range + s.below_range + s.above_range == pytest.approx(s.cells, rel=0.01)
        assert np.all(np.diff(s.centers_mV) > 0)
    assert set(chip.read_offsets_mV().values()) == {0.0}
    assert calls and calls[-1][1] == calls[-1][2] == result.reads
    rows = result.rows({"pec": 0})
    assert {r["operation"] for r in rows} == {"vth"}
    assert sum(r["cells"] for r in rows) == sum(s.cells for s in result.states) or rows


def test_rber_rows_count_every_bit(bench):
    transport, chip = bench
    profile = chip.profile
    wear = cycle_block(transport, chip, profile, 12, 2000)
    assert wear.fast_forwarded and wear.fast_forwarded_cycles == 1999
    assert wear.erase_row["operation"] == "erase" and wear.erase_row["latency_us"] > 0
    spec = DataSpec("random", 3)
    program_rows = program_pages(chip, 12, [0, 1], spec, {})
    assert len(program_rows) == 4 and all(r["operation"] == "program" for r in program_rows)
    rows = measure_pages(chip, 12, [0, 1], spec, {"pec": 2000})
    rber = [r for r in rows if r["operation"] == "rber"]
    assert len(rber) == 4
    bits = (profile.geometry.page_bytes + profile.geometry.spare_bytes) * 8
    assert all(r["bits"] == bits and r["pec"] == 2000 for r in rber)
    assert all(r["rber"] == (r["errors_0to1"] + r["errors_1to0"]) / bits for r in rber)


def test_bad_requests_are_usage_errors(bench):
    transport, chip = bench
    with pytest.raises(UsageError, match="0..1000000"):
        cycle_block(transport, chip, chip.profile, 12, -1)
    with pytest.raises(AddressError):
        program_pages(chip, 12, [64], DataSpec("random", 0), {})
