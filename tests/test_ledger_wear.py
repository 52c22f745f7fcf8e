"""The chip ledger sees every P/E cycle, whichever command caused it: one-off erases, the
cycling of rber, vth's erase, the operand and scratch blocks of compute, campaigns. A
campaign after them labels its rows with the counts the die really has."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from nandlab.bench import Bench
from nandlab.campaign.export import run_table
from nandlab.campaign.runner import RunStopped, resume_run, start_run
from nandlab.ledger import Ledger
from nandlab.onfi.chip import Chip
from nandlab.transport import open_bench
from nandlab.transport.base import Transport

URL = "sim://mlc-planar?seed=41"

CAMPAIGN = f"""\
name: after-one-offs
bench: {URL}
seed: 3
blocks: [20, 21, 25]
steps:
  - erase: {{}}
  - program: {{wls: [0], pattern: random}}
  - measure: {{what: rber}}
"""


def _die_wear(url: str) -> tuple[str, dict[int, int]]:
    """The chip's unique ID and its die's own P/E counts (looked up inside the simulator)."""
    with open_bench(url) as bench:
        uid = Chip(bench).identification.unique_id
        array = bench.dies[0].array  # type: ignore[attr-defined]
        counts = {b: array.pec(b) for b in range(bench.profile.geometry.blocks)}
    return uid, {b: n for b, n in counts.items() if n}


def _ledger_wear(uid: str) -> dict[int, int]:
    with Ledger() as book:
        return {b: w.pec for b, w in book.wear(uid).items()}


def test_one_offs_then_a_campaign(run, tmp_path: Path) -> None:
    out = str(tmp_path / "runs")
    for args in (
        ("erase", URL, "--block", "20", "--yes", "--fresh"),
        ("erase", URL, "--block", "20", "--yes"),
        (
            "program",
            URL,
            "--block",
            "20",
            "--page",
            "0",
            "--pattern",
            "random",
            "--yes",
        ),
        ("read", URL, "--block", "20", "--page", "0"),
        (
            "rber",
            URL,
            "--block",
            "21",
            "--pec",
            "5",
            "--wl",
            "0",
            "--yes",
            "--out",
            out,
        ),
        (
            "vth",
            URL,
            "--block",
            "25",
            "--wl",
            "0",
            "--code-step",
            "16",
            "--yes",
            "--out",
            out,
        ),
        (
            "compute",
            URL,
            "--store",
            "A=random:1",
            "--store",
            "B=random:2",
            "--expr",
            "A & ~B",
            "--block",
            "22",
            "--scratch",
            "30,32,34",
            "--allow-test-mode",
            "--yes",
            "--out",
            out,
        ),
    ):
        result = run(*args)
        assert result.exit_code == 0, (args, result.output)
    uid, die = _die_wear(URL)
    assert {b: die.get(b) for b in (20, 21, 22, 25)} == {20: 2, 21: 5, 22: 1, 25: 1}
    assert set(die) - {20, 21, 22, 25}, (
        "no scheme wore a scratch block: the test lost its point"
    )
    assert _ledger_wear(uid) == die

    rows = start_run(_campaign(tmp_path), out, run_id="after").rows()
    measured = {r["block"]: r["pec"] for r in rows if r["operation"] == "rber"}
    assert measured == {20: 3, 21: 6, 25: 2}
    uid, die = _die_wear(URL)
    assert _ledger_wear(uid) == die


def test_fresh_forgets_the_history(run, tmp_path: Path) -> None:
    assert run("erase", URL, "--block", "7", "--yes", "--fresh").exit_code == 0
    assert run("erase", URL, "--block", "7", "--yes", "--fresh").exit_code == 0
    uid, die = _die_wear(URL)
    assert die == {7: 1} and _ledger_wear(uid) == die


def _campaign(tmp_path: Path, text: str = CAMPAIGN) -> Path:
    path = tmp_path / "campaign.yaml"
    path.write_text(text)
    return path


CYCLED = f"""\
name: cycled
bench: {URL}
fresh: true
seed: 5
blocks: [40, 41]
steps:
  - cycle: {{pec: 4, fast_forward: false}}
  - program: {{wls: [0], pattern: random}}
  - measure: {{what: rber}}
