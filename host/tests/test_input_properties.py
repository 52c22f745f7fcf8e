"""Property-based tests (hypothesis) of the parsers that take outside input: expressions,
campaign files, bench URLs, op programs and ONFI parameter pages.

Each property: an input is either valid (and then means what it says: it parses back, it
round-trips) or refused with its layer's typed error naming what is wrong; never another
exception, and a refused campaign changes nothing on disk (no die image, ledger or run).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from nandlab.campaign.preflight import preflight
from nandlab.campaign.schema import parse_campaign
from nandlab.campaign.yamlmarks import CampaignFileError
from nandlab.errors import BenchURLError, NandlabError, OpProgramError, UsageError
from nandlab.onfi.errors import ParameterPageInvalid
from nandlab.onfi.identify import choose_parameter_page, decode_parameter_page
from nandlab.onfi.target import Target
from nandlab.onfi_spec import parampage
from nandlab.ops.program import Program
from nandlab.schemes.expr import ExprError, parse, variables
from nandlab.transport import open_bench, parse_sim_url

QUICK = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---- expressions ------------------------------------------------------------------------

NAMES = st.sampled_from(["A", "B", "C", "x1", "Op_2"])


def _expr_text(leaf: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    def grow(sub: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        binary = st.tuples(sub, st.sampled_from([" & ", " | ", " ^ "]), sub).map("".join)
        func = st.tuples(
            st.sampled_from(["AND", "or", "Xor", "NAND", "NOR", "XNOR"]),
            st.lists(sub, min_size=2, max_size=4),
        ).map(lambda t: f"{t[0]}({', '.join(t[1])})")
        return st.one_of(binary, func, sub.map(lambda s: f"~{s}"), sub.map(lambda s: f"({s})"))

    return st.recursive(leaf, grow, max_leaves=12)


@QUICK
@given(_expr_text(NAMES))
def test_expressions_of_the_grammar_parse_and_print_back(text: str) -> None:
    tree = parse(text)
    assert parse(str(tree)) == tree
    assert set(variables(tree)) <= set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))


TOKENS = st.sampled_from(
    ["A", "B1", "B9", "..", "&", "|", "^", "~", "(", ")", ",", "AND", "NOT", "FOO", " ", "#"]
)


@QUICK
@given(st.lists(TOKENS, max_size=40).map("".join))
def test_any_token_soup_parses_or_names_a_position(text: str) -> None:
    try:
        parse(text)
    except ExprError as exc:
        assert 0 <= exc.pos <= len(text) and "position" in str(exc)


# ---- campaign files ---------------------------------------------------------------------

SCALARS = st.one_of(
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.sampled_from(["random", "0-3", "rber", "1y@30C", "file:/dev/zero", "9" * 400 + "y@30C"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda sub: st.one_of(
        st.lists(sub, max_size=4),
        st.dictionaries(st.sampled_from(["sweep", "from", "to", "step", "x"]), sub, max_size=3),
    ),
    max_leaves=8,
)
PARAMS = st.dictionaries(
    st.sampled_from(
        ["pec", "wls", "pattern", "what", "hours", "retention", "reads", "repeats", "mode",
         "allow_test_mode", "scheme", "ops", "colour"]
    ),
    VALUES,
    max_size=4,
)  # fmt: skip
STEPS = st.lists(
    st.tuples(
        st.sampled_from(["cycle", "erase", "program", "measure", "bake", "wait", "compute", "mws"]),
        PARAMS,
    ).map(lambda kv: {kv[0]: kv[1]}),
    min_size=1,
    max_size=4,
)
CAMPAIGNS = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["p", "ok-1", "bad name"]),
        "bench": st.sampled_from(["sim://mlc-64l?seed=1", "sim://tlc-48l", "sim://nope"]),
        "blocks": st.one_of(
            st.lists(st.integers(-5, 5000), min_size=1, max_size=4),
            st.fixed_dictionaries({"range": st.fixed_dictionaries(
                {"from": st.integers(0, 3000), "to": st.integers(0, 10**12)})}),
        ),
        "steps": STEPS,
    },
    optional={"seed": st.integers(-1, 10**30), "max_units": st.integers(0, 2 * 10**6),
              "allow_test_mode": st.booleans(), "fresh": st.booleans()},
)  # fmt: skip


def _check_campaign(text: str, folder: Path) -> bool:
    """True when accepted; a refusal must be a UsageError, a file's naming file:line."""
    try:
        preflight(parse_campaign(text, "h.yaml"), folder)
    except CampaignFileError as exc:
        assert re.match(r"h\.yaml:\d+: ", str(exc)), str(exc)
        return False
    except UsageError:
        return False
    return True


