"""Bench URL parsing: every accepted form and every rejected one."""

from __future__ import annotations

from pathlib import Path

import pytest

from nandlab.errors import BenchURLError, ProfileError
from nandlab.transport import open_bench, parse_sim_url
from nandlab.transport.url import SimOptions, scheme_of


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("sim://mlc-64l", SimOptions("mlc-64l")),
        ("SIM://mlc-64l?seed=7", SimOptions("mlc-64l", seed=7)),
        (
            "sim://tlc-48l?seed=3&dies=2&fresh=1&state=/tmp/x",
            SimOptions("tlc-48l", 3, 2, True, Path("/tmp/x")),
        ),
        ("sim:///abs/path/part.yaml?seed=1", SimOptions("/abs/path/part.yaml", seed=1)),
        ("sim://?profile=rel/part.yaml", SimOptions("rel/part.yaml")),
        ("sim://slc-search?corrupt_param=3", SimOptions("slc-search", corrupt_param=3)),
        ("sim://mlc-64l?fresh=0&dies=8", SimOptions("mlc-64l", dies=8)),
    ],
)
def test_good_urls(url: str, expected: SimOptions) -> None:
    assert parse_sim_url(url) == expected


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("mlc-64l", ["no scheme", "sim://"]),
        ("usb://ftdi:2232h/1", ["unknown transport 'usb://'", "sim://"]),
        ("sim://", ["names no chip profile"]),
        ("sim://mlc-64l?speed=3", ["unknown option 'speed'", "seed"]),
        ("sim://mlc-64l?seed=abc", ["seed='abc'", "integer"]),
        ("sim://mlc-64l?seed=-1", ["seed='-1'"]),
        ("sim://mlc-64l?seed=1.5", ["seed='1.5'"]),
        ("sim://mlc-64l?seed=", ["seed=''"]),
        ("sim://mlc-64l?seed=1&seed=2", ["given twice"]),
        ("sim://mlc-64l?dies=0", ["dies='0'", "1..8"]),
        ("sim://mlc-64l?dies=9", ["dies='9'"]),
        ("sim://mlc-64l?fresh=yes", ["fresh='yes'", "0 or 1"]),
        ("sim://mlc-64l?state=", ["state= needs a folder"]),
        ("sim://mlc-64l?corrupt_param=4", ["corrupt_param='4'", "0..3"]),
        ("sim://mlc-64l?profile=x.yaml", ["profile twice"]),
        ("sim://mlc-64l/extra.yaml", ["either a built-in profile name or a path"]),
        ("sim://mlc-64l#frag", ["#fragment"]),
        ("sim://mlc-64l?seed", ["malformed query"]),
    ],
)
def test_bad_urls_name_the_fault_and_the_form(url: str, words: list[str]) -> None:
    with pytest.raises(BenchURLError) as info:
        scheme_of(url)
        parse_sim_url(url)
    message = str(info.value)
    for word in words:
        assert word in message
    assert "sim://PROFILE?" in message or "given twice" in message


def test_unknown_profile_is_a_profile_error(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match="unknown chip profile 'no-such-part'"):
        open_bench(f"sim://no-such-part?state={tmp_path}")
    with pytest.raises(ProfileError, match="does not exist"):
        open_bench(f"sim:///{tmp_path}/missing.yaml")


def test_user_profile_by_path(tmp_path: Path) -> None:
    from importlib import resources

    text = resources.files("nandlab.profiles.builtin").joinpath("slc-search.yaml").read_text()
    part = tmp_path / "my-part.yaml"
    part.write_text(text.replace("name: slc-search", "name: slc-mine"))
    for url in (f"sim://{part}?state={tmp_path}", f"sim://?profile={part}&state={tmp_path}"):
        with open_bench(url) as bench:
            assert bench.profile is not None and bench.profile.name == "slc-mine"
            assert bench.url == url
    folders = list((tmp_path / "sim").iterdir())
    assert len(folders) == 1 and folders[0].name.startswith("slc-mine-seed0-")


@pytest.mark.parametrize(
    ("url", "fresh", "expected"),
    [
        ("sim://mlc-64l?seed=3", True, "sim://mlc-64l?seed=3&fresh=1"),
        ("sim://mlc-64l?seed=3&fresh=1", False, "sim://mlc-64l?seed=3"),
        ("sim://mlc-64l?fresh=1", False, "sim://mlc-64l"),
        ("sim://?profile=/p/x.yaml", True, "sim://?profile=/p/x.yaml&fresh=1"),
        ("sim://?profile=/p/x.yaml&fresh=1", False, "sim://?profile=/p/x.yaml"),
    ],
)
def test_with_fresh_keeps_the_url_form(url: str, fresh: bool, expected: str) -> None:
    from nandlab.transport.url import with_fresh

    assert with_fresh(url, fresh) == expected
