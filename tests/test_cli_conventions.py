"""The command line's conventions, walked over every command and subcommand (docs/cli.md):
one spelling per concept, an example in every help that parses as a real command line, a
command list whose one-liners are not cut, --dry-run wherever a command changes a chip,
and a dry run that changes nothing yet predicts the wear a real run then books."""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from nandlab.cli.app import COMMANDS, cli
from nandlab.cli.common import AddressList, parse_addresses
from nandlab.errors import UsageError

URL = "sim://mlc-64l?seed=3"

LONG_OPTION = re.compile(r"^--[a-z][a-z0-9]*(-[a-z0-9]+)*$")
# the one spelling of each concept, and the spellings it replaces (never to come back)
SYNONYMS = {
    "--out": ("--output", "--outdir", "--output-dir", "--dest"),
    "--block": ("--blocks", "--blk"),
    "--page": ("--pages",),
    "--wl": ("--wls", "--word-line", "--wordline"),
    "--seed": ("--random-seed", "--rng-seed"),
    "--yes": ("--confirm", "--assume-yes", "--force-yes", "-y"),
    "--json": ("--as-json", "--json-out"),
    "--dry-run": ("--dryrun", "--plan", "--simulate"),
    "--code-step": ("--step", "--vth-step"),
}
ADDRESS_OPTIONS = ("--block", "--page", "--wl", "--scratch")


def walk(
    group: click.Group = cli, path: tuple[str, ...] = ()
) -> Iterator[tuple[str, ...]]:
    """Every command path under the group, subcommands included."""
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        yield (*path, name)
        if isinstance(command, click.Group):
            yield from walk(command, (*path, name))


def resolve(path: tuple[str, ...]) -> click.Command:
    command: click.Command = cli
    for name in path:
        assert isinstance(command, click.Group)
        found = command.get_command(click.Context(command), name)
        assert found is not None
        command = found
    return command


COMMAND_PATHS = list(walk())


def test_the_walk_finds_subcommands() -> None:
    assert ("features", "set") in COMMAND_PATHS and ("offsets", "get") in COMMAND_PATHS
    assert len(COMMAND_PATHS) >= len(COMMANDS) + 4


