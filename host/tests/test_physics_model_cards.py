"""Model cards (issue 17 item 4): every physics field of every built-in profile appears in
its card with its value and a source, and the committed cards are what the generator
writes from the profiles and docs/model-cards/sources.yaml today (not stale)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from nandlab.errors import ProfileError
from nandlab.profiles import builtin_names, load_profile
from nandlab.profiles.cards import load_sources, main, physics_fields, render

CARDS = Path(__file__).resolve().parents[2] / "docs" / "model-cards"


@pytest.mark.parametrize("name", builtin_names())
def test_every_physics_field_is_in_the_card_with_its_source(name: str) -> None:
    prof = load_profile(name)
    card = (CARDS / f"{name}.md").read_text()
    rows = {line.split("|")[1].strip().strip("`"): line for line in card.splitlines()
            if line.startswith("| `")}
    fields = physics_fields(prof)
    assert fields and set(fields) <= set(rows)
    for path in fields:
        basis = rows[path].split("|")[3].strip()
        assert basis in ("fitted", "literature", "design", "assumed"), path


def test_the_committed_cards_are_not_stale() -> None:
    assert main([str(CARDS), "--check"]) == 0


def test_a_field_without_a_source_is_refused(tmp_path: Path) -> None:
    doc = yaml.safe_load((CARDS / "sources.yaml").read_text())
    del doc["defaults"]["physics.read_disturb_mV"]
    (tmp_path / "sources.yaml").write_text(yaml.safe_dump(doc))
    with pytest.raises(ProfileError, match="physics.read_disturb_mV"):
        render(load_profile("tlc-48l"), load_sources(tmp_path / "sources.yaml"))


def test_a_source_naming_no_field_is_refused(tmp_path: Path) -> None:
    doc = yaml.safe_load((CARDS / "sources.yaml").read_text())
    doc["profiles"]["tlc-48l"]["physics.no_such_knob"] = {"basis": "assumed", "source": "x"}
    (tmp_path / "sources.yaml").write_text(yaml.safe_dump(doc))
    with pytest.raises(ProfileError, match="no_such_knob"):
        render(load_profile("tlc-48l"), load_sources(tmp_path / "sources.yaml"))