"""


def _link_lost_in_first_unit() -> Callable[[str], Transport]:
    """An opener whose second bench (the one the first unit runs on, after the run's initial
    checkpoint) loses its link a little way into the cycling."""
    opened = [0]

    def opener(url: str) -> Transport:
        transport = open_bench(url)
        opened[0] += 1
        if opened[0] == 2:
            # a cycle erases, then programs every page of the block: one op program each
            Bench(transport).faults.inject("link_lost", after_programs=120)
        return transport

    return opener


def test_a_unit_stopped_half_way_is_booked_and_resume_rebooks_it(
    tmp_path: Path,
) -> None:
    campaign = _campaign(tmp_path, CYCLED)
    with pytest.raises(RunStopped) as stopped:
        start_run(
            campaign, tmp_path / "runs", run_id="c", opener=_link_lost_in_first_unit()
        )
    assert stopped.value.unit == "s00.cycle/ce0/b40"
    uid, die = _die_wear(URL)
    assert 0 < die[40] < 4  # stopped inside the cycling: some erases happened
    assert _ledger_wear(uid) == die
    rows = resume_run(stopped.value.run_dir).rows()
    pec = {r["block"]: r["pec"] for r in rows if r["operation"] == "rber"}
    assert pec == {40: 4, 41: 4}
    uid, die = _die_wear(URL)
    assert die == {40: 4, 41: 4} and _ledger_wear(uid) == die


def test_data_found_on_the_chip_carries_the_bakes_since(
    run, run_json, tmp_path: Path
) -> None:
    out = str(tmp_path / "runs")
    vth = (
        "vth",
        URL,
        "--block",
        "8",
        "--wl",
        "0",
        "--code-step",
        "16",
        "--yes",
        "--out",
        out,
    )
    assert run(*vth, "--fresh").exit_code == 0
    # another block's retention test bakes the whole die, block 8's data included
    rber = (
        "rber",
        URL,
        "--block",
        "9",
        "--pec",
        "2",
        "--wl",
        "0",
        "--retention",
        "1y@30C",
    )
    assert run(*rber, "--yes", "--out", out).exit_code == 0
    doc = run_json(*vth, "--no-program")
    rows = [
        r
        for r in run_table(Path(doc["run_dir"])).to_pylist()
        if r["operation"] == "vth"
    ]
    assert rows and {(r["retention_age_h"], r["retention_label"]) for r in rows} == {
        (8760.0, "1y@30C")
    }
    # erased and programmed again: fresh data
    doc = run_json(*vth)
    rows = [
        r
        for r in run_table(Path(doc["run_dir"])).to_pylist()
        if r["operation"] == "vth"
    ]
    assert {(r["retention_age_h"], r["retention_label"]) for r in rows} == {
        (0.0, "fresh")
    }


def test_a_damaged_ledger_stops_commands_before_the_chip_changes(
    run, data_dir: Path, tmp_path: Path
) -> None:
    assert run("erase", URL, "--block", "5", "--yes", "--fresh").exit_code == 0
    uid, before = _die_wear(URL)
    ledger = data_dir / "ledger.sqlite"
    ledger.write_bytes(b"\0" * 4096)  # the header gone
    out = str(tmp_path / "runs")
    for args in (
        ("erase", URL, "--block", "5", "--yes"),
        (
            "rber",
            URL,
            "--block",
            "6",
            "--pec",
            "2",
            "--wl",
            "0",
            "--yes",
            "--out",
            out,
        ),
        (
            "rber",
            URL,
            "--block",
            "6",
            "--pec",
            "2",
            "--wl",
            "0",
            "--yes",
            "--fresh",
            "--out",
            out,
        ),
    ):
        result = run(*args)
        assert result.exit_code == 2, (args, result.output)
        assert f"chip ledger {ledger} is damaged" in result.stderr, args
    assert _die_wear(URL) == (uid, before)
    assert ledger.read_bytes() == b"\0" * 4096
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())
