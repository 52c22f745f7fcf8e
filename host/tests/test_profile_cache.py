"""The validated-profile cache (profiles/loader.py): a hit gives the profile the YAML
validates to, a changed text or a damaged cache file never gives a stale or broken one."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from nandlab.errors import ProfileError
from nandlab.profiles import loader


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The cache folder of the test (the conftest gives each test its own data folder)."""
    monkeypatch.setenv("NANDLAB_CACHE_DIR", str(tmp_path))
    return tmp_path


def _builtin_text(name: str) -> str:
    return resources.files("nandlab.profiles.builtin").joinpath(f"{name}.yaml").read_text()


def test_a_cache_hit_equals_a_fresh_validation(data_dir: Path) -> None:
    text = _builtin_text("mlc-64l")
    first = loader._cached_profile(text, "t")
    files = list(loader.profile_cache_dir().glob("*.pickle"))
    assert len(files) == 1
    again = loader._cached_profile(text, "t")
    assert again is not first  # read back from the file, not the same object
    assert again == first == loader.parse_profile(text, "t")
    assert again.geometry.blocks == first.geometry.blocks


def test_a_changed_text_is_validated_again(data_dir: Path) -> None:
    text = _builtin_text("mlc-64l")
    loader._cached_profile(text, "t")
    bad = text.replace("model: VIRT-MLC-64L", "model: " + "X" * 30, 1)  # past 20 characters
    with pytest.raises(ProfileError, match="model"):
        loader._cached_profile(bad, "t")
    assert len(list(loader.profile_cache_dir().glob("*.pickle"))) == 1


@pytest.mark.parametrize("damage", [b"", b"\x80\x05garbage", b"not a pickle"])
def test_a_damaged_cache_file_is_rebuilt(data_dir: Path, damage: bytes) -> None:
    text = _builtin_text("slc-search")
    good = loader._cached_profile(text, "t")
    (path,) = loader.profile_cache_dir().glob("*.pickle")
    path.write_bytes(damage)
    assert loader._cached_profile(text, "t") == good
    assert path.read_bytes() != damage


def test_a_pickle_of_something_else_is_not_taken(data_dir: Path) -> None:
    import pickle

    text = _builtin_text("slc-search")
    loader._cached_profile(text, "t")
    (path,) = loader.profile_cache_dir().glob("*.pickle")
    path.write_bytes(pickle.dumps({"geometry": None}))
    assert loader._cached_profile(text, "t") == loader.parse_profile(text, "t")


def test_an_unwritable_cache_folder_still_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("NANDLAB_CACHE_DIR", str(blocker))  # a file: no folder can go under it
    text = _builtin_text("slc-search")
    assert loader._cached_profile(text, "t") == loader.parse_profile(text, "t")


def test_loading_a_profile_leaves_the_data_folder_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parsing a URL or a campaign loads profiles; the data folder must not appear for it."""
    data = tmp_path / "data"
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(data))
    monkeypatch.setenv("NANDLAB_CACHE_DIR", str(tmp_path / "cache"))
    loader._cached_profile(_builtin_text("mlc-64l"), "t")
    assert not data.exists()
    assert list((tmp_path / "cache" / "profiles").glob("*.pickle"))
