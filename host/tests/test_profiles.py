"""Chip profiles: built-ins validate, user profiles load, errors name file and field."""

from pathlib import Path

import pytest
import yaml

from nandlab.errors import ProfileError
from nandlab.profiles import builtin_names, load_profile
from nandlab.profiles.loader import parse_profile


def test_builtins_cover_calibration_chips() -> None:
    names = builtin_names()
    for expected in ("mlc-64l", "mlc-176l", "tlc-48l", "mlc-planar", "slc-search"):
        assert expected in names
    for name in names:
        p = load_profile(name)
        assert p.virtual and p.name == name
        assert len(p.read_offsets.references) == p.geometry.states - 1


def test_page_refs_follow_gray_code() -> None:
    mlc = load_profile("mlc-64l")
    assert mlc.page_refs == [[1], [0, 2]]
    tlc = load_profile("tlc-48l")
    assert sorted(r for refs in tlc.page_refs for r in refs) == list(range(7))


def test_geometry_derived_sizes() -> None:
    g = load_profile("tlc-48l").geometry
    assert g.wls_per_block == 48 * 4
    assert g.pages_per_block == 48 * 4 * 3
    assert g.cells_per_wl == (16384 + 2048) * 8


def _builtin_dict(name: str) -> dict:
    from importlib import resources

    text = resources.files("nandlab.profiles.builtin").joinpath(f"{name}.yaml").read_text()
    return yaml.safe_load(text)


def test_user_profile_from_path(tmp_path: Path) -> None:
    data = _builtin_dict("mlc-64l")
    data["name"] = "mlc-lab-part"
    path = tmp_path / "part.yaml"
    path.write_text(yaml.safe_dump(data))
    assert load_profile(path).name == "mlc-lab-part"


def test_validation_error_names_file_and_field(tmp_path: Path) -> None:
    data = _builtin_dict("mlc-64l")
    data["geometry"]["planes"] = 0
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ProfileError) as exc:
        load_profile(path)
    msg = str(exc.value)
    assert str(path) in msg and "geometry.planes" in msg and "greater than or equal to 1" in msg


def test_bad_gray_code_is_rejected() -> None:
    data = _builtin_dict("mlc-64l")
    data["geometry"]["gray_code"] = [[1, 1], [0, 0], [1, 0], [0, 1]]
    with pytest.raises(ProfileError, match="differ in exactly one bit"):
        parse_profile(yaml.safe_dump(data), "x.yaml")


def test_unknown_field_and_unknown_name() -> None:
    data = _builtin_dict("mlc-64l")
    data["geometry"]["plane"] = 2
    with pytest.raises(ProfileError, match="geometry.plane"):
        parse_profile(yaml.safe_dump(data), "x.yaml")
    with pytest.raises(ProfileError, match="mlc-64l"):
        load_profile("no-such-chip")


def test_retention_acceleration_is_a_qualification_figure(tmp_path: Path) -> None:
    """Bake planning reads environment.activation_energy_eV (JESD22-A117 style, 1.1 eV by
    default), a figure a datasheet or qualification report gives; a part may state its own."""
    assert {load_profile(n).environment.activation_energy_eV for n in builtin_names()} == {1.1}
    data = _builtin_dict("mlc-64l")
    data["name"] = "mlc-qualified-part"
    data["environment"] = {"activation_energy_eV": 0.8}
    path = tmp_path / "part.yaml"
    path.write_text(yaml.safe_dump(data))
    assert load_profile(path).environment.activation_energy_eV == 0.8
