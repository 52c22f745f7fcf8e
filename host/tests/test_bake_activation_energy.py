"""A bake's time comes from the test method's activation energy, never the die's physics
(issue 17 item 6): the `bake` step's `activation_energy_eV`, else the datasheet's 1.1 eV."""

from __future__ import annotations

import math

import pytest

from nandlab.campaign.schema import parse_campaign
from nandlab.campaign.steps.bake import BakeStep, bake_plan
from nandlab.campaign.steps.base import Context
from nandlab.campaign.sweep import expand
from nandlab.campaign.yamlmarks import CampaignFileError
from nandlab.profiles import load_profile

K_EV = 8.617333262e-5  # Boltzmann constant, eV/K (CODATA 2018)
YEAR_H = 8760.0


def _hours_by_hand(ea_eV: float, use_C: float = 30.0, bake_C: float = 85.0) -> float:
    """1 year at `use_C` as hours at `bake_C` by Arrhenius' law, written out."""
    factor = math.exp(ea_eV / K_EV * (1 / (use_C + 273.15) - 1 / (bake_C + 273.15)))
    return YEAR_H / factor


def _campaign(ea: str) -> str:
    return f"""name: b
bench: sim://mlc-64l?seed=1
blocks: [10]
steps:
  - cycle: {{pec: 10}}
  - program: {{wls: 0-1}}
  - bake: {{retention: 1y@30C{ea}}}
"""


def _ctx(profile_name: str = "mlc-64l") -> Context:
    return Context(profile=load_profile(profile_name), blocks={}, temp_C=30.0)


def test_default_is_the_datasheet_value_jedec_1_1_eV() -> None:
    temp, hours, age, label = bake_plan(_ctx(), BakeStep(retention="1y@30C"))
    assert (temp, age, label) == (85.0, YEAR_H, "1y@30C")
    assert hours == pytest.approx(_hours_by_hand(1.1), rel=1e-9)
    assert hours == pytest.approx(13.6, abs=0.05)  # the JEDEC figure CALIBRATION.md quotes


@pytest.mark.parametrize(("given", "ea"), [(0.7, 0.7), ("0.7 eV", 0.7), ("700 meV", 0.7)])
def test_the_campaign_value_sets_the_bake_time(given: object, ea: float) -> None:
    step = BakeStep.model_validate({"retention": "1y@30C", "activation_energy_eV": given})
    _, hours, _, _ = bake_plan(_ctx(), step)
    assert hours == pytest.approx(_hours_by_hand(ea), rel=1e-9)
    assert hours > 100  # a lower energy accelerates less: a longer bake


def test_the_die_physics_never_sets_the_bake_time() -> None:
    """Doubling the virtual die's own activation energies leaves the planned bake alone."""
    ctx = _ctx()
    physics = ctx.profile.physics
    doubled = {
        k: 2 * v for k, v in physics.model_dump().items() if "activation" in k and v is not None
    }
    assert doubled, "the die's physics names its activation energies"
    hot = physics.model_copy(update=doubled)
    other = Context(profile=ctx.profile.model_copy(update={"physics": hot}), blocks={}, temp_C=30)
    step = BakeStep(retention="1y@30C")
    assert bake_plan(other, step) == bake_plan(ctx, step)


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("11", "activation energy 11 eV is outside 0.1..2 eV"),
        ("0", "outside 0.1..2 eV"),
        ("'1.1 J'", "give a number in eV (1.1) or a value with its unit"),
        ("true", "is a number in eV"),
    ],
)
def test_bad_values_are_refused_naming_the_field_and_range(given: str, says: str) -> None:
    with pytest.raises(CampaignFileError) as info:
        expand(parse_campaign(_campaign(f", activation_energy_eV: {given}"), "b.yaml"), [10])
    assert "b.yaml:7" in str(info.value) and "activation_energy_eV" in str(info.value)
    assert says in str(info.value)
