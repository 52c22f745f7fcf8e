"""MCFlash state models: fitted from a measured Vth sweep or taken from the datasheet's default
references; Table 1 edges land on the default references of their gaps."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pytest

from nandlab.onfi import Chip
from nandlab.profiles import load_profile
from nandlab.schemes.mcflash import McFlash
from nandlab.schemes.mcflash_model import DATASHEET_MARGIN_SIGMAS, StateModel
from nandlab.schemes.mcflash_table1 import TABLE1
from nandlab.schemes.pairs import OPS, state_outputs
from nandlab.transport import open_bench


@dataclass
class Hist:
    centers_mV: np.ndarray
    counts: np.ndarray
    below_range: int
    above_range: int


def _histogram(mean: float, sigma: float, lo: float, hi: float, n: int, seed: int) -> Hist:
    """Cells drawn from N(mean, sigma), binned in 25 mV bins over [lo, hi); those below lo are
    only counted (the part of the state a sweep cannot reach)."""
    v = np.random.default_rng(seed).normal(mean, sigma, n)
    edges = np.arange(lo, hi + 1, 25.0)
    counts, _ = np.histogram(v, edges)
    above = int(np.count_nonzero(v >= edges[-1]))
    return Hist((edges[:-1] + edges[1:]) / 2, counts, int(np.count_nonzero(v < lo)), above)


def test_fit_recovers_a_fully_measured_state() -> None:
    m = StateModel.from_vth([_histogram(700.0, 150.0, -500.0, 2000.0, 40_000, 1)])
    assert m.means_mV[0] == pytest.approx(700.0, abs=5.0)
    assert m.sigmas_mV[0] == pytest.approx(150.0, rel=0.03)


def test_fit_recovers_an_erased_state_seen_only_above_the_sense_floor() -> None:
    """Only ~2 % of the erased state lies above the lowest sensing voltage; its upper tail
    and the count below still fix mean and spread."""
    h = _histogram(-2200.0, 350.0, -1500.0, 500.0, 200_000, 2)
    assert h.below_range > 0.95 * 200_000
    m = StateModel.from_vth([h])
    assert m.means_mV[0] == pytest.approx(-2200.0, abs=60.0)
    assert m.sigmas_mV[0] == pytest.approx(350.0, rel=0.08)


def test_datasheet_model_puts_every_default_reference_in_a_valley() -> None:
    p = load_profile("mlc-64l")
    m = StateModel.from_references(p)
    z = [
        abs(ref.default_mV - m.means_mV[s]) / m.sigmas_mV[s]
        for r, ref in enumerate(p.read_offsets.references)
        for s in (r, r + 1)
    ]
    assert min(z) == pytest.approx(DATASHEET_MARGIN_SIGMAS)
    # the erased state's depth is unknown: nothing is planned to sense below it
    floor = p.read_offsets.sense_floor_mV
    assert floor is not None and m.means_mV[0] + 4 * m.sigmas_mV[0] < floor


@pytest.fixture(scope="module")
def chip(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chip]:
    state = tmp_path_factory.mktemp("die")
    with open_bench(f"sim://mlc-64l?seed=3&fresh=1&state={state}") as bench:
        yield Chip(bench)


def test_table1_inner_edges_sit_on_the_default_references(chip: Chip) -> None:
    """Whatever the model, an edge Table 1 moves into a gap between two states lands on the
    default reference of that gap (the model places only the edges beyond L0 and L3)."""
    ro = chip.profile.read_offsets
    defaults = [round(r.default_mV / ro.step_mV) for r in ro.references]
    shifted = StateModel((-2500.0, 800.0, 2000.0, 3300.0), (400.0, 120.0, 120.0, 120.0))
    plans = [McFlash(chip, variant="table1", model=m) for m in (None, shifted)]
    for op in ("AND", "OR", "XNOR"):
        row = TABLE1[op]
        codes = {m.realize(state_outputs(chip.profile, OPS[op]), row=row).codes for m in plans}
        assert len(codes) == 1, (op, codes)
    for m in plans:
        r = m.realize_op("OR")
        assert defaults[0] + r.codes[0] == defaults[1] and r.codes[1] == 0
        x = m.realize_op("XNOR")  # V- at VREF0 / VREF2, V+ of the first band at VREF1
        assert defaults[0] + x.codes[0] - x.delta_code == defaults[0]
        assert defaults[0] + x.codes[0] + x.delta_code == defaults[1]
        assert defaults[2] + x.codes[1] - x.delta_code == defaults[2]
        n = m.realize_not()[0]
        assert defaults[0] + n.codes[0] == defaults[2]
