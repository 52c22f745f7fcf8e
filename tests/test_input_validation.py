"""Issue 20, findings 3, 4 and 6: a malformed request is refused before any chip is opened.

Each case runs a command against a data folder that already holds a die image and a chip
ledger (and an --out folder with a run in it), and checks that the command exits 2 with a
message naming the field, prints no traceback, and leaves every file of both folders
byte-identical (the trees are hashed before and after).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

URL = "sim://mlc-64l?seed=9"
HEAD = f"name: bad\nbench: {URL}\n"

BOMB = "".join(
    f"{k}: &{k} [{', '.join([f'*{p}'] * 10) if p else '1, 1, 1, 1, 1, 1, 1, 1, 1, 1'}]\n"
    for p, k in zip(["", "a", "b", "c", "d", "e", "f"], "abcdefg", strict=True)
)

# (id, campaign file text (bytes: written as is), words the message must hold)
CAMPAIGNS: list[tuple[str, str | bytes, list[str]]] = [
    (
        "unknown-parameter",
        HEAD + "blocks: [5]\nsteps:\n  - program: {wls: 0-1, colour: red}\n",
        ["steps[0].program", "unknown field 'colour'"],
    ),
    (
        "zero-pe-in-sweep",
        HEAD + "blocks: [5, 6]\nsteps:\n  - cycle: {pec: {sweep: [0, 1000]}}\n",
        ["steps[0].cycle.pec"],
    ),
    (
        "uneven-sweep",
        HEAD + "blocks: [5, 6, 7]\nsteps:\n  - cycle: {pec: {sweep: [1, 1000]}}\n",
        ["steps[0].cycle.pec", "cannot be split evenly"],
    ),
    (
        "block-past-the-end",
        HEAD + "blocks: [5, 2048]\nsteps:\n  - program: {wls: 0-1}\n",
        ["blocks", "block 2048 is outside the chip: allowed 0..2047"],
    ),
    (
        "range-past-the-end",
        HEAD + "blocks: {range: {from: 0, to: 999999999999}}\nsteps:\n  - erase: {}\n",
        ["blocks.range.to", "outside the chip"],
    ),
    (
        "test-mode-not-declared",
        HEAD + "blocks: [5]\nsteps:\n  - program: {wls: 0-1}\n"
        "  - compute: {scheme: parabit, ops: [AND], allow_test_mode: true}\n",
        ["steps[1].compute.allow_test_mode", "allow_test_mode: true"],
    ),
    (
        "test-mode-step-unflagged",
        (
            "name: bad\nbench: sim://tlc-48l?seed=9\nallow_test_mode: true\nblocks: [5]\n"
            "steps:\n  - cycle: {pec: 1}\n  - esp_program: {wls: 0-3}\n"
        ),
        ["s01.esp_program", "allow_test_mode: true"],
    ),
    (
        "scheme-the-part-lacks",
        HEAD.replace("seed=9", "seed=9\nallow_test_mode: true")
        + "blocks: [5]\nsteps:\n  - cycle: {pec: 1}\n  - program: {wls: 0-1}\n"
        "  - compute: {scheme: parabit, ops: [AND], allow_test_mode: true}\n",
        ["s02.compute", "latch_ops", "mlc-64l"],
    ),
    (
        "pair-layout-on-slc",
        (
            "name: bad\nbench: sim://slc-search?seed=9\nblocks: [5]\nsteps:\n"
            "  - cycle: {pec: 1}\n  - program: {wls: 0-1}\n"
            "  - compute: {scheme: mcflash, ops: [AND]}\n"
        ),
        ["s02.compute", "MCFlash needs MLC pages"],
    ),
    (
        "sweep-of-1e12",
        HEAD
        + "blocks: [5]\nsteps:\n  - wait: {hours: {sweep: {from: 1, to: 1000000000000}}}\n",
        ["steps[0].wait.hours.sweep", "1e+12 points", "max_units=2000"],
    ),
    (
        "grid-of-8e12",
        HEAD + "max_units: 1000000\nblocks: [5]\nsteps:\n  - program: {wls: 0-1}\n"
        "  - measure: {what: rber, repeats: {sweep: {from: 1, to: 2000000}}, "
        "offsets: {sweep: {from: 1, to: 2000000}}}\n",
        ["steps[1].measure", "max_units=1000000"],
    ),
    (
        "alias-bomb",
        HEAD + BOMB + "blocks: [5]\nsteps: [{erase: {}}]\n",
        ["aliases expand"],
    ),
    (
        "recursive-anchor",
        HEAD + "blocks: &b [5, *b]\nsteps: [{erase: {}}]\n",
        ["an anchor refers to itself"],
    ),
    (
        "deep-nesting",
        HEAD + "blocks: [5]\nsteps: " + "[" * 5000 + "]" * 5000 + "\n",
        ["nested deeper than"],
    ),
    (
        "non-utf8",
        (HEAD + "description: caf\xe9\n").encode("latin-1"),
        ["not UTF-8", "byte"],
    ),
    (
        "pattern-dev-zero",
        HEAD + "blocks: [5]\nsteps:\n  - cycle: {pec: 1}\n"
        "  - program: {wls: 0-1, pattern: 'file:/dev/zero'}\n",
        ["file:/dev/zero", "not a regular file"],
    ),
    (
        "nan-hours",
        HEAD + "blocks: [5]\nsteps:\n  - wait: {hours: .nan}\n",
        ["steps[0].wait.hours", "finite"],
    ),
    (
        "400-digit-retention",
        HEAD
        + f"blocks: [5]\nsteps:\n  - program: {{wls: 0}}\n  - bake: {{retention: {'9' * 400}y@30C}}\n",
        ["steps[1].bake", "over 1000 years"],
    ),
    (
        "30-digit-seed",
        HEAD + f"seed: {'9' * 30}\nblocks: [5]\nsteps: [{{erase: {{}}}}]\n",
        ["seed"],
    ),
    (
        "30-digit-url-seed",
        f"name: bad\nbench: sim://mlc-64l?seed={'9' * 30}\nblocks: [5]\nsteps: [{{erase: {{}}}}]\n",
        ["seed=", "0..9223372036854775807"],
    ),
    (
        "5000-digit-integer",
        HEAD + f"blocks: [{'9' * 5000}]\nsteps: [{{erase: {{}}}}]\n",
        ["blocks[0]", "cannot be read"],
    ),
]

STORE = ["--store", "A=random:1", "--store", "B=random:2"]
# (id, arguments after `compute URL`, words the message must hold)
COMPUTES: list[tuple[str, list[str], list[str]]] = [
    ("parabit-without-test-mode", [*STORE, "--expr", "A & B", "--scheme", "parabit"], ["allow_test_mode"]),
    ("bad-expression", [*STORE, "--expr", "A & & B"], ["expression, position 4"]),
    ("huge-range", ["--store", "A1=zeros", "--expr", "AND(A1..A999999999999)"], ["more than 4096 operands"]),
    ("deep-parentheses", [*STORE, "--expr", "(" * 5000 + "A" + ")" * 5000], ["longer than 4096"]),
    ("bad-store", ["--store", "A=bogus", "--store", "B=zeros", "--expr", "A & B"], ["operand data 'bogus'"]),
    ("store-seed-30-digits", ["--store", f"A=random:{'9' * 30}", "--store", "B=zeros", "--expr", "A|B"], ["0..2^63-1"]),
    ("block-past-the-end", [*STORE, "--expr", "A & B", "--block", "5000"], ["block 5000 is outside"]),
    ("operand-past-the-end", ["--operand", "A=5000:0", "--store", "B=zeros", "--expr", "A & B"], ["operand A at 5000:0"]),
    ("scratch-past-the-end", [*STORE, "--expr", "A & B", "--scratch", "9000"], ["scratch block 9000"]),
]  # fmt: skip


def _tree(root: Path) -> dict[str, str]:
    """Every file (sha256) and folder under root, by relative path."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        out[rel] = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
    return out


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder with a die image and a ledger, and an --out folder with one run."""
    from click.testing import CliRunner
    from nandlab.cli.app import cli

    root = tmp_path_factory.mktemp("world")
    env = {"NANDLAB_DATA_DIR": str(root / "data")}
    runner = CliRunner(env=env)
    result = runner.invoke(
        cli,
        [
            "rber",
            URL,
            "--block",
            "3",
            "--pec",
            "2",
            "--wl",
            "0",
            "--yes",
            "--out",
            str(root / "out"),
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert (root / "data" / "ledger.sqlite").is_file() and any((root / "out").iterdir())
    return root


def _refused(
    run: Callable[..., Result], world: Path, args: list[str], words: list[str]
) -> None:
    before = _tree(world)
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    for word in words:
        assert word in result.stderr, result.stderr
    assert _tree(world) == before, "a refused command changed the data or --out folder"


@pytest.mark.parametrize(
    ("text", "words"), [c[1:] for c in CAMPAIGNS], ids=[c[0] for c in CAMPAIGNS]
)
def test_campaign_file_refused_before_the_chip(
    run: Callable[..., Result],
    world: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    text: str | bytes,
    words: list[str],
) -> None:
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(world / "data"))
    campaign = tmp_path / "c.yaml"
    campaign.write_bytes(text if isinstance(text, bytes) else text.encode())
    _refused(run, world, ["run", "--yes", str(campaign), "--out", str(world / "out")], words)


@pytest.mark.parametrize(
    ("args", "words"), [c[1:] for c in COMPUTES], ids=[c[0] for c in COMPUTES]
)
def test_compute_refused_before_erasing(
    run: Callable[..., Result],
    world: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    words: list[str],
) -> None:
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(world / "data"))
    _refused(
        run, world, ["compute", URL, *args, "--yes", "--out", str(world / "out")], words
    )


@pytest.mark.parametrize(
    "run_id", ["../../escaped", "/tmp/absolute-run", "a/b", "..", ".hidden"]
)
def test_run_id_is_a_plain_name(
    run: Callable[..., Result],
    world: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    run_id: str,
) -> None:
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(world / "data"))
    campaign = tmp_path / "c.yaml"
    campaign.write_text(HEAD + "blocks: [5]\nsteps: [{erase: {}}]\n")
    out = world / "out" / "nested"
    _refused(
        run,
        world,
        ["run", "--yes", str(campaign), "--out", str(out), "--run-id", run_id],
        ["--run-id"],
    )
    assert not Path(
        "/tmp/absolute-run"
    ).exists()  # ../../escaped would land in world: hashed


def test_non_utf8_profile_file(
    run: Callable[..., Result],
    world: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(world / "data"))
    profile = tmp_path / "part.yaml"
    profile.write_bytes(b"name: caf\xe9\n")
    campaign = tmp_path / "c.yaml"
    campaign.write_text(
        f"name: bad\nbench: sim://?profile={profile}\nblocks: [5]\nsteps: [{{erase: {{}}}}]\n"
    )
    _refused(
        run, world, ["run", "--yes", str(campaign), "--out", str(world / "out")], ["not UTF-8"]
    )


@pytest.mark.parametrize("mv", ["nan", "inf", "-inf", "1e400"])
def test_offset_must_be_finite(
    run: Callable[..., Result], world: Path, monkeypatch: pytest.MonkeyPatch, mv: str
) -> None:
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(world / "data"))
    _refused(run, world, ["offsets", "set", "--yes", URL, "0", "--", mv], ["finite"])


ONE_OFFS: list[tuple[str, list[str], list[str]]] = [
    ("program-dev-zero", ["program", URL, "--block", "5", "--page", "0", "--in", "/dev/zero"], ["--in /dev/zero", "more than"]),
    ("program-seed-30-digits", ["program", URL, "--block", "5", "--page", "0", "--pattern", "random", "--seed", "9" * 30], ["--seed"]),
    ("rber-seed-30-digits", ["rber", URL, "--block", "5", "--pec", "3", "--seed", "9" * 30], ["seed"]),
    ("rber-zero-pe", ["rber", URL, "--block", "5", "--pec", "0"], ["--pec 0"]),
    ("rber-wl-past-the-end", ["rber", URL, "--block", "5", "--pec", "3", "--wl", "0-9999"], ["WL 256 outside"]),
    ("rber-huge-wl-range", ["rber", URL, "--block", "5", "--pec", "3", "--wl", "0-99999999999"], ["--wl"]),
    ("rber-400-digit-age", ["rber", URL, "--block", "5", "--pec", "3", "--retention", "9" * 400 + "y@30C"], ["over 1000 years"]),
    ("vth-block-past-the-end", ["vth", URL, "--block", "4096", "--wl", "0"], ["block 4096 is outside"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("args", "words"), [c[1:] for c in ONE_OFFS], ids=[c[0] for c in ONE_OFFS]
)
def test_one_off_refused_before_the_chip(
    run: Callable[..., Result],
    world: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    words: list[str],
) -> None:
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(world / "data"))
    _refused(
        run,
        world,
        [
            *args,
            "--yes",
            *(["--out", str(world / "out")] if args[0] != "program" else []),
        ],
        words,
    )


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_campaign_file_that_is_no_regular_file(
    run: Callable[..., Result],
    world: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    kind: str,
) -> None:
    """A FIFO would block the read and /dev/zero never ends: both refused unread."""
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(world / "data"))
    path = Path("/dev/zero")
    if kind == "fifo":
        path = tmp_path / "c.yaml"
        os.mkfifo(path)
    _refused(
        run,
        world,
        ["run", "--yes", str(path), "--out", str(world / "out")],
        ["not a regular file"],
    )


def test_fresh_campaign_refused_after_the_chip_opened_changes_nothing(
    run: Callable[..., Result], world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refusal that needs the chip (a listed block carrying the factory bad-block marker)
    comes after the bench opened: a fresh campaign must still leave the saved die image
    (the earlier run's data) and the chip's ledger history as they were."""
    from nandlab.onfi.chip import Chip
    from nandlab.transport import open_bench

    monkeypatch.setenv("NANDLAB_DATA_DIR", str(world / "data"))
    with open_bench(URL, read_only=True) as bench:
        chip = Chip(bench, 0)
        bad = next(b for b in range(chip.geometry.blocks) if chip.is_bad_block(b))
    campaign = tmp_path / "fresh.yaml"
    campaign.write_text(
        f"name: fresh-bad\nbench: {URL}\nfresh: true\nseed: 1\nblocks: [{bad}]\n"
        "steps:\n  - cycle: {pec: 10}\n  - program: {wls: [0]}\n  - measure: {what: rber}\n"
    )
    before = {k: v for k, v in _tree(world).items() if not k.endswith("lock")}
    result = run("run", "--yes", str(campaign), "--out", str(world / "out"))
    assert result.exit_code == 2, result.output
    assert f"block {bad} carries the factory bad-block marker" in result.stderr
    after = {k: v for k, v in _tree(world).items() if not k.endswith("lock")}
    assert after == before, "a refused fresh campaign changed the die image or the ledger"
