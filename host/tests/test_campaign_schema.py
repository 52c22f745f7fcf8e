"""Campaign files: validation errors name file:line:field; sweeps expand to stable units."""

from __future__ import annotations

from pathlib import Path

import pytest

from nandlab.campaign.schema import campaign_text, load_campaign, parse_campaign
from nandlab.campaign.sweep import expand, unit_seed
from nandlab.campaign.yamlmarks import CampaignFileError

GOOD = """\
name: t
bench: sim://mlc-64l?seed=3
seed: 5
blocks: [10, 11, 12, 13]
steps:
  - cycle: {pec: {sweep: [1, 100]}}
  - program: {wls: 0-1}
  - measure: {what: rber, repeats: {sweep: {from: 1, to: 3}}}
  - bake: {retention: 1y@30C}
"""


def _error(text: str) -> str:
    with pytest.raises(CampaignFileError) as info:
        loaded = parse_campaign(text, "c.yaml")
        expand(loaded, [10, 11, 12, 13])
    return str(info.value)


def test_good_file_expands_in_order() -> None:
    plan = expand(parse_campaign(GOOD, "c.yaml"), [10, 11, 12, 13])
    keys = [u.key for u in plan.units]
    assert keys[:4] == [
        "s00.cycle/ce0/b10/pec=1",
        "s00.cycle/ce0/b11/pec=1",
        "s00.cycle/ce0/b12/pec=100",
        "s00.cycle/ce0/b13/pec=100",
    ]
    assert plan.step_units == {0: 4, 1: 4, 2: 12, 3: 1}
    assert keys[8] == "s02.measure/ce0/b10/repeats=1"
    assert keys[-1] == "s03.bake"
    assert len(set(keys)) == len(keys)


def test_unit_seeds_depend_on_campaign_seed_and_key_only() -> None:
    a = expand(parse_campaign(GOOD, "c.yaml"), [10, 11, 12, 13])
    b = expand(parse_campaign(GOOD + "  - wait: {hours: 1}\n", "c.yaml"), [10, 11, 12, 13])
    assert [(u.key, u.seed) for u in a.units] == [(u.key, u.seed) for u in b.units[:-1]]
    assert a.units[0].seed == unit_seed(5, a.units[0].key)
    c = expand(parse_campaign(GOOD.replace("seed: 5", "seed: 6"), "c.yaml"), [10, 11, 12, 13])
    assert a.units[0].seed != c.units[0].seed


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "  - bake: {retention: 1y@30C}",
            "  - bake: {retention: 1 year}",
            "c.yaml:9: steps[3].bake",
        ),
        (
            "  - bake: {retention: 1y@30C}",
            "  - shake: {x: 1}",
            "c.yaml:9: steps[3].shake: unknown step kind 'shake' (allowed: cycle, ",
        ),
        (
            "{pec: {sweep: [1, 100]}}",
            "{pec: {sweep: []}}",
            "c.yaml:6: steps[0].cycle.pec.sweep: the sweep [] expands to nothing",
        ),
        (
            "{pec: {sweep: [1, 100]}}",
            "{pec: {sweep: [1, 2, 3]}}",
            "4 blocks cannot be split evenly over 3",
        ),
        (
            "{pec: {sweep: [1, 100]}}",
            "{pec: 0}",
            "c.yaml:6: steps[0].cycle.pec: Input should be greater than or equal to 1",
        ),
        (
            "{wls: 0-1}",
            "{wls: 0-1, colour: red}",
            "c.yaml:7: steps[1].program: unknown field 'colour' (allowed: wls, pattern",
        ),
        ("measure: {what: rber,", "measure: {what: noise,", "c.yaml:8: steps[2].measure.what[0]"),
        ("seed: 5", "seed: -1", "c.yaml:3: seed: Input should be greater than or equal to 0"),
        ("blocks: [10, 11, 12, 13]", "blocks: 7", "c.yaml:4: blocks: blocks must be a list"),
        (
            "seed: 5",
            "seed: 5\nmax_units: 10",
            "c.yaml:9: steps[2].measure: the campaign expands to more than max_units=10",
        ),
        ("name: t", "name: t\nname: u", "c.yaml:2: name is given twice"),
        ("  - cycle", "  -  [cycle", "c.yaml:"),
    ],
)
def test_errors_name_file_line_field(old: str, new: str, expected: str) -> None:
    assert old in GOOD
    assert expected in _error(GOOD.replace(old, new))


def test_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="cannot read campaign file"):
        load_campaign(tmp_path / "nope.yaml")


def test_shipped_campaigns_validate() -> None:
    root = Path(__file__).resolve().parents[2] / "characterization" / "campaigns"
    files = sorted(root.glob("*.yaml"))
    assert {f.stem for f in files} >= {
        "mlc-rber-pec-retention",
        "mlc-vth-sweep",
        "tlc-latency-power",
        "mlc-read-disturb",
    }
    for f in files:
        assert load_campaign(f).campaign.name == f.stem


CAMPAIGNS = Path(__file__).resolve().parents[2] / "characterization" / "campaigns"


@pytest.mark.parametrize("path", sorted(CAMPAIGNS.glob("*.yaml")), ids=lambda p: p.stem)
def test_campaign_text_reads_back_to_the_same_campaign(path: Path) -> None:
    loaded = load_campaign(path)
    again = parse_campaign(campaign_text(loaded.campaign), "<text>")
    assert again.campaign == loaded.campaign
