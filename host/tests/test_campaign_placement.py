"""The placement file: which host holds which board, turned into Ray actor options."""

from __future__ import annotations

from pathlib import Path

import pytest

from nandlab.campaign.placement import Placement
from nandlab.errors import UsageError

EXAMPLE = """\
hosts:
  lab-a: 10.0.0.11
  lab-b: 10.0.0.12
benches:
  "ftdi://ftdi:2232h:FT5XK1/1": lab-a
  "xdma:///dev/xdma0": lab-b
"""


def test_a_board_runs_on_its_host_and_a_virtual_bench_anywhere(tmp_path: Path) -> None:
    path = tmp_path / "placement.yaml"
    path.write_text(EXAMPLE)
    placement = Placement.load(path)
    assert placement.actor_options("ftdi://ftdi:2232h:FT5XK1/1?board=ft2232h-bga") == {
        "resources": {"node:10.0.0.11": 0.001}
    }
    assert placement.host_of("xdma:///dev/xdma0?board=kcu105-fmc-nand") == "lab-b"
    assert placement.actor_options("sim://mlc-64l?seed=1") == {}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("hosts: {lab-a: 10.0.0.11}\nbenches: {'xdma:///dev/xdma0': lab-c}\n",
         "benches.xdma:///dev/xdma0: host 'lab-c' is not under hosts \\(lab-a\\)"),
        ("hosts: {}\nboards: {}\n", "has 'hosts' and 'benches' only"),
        ("hosts: [a, b]\n", "are mappings"),
        ("hosts: {a: [\n", "cannot read the placement file"),
    ],
)
def test_a_bad_placement_file_is_named(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(text)
    with pytest.raises(UsageError, match=f"{path}: .*{message}|{path}: {message}"):
        Placement.load(path)
