"""campaign.preflight: what a campaign is checked for before any chip is opened."""

from __future__ import annotations

from pathlib import Path

import pytest

from nandlab.campaign.preflight import bench_profile, preflight
from nandlab.campaign.schema import parse_campaign
from nandlab.campaign.yamlmarks import CampaignFileError
from nandlab.errors import BenchURLError

RTL_TINY = Path(__file__).resolve().parent.parent / "nandlab" / "rtlsim" / "slc-tb-tiny.yaml"


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("sim://mlc-64l?seed=3", "mlc-64l"),
        ("rtl://slc-search?seed=1", "slc-search"),
        (f"rtl://{RTL_TINY}", "slc-tb-tiny"),
        ("rtl://?profile=tlc-48l", "tlc-48l"),
        ("xdma:///dev/xdma0?board=kc705-onfi&profile=mlc-176l", "mlc-176l"),
        ("ftdi://ftdi:2232h/1?board=ft2232h-bga", None),
    ],
)
def test_the_profile_a_url_names(url: str, name: str | None) -> None:
    profile = bench_profile(url)
    assert (profile.name if profile else None) == name


def test_a_malformed_url_is_a_url_error() -> None:
    with pytest.raises(BenchURLError, match="malformed"):
        bench_profile("ftdi://[ftdi:2232h/1?profile=mlc-64l")


CAMPAIGN = """name: p
bench: sim://mlc-64l?seed=3
blocks: {random: {count: 4, from: 10, to: 2000, seed: 7}}
steps:
  - cycle: {pec: {sweep: [1, 3000]}}
  - program: {wls: 0-3}
  - measure: {what: rber, repeats: {sweep: [1, 2, 3]}}
"""


def test_a_valid_campaign_is_planned_without_touching_the_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path / "data"))
    plan = preflight(parse_campaign(CAMPAIGN, "p.yaml"), tmp_path)
    assert plan is not None
    # cycle and program: one unit per block; measure: 3 points on each of the 4 blocks
    assert [plan.step_units[s] for s in range(3)] == [4, 4, 12]
    assert not (tmp_path / "data").exists()


def test_a_real_bench_without_a_profile_is_checked_once_open() -> None:
    text = CAMPAIGN.replace("sim://mlc-64l?seed=3", "ftdi://ftdi:2232h/1?board=ft2232h-bga")
    assert preflight(parse_campaign(text, "p.yaml"), None) is None


def test_a_step_asking_for_test_mode_needs_the_campaign_to_say_so() -> None:
    text = CAMPAIGN + "  - compute: {scheme: mcflash, ops: [NAND], allow_test_mode: true}\n"
    with pytest.raises(CampaignFileError, match=r"p\.yaml:8: steps\[3\]\.compute\.allow_test_mode"):
        preflight(parse_campaign(text, "p.yaml"), None)
    plan = preflight(parse_campaign("allow_test_mode: true\n" + text, "p.yaml"), None)
    assert plan is not None and plan.step_units[3] == 4


def test_the_unit_budget_is_checked_before_units_are_built() -> None:
    text = CAMPAIGN.replace("[1, 2, 3]", "{from: 1, to: 1000000}")
    with pytest.raises(CampaignFileError, match=r"1e\+06 points, more than the unit budget"):
        preflight(parse_campaign(text, "p.yaml"), None)
    with pytest.raises(CampaignFileError, match=r"at least 4000008 \(step 3 alone makes 4000000\)"):
        preflight(parse_campaign("max_units: 1000000\n" + text, "p.yaml"), None)