@pytest.mark.parametrize(
    "path", [(), *COMMAND_PATHS], ids=lambda p: " ".join(p) or "nandlab"
)
def test_help_has_an_example_that_parses(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(cli, [*path, "--help"])
    assert result.exit_code == 0, result.output
    text = result.output
    assert "Example:" in text or "Examples:" in text, (
        f"no example in nandlab {path} --help"
    )
    examples = _examples(text, path)
    assert examples, f"no 'nandlab {' '.join(path)} ...' line in the example of {path}"
    for line in examples:
        _parses(shlex.split(line)[1:])


def _examples(text: str, path: tuple[str, ...]) -> list[str]:
    """The example command lines (with their indented continuation lines) of a help text."""
    lines = text.split("Example")[1].splitlines()[1:]
    out: list[str] = []
    for line in lines:
        if line and not line[0].isspace():  # the next section ("Options:")
            break
        stripped = line.strip()
        if stripped.startswith("nandlab "):
            out.append(stripped)
        elif out and stripped:
            out[-1] += " " + stripped
    prefix = " ".join(("nandlab", *path))
    return [e for e in out if e.startswith(prefix)] if path else out


def _parses(args: list[str]) -> None:
    """Parse a command line down to its command, as Click would run it (unknown options,
    bad values and missing required ones raise)."""
    ctx = cli.make_context("nandlab", list(args), resilient_parsing=False)
    command: click.Command = cli
    rest = [*ctx._protected_args, *ctx.args]
    while isinstance(command, click.Group):
        name, found, rest = command.resolve_command(ctx, rest)
        assert found is not None, f"no command {name}"
        command = found
        ctx = command.make_context(name, rest, parent=ctx)
        rest = [*ctx._protected_args, *ctx.args]


def test_an_example_that_does_not_parse_is_caught() -> None:
    with pytest.raises(click.UsageError):
        _parses(["erase", URL, "--blocks", "3", "--yes"])


@pytest.mark.parametrize("path", COMMAND_PATHS, ids=" ".join)
def test_option_names_follow_the_rules(path: tuple[str, ...]) -> None:
    command = resolve(path)
    names = {
        opt for p in command.params if isinstance(p, click.Option) for opt in p.opts
    }
    for name in names:
        if name.startswith("--"):
            assert LONG_OPTION.match(name), (
                f"{path}: {name} is not lower-case-with-dashes"
            )
        else:
            assert name in ("-h", "-v", "-q"), f"{path}: short option {name}"
    for concept, replaced in SYNONYMS.items():
        assert not names & set(replaced), (
            f"{path} spells {concept} as {names & set(replaced)}"
        )
    for p in command.params:
        if isinstance(p, click.Option) and set(p.opts) & set(ADDRESS_OPTIONS):
            # one integer, or a list through the one address parser
            assert isinstance(p.type, AddressList | click.types.IntParamType), (
                f"{path} {p.opts}: {p.type}"
            )
    if "--yes" in names or "url" in {p.name for p in command.params if p.name}:
        changes_chip = "--yes" in names or path in (("read",), ("demo",))
        if changes_chip:
            assert "--dry-run" in names, f"{path} changes a chip but has no --dry-run"


def test_run_and_demo_and_chip_changing_commands_offer_a_dry_run() -> None:
    for path in [("run",), ("resume",), ("demo",), ("erase",), ("program",), ("rber",)]:
        names = {o for p in resolve(path).params for o in getattr(p, "opts", [])}
        assert "--dry-run" in names, path


def test_the_command_list_is_never_cut() -> None:
    text = CliRunner().invoke(cli, ["--help"]).output
    listing = text.split("Commands:")[1]
    assert "..." not in listing
    for name, (_, short) in COMMANDS.items():
        assert f"{name}  " in listing and short in " ".join(listing.split()), name


@pytest.mark.parametrize(
    ("text", "hi", "expected"),
    [
        ("0-3,8", 100, [0, 1, 2, 3, 8]),
        ("7", 100, [7]),
        (" 2 - 4 ,9", 100, None),  # spaces inside a range are malformed
        ("5-3", 100, None),
        ("0-101", 100, None),
        ("x", 100, None),
        ("1,,2", 100, None),
        ("0-99999999999999999999", 1 << 24, None),
    ],
)
def test_address_lists(text: str, hi: int, expected: list[int] | None) -> None:
    if expected is None:
        with pytest.raises(UsageError, match="--block"):
            parse_addresses(text, "--block", 0, hi)
    else:
        assert parse_addresses(text, "--block", 0, hi) == expected


def test_a_bad_address_list_is_a_usage_error_naming_the_option(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["erase", URL, "--block", "3-1", "--yes"])
    assert result.exit_code == 2
    assert "--block" in result.stderr and "backwards" in result.stderr


def _tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data folder holding a die image and a ledger (one erase booked)."""
    folder = tmp_path / "data"
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(folder))
    result = CliRunner().invoke(cli, ["erase", URL, "--block", "40", "--yes"])
    assert result.exit_code == 0, result.output
    return folder


def test_a_dry_run_changes_nothing_and_predicts_the_wear(
    data: Path, tmp_path: Path
) -> None:
    out = tmp_path / "runs"
    campaign = tmp_path / "c.yaml"
    campaign.write_text(
        f"name: dry\nbench: '{URL}'\nseed: 1\nblocks: [30, 31]\n"
        "steps:\n  - cycle: {pec: 3}\n  - program: {wls: [0, 1]}\n  - measure: {what: rber}\n"
    )
    dry_runs = [
        ["erase", URL, "--block", "0-2,9", "--dry-run", "--json"],
        [
            "program",
            URL,
            "--block",
            "5",
            "--page",
            "0",
            "--pattern",
            "zeros",
            "--dry-run",
        ],
        ["read", URL, "--block", "5", "--page", "0", "--dry-run"],
        ["offsets", "set", URL, "--dry-run", "VREF0", "--", "-40"],
        [
            "rber",
            URL,
            "--block",
            "20",
            "--pec",
            "4",
            "--wl",
            "0-1",
            "--dry-run",
            "--out",
            str(out),
        ],
        ["run", str(campaign), "--out", str(out), "--dry-run", "--json"],
    ]
    before = _tree(data)
    docs = []
    for args in dry_runs:
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, f"{args}: {result.output}"
        assert "dry" in result.stdout
        if "--json" in args:
            docs.append(json.loads(result.stdout))
    assert _tree(data) == before, "a dry run changed the data folder"
    assert not out.exists(), "a dry run made a run folder"
    erase, run = docs
    assert erase["wear_pec_added"] == {"0": 1, "1": 1, "2": 1, "9": 1}
    (op,) = erase["operations"]
    assert op["operation"] == "ERASE block" and op["count"] == 4
    # tBERS from the chip's own parameter page (nandlab info), times four
    info = json.loads(CliRunner().invoke(cli, ["info", URL, "--json"]).stdout)
    assert op["chip_time_us_at_most"] == pytest.approx(4 * info["fields"]["t_bers_us"])
    assert run["wear_pec_added"] == {"30": 3, "31": 3}
    # the real run books in the ledger the wear the dry run predicted
    real = CliRunner().invoke(cli, ["run", str(campaign), "--out", str(out), "--yes"])
    assert real.exit_code == 0, real.output
    ledger = json.loads(CliRunner().invoke(cli, ["ledger", URL, "--json"]).stdout)
    pec = {str(b["block"]): b["pec"] for b in ledger["blocks"]}
    assert {b: pec[b] for b in ("30", "31")} == run["wear_pec_added"]


def test_log_levels_and_log_file(data: Path, tmp_path: Path) -> None:
    log = tmp_path / "nandlab.log"
    campaign = tmp_path / "c.yaml"
    campaign.write_text(
        f"name: logged\nbench: '{URL}'\nfresh: true\nseed: 1\nblocks: [33]\n"
        "steps:\n  - cycle: {pec: 2}\n  - program: {wls: [0]}\n  - measure: {what: rber}\n"
    )
    out = tmp_path / "runs"
    args = [
        "run",
        str(campaign),
        "--out",
        str(out),
        "--yes",
        "--no-progress",
        "--run-id",
    ]
    quiet = CliRunner().invoke(cli, ["-q", *args, "q"])
    assert quiet.exit_code == 0 and quiet.stderr == "", quiet.output
    assert (
        "unit " in (out / "q" / "run.log").read_text()
    )  # the run's log keeps everything
    plain = CliRunner().invoke(cli, [*args, "p"])
    assert plain.exit_code == 0 and "DEBUG" not in plain.stderr, plain.output
    loud = CliRunner().invoke(cli, ["-v", "--log-file", str(log), *args, "v"])
    assert loud.exit_code == 0, loud.output
    stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
    assert re.search(
        rf"^{stamp} DEBUG nandlab\.campaign\S*: unit ", loud.stderr, re.MULTILINE
    )
    assert re.search(
        rf"^{stamp} DEBUG nandlab\.campaign\S*: run v: complete",
        log.read_text(),
        re.MULTILINE,
    )
    run_log = (out / "v" / "run.log").read_text()
    assert "run v" in run_log and re.search(
        rf"^{stamp} DEBUG .*unit ", run_log, re.MULTILINE
    )


CODE_ADVICE = re.compile(
    r"\bpass \w+=(True|False)\b|\w+=True to \w+|\bin (the |your )?code\b"
)


def test_no_message_tells_the_user_to_change_python_code() -> None:
    """Every choice a refusal offers is a flag (or a campaign field), never 'pass
    force=True': the package's string literals are searched (docstrings aside)."""
    import ast

    import nandlab

    root = Path(nandlab.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
                and CODE_ADVICE.search(node.value)
            ):
                found.append(f"{path.relative_to(root)}:{node.lineno}: {node.value!r}")
    assert not found, "\n".join(found)
    assert CODE_ADVICE.search("marker; pass force=True to operate on it anyway")