@QUICK
@given(campaign=CAMPAIGNS)
def test_generated_campaigns_are_valid_or_refused_naming_the_field(
    campaign: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    _check_campaign(yaml.safe_dump(campaign), tmp_path_factory.getbasetemp())


@QUICK
@given(campaign=CAMPAIGNS, data=st.data())
def test_mutated_campaign_text_is_valid_or_refused(
    campaign: dict[str, Any], data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    text = yaml.safe_dump(campaign)
    cut = data.draw(st.integers(0, len(text)))
    insert = data.draw(st.sampled_from(["", "&a ", "*a", "[", "]", "{", ":", "\t", "- ", "'"]))
    _check_campaign(text[:cut] + insert + text[cut:], tmp_path_factory.getbasetemp())


def _tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else ""
        for p in sorted(root.rglob("*"))
    }


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(campaign=CAMPAIGNS)
def test_a_refused_campaign_exits_2_and_changes_nothing(
    campaign: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What `nandlab run` does with a campaign that preflight refuses: exit 2, one message,
    and the data and --out folders exactly as they were (here: still absent)."""
    from nandlab.cli.app import cli

    text = yaml.safe_dump(campaign)
    assume(not _check_campaign(text, tmp_path))
    work = tmp_path / "w"
    work.mkdir(exist_ok=True)
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(work / "data"))
    (tmp_path / "c.yaml").write_text(text)
    before = _tree(work)
    args = ["run", "--yes", str(tmp_path / "c.yaml"), "--out", str(work / "o")]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert _tree(work) == before


# ---- bench URLs -------------------------------------------------------------------------

URL_PARTS = st.sampled_from(
    ["seed", "dies", "fresh", "state", "profile", "corrupt_param", "colour", ""]
)
URL_VALUES = st.one_of(
    st.integers(-3, 10).map(str), st.just("9" * 30), st.text(max_size=6), st.just("")
)


@QUICK
@given(
    st.sampled_from(["sim://mlc-64l", "sim://", "sim:///p.yaml", "sim://m]l", "sim://a?"]),
    st.lists(st.tuples(URL_PARTS, URL_VALUES), max_size=4),
)
def test_sim_urls_parse_within_their_ranges_or_are_refused(
    head: str, query: list[tuple[str, str]]
) -> None:
    url = head + ("?" if "?" not in head and query else "") + "&".join(f"{k}={v}" for k, v in query)
    try:
        opts = parse_sim_url(url)
    except BenchURLError as exc:
        assert url in str(exc) or repr(url) in str(exc)  # control characters shown escaped
        return
    assert 0 <= opts.seed < 2**63 and 1 <= opts.dies <= 8 and 0 <= opts.corrupt_param <= 3


# ---- op programs ------------------------------------------------------------------------

BYTE = st.integers(0, 255)
INSTRUCTIONS = st.one_of(
    BYTE.map(lambda b: ("ce", b)),
    BYTE.map(lambda b: ("cmd", b)),
    st.binary(min_size=1, max_size=8).map(lambda d: ("addr", d)),
    st.binary(min_size=1, max_size=40).map(lambda d: ("din", d)),
    st.integers(1, 0xFFFFFF).map(lambda n: ("dout", n)),
    st.integers(0, 0xFFFFFF).map(lambda n: ("delay", n)),
    st.integers(0, 0xFFFFFF).map(lambda n: ("mark", n)),
    st.integers(0, 5).map(lambda n: ("timing", n)),
)


def _program(items: list[tuple[str, Any]]) -> Program:
    program = Program()
    for name, arg in items:
        getattr(program, name)(arg)
    return program


@QUICK
@given(st.lists(INSTRUCTIONS, max_size=20), st.data())
def test_op_programs_round_trip_and_damaged_words_are_refused(
    items: list[tuple[str, Any]], data: st.DataObject
) -> None:
    program = _program(items)
    words = program.encode()
    assert Program.decode(words) == program
    at = data.draw(st.integers(0, len(words) - 1))
    damaged = words[:at] + bytes([data.draw(BYTE)]) + words[at + 1 :]
    cut = data.draw(st.integers(0, len(damaged)))
    try:
        decoded = Program.decode(damaged[:cut])
    except OpProgramError as exc:
        assert "word" in str(exc) or "bytes" in str(exc)
        return
    assert decoded.encode() == damaged[:cut]


# ---- ONFI parameter pages ---------------------------------------------------------------


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """Three parameter page copies as a virtual MLC returns them."""
    state = tmp_path_factory.mktemp("pp")
    with open_bench(f"sim://mlc-64l?seed=1&fresh=1&state={state}") as bench:
        return Target(bench, 0).read_parameter_pages(3)


def _with_crc(page: bytearray) -> bytes:
    page[254:256] = parampage.crc16(bytes(page[:254])).to_bytes(2, "little")
    return bytes(page)


@QUICK
@given(edits=st.lists(st.tuples(st.integers(0, 253), BYTE), min_size=1, max_size=8))
def test_parameter_page_fields_decode_or_break_a_named_rule(
    pages: bytes, edits: list[tuple[int, int]]
) -> None:
    page = bytearray(pages[:256])
    for at, value in edits:
        page[at] = value
    try:
        fields = decode_parameter_page(_with_crc(page), bytes.fromhex("2cd3905aa9"))
    except ParameterPageInvalid as exc:
        assert "ONFI rules" in str(exc)
        return
    assert fields["revision"] == int.from_bytes(page[4:6], "little")


@QUICK
@given(edits=st.lists(st.tuples(st.integers(0, 767), BYTE), min_size=1, max_size=12))
def test_damaged_parameter_page_copies_give_a_good_copy_or_a_crc_error(
    pages: bytes, edits: list[tuple[int, int]]
) -> None:
    raw = bytearray(pages)
    for at, value in edits:
        raw[at] = value
    try:
        page, _ = choose_parameter_page(bytes(raw), 3)
    except NandlabError as exc:
        assert "CRC" in str(exc)
        return
    assert parampage.crc_ok(page)
