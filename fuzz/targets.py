"""Fuzz targets for the parsers that take input from outside: campaign files, expressions,
bench URLs, ONFI parameter pages and op programs / result streams.

Each target takes bytes and either returns (the input was valid, or was refused with the
typed error its layer documents) or raises: any other exception, a RecursionError or a
MemoryError is a finding. `fuzz/run.py` drives them with atheris (`make fuzz`);
`tests/test_fuzz_corpus.py` replays the committed corpus (`fuzz/corpus/<target>/`) through
the same functions in `make test`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from nandlab.campaign.preflight import bench_profile, preflight
from nandlab.campaign.schema import parse_campaign
from nandlab.campaign.yamlmarks import CampaignFileError
from nandlab.errors import NandlabError, OpProgramError, UsageError
from nandlab.onfi.identify import choose_parameter_page, decode_parameter_page
from nandlab.onfi_spec.parampage import PARAMETER_PAGE_BYTES
from nandlab.ops.program import Program
from nandlab.ops.results import decode_results
from nandlab.schemes.expr import MAX_CHARS, ExprError, parse
from nandlab.transport.ftdi.options import parse_ftdi_url
from nandlab.transport.rtl import parse_rtl_url
from nandlab.transport.url import parse_sim_url, scheme_of
from nandlab.transport.xdma import parse_xdma_url
from nandlab.yamlfile import decode_text

# `file:` patterns of fuzzed campaigns are looked up here: an empty folder
_CAMPAIGN_DIR = Path(tempfile.mkdtemp(prefix="nandlab-fuzz-"))
_ID_BYTES = bytes.fromhex("2cd3905aa9")
"""READ ID bytes of an MLC part (byte 2 = 90h: 4 levels), as decode_parameter_page takes."""


def campaign(data: bytes) -> None:
    """A campaign file: parsed, validated and checked without a chip (what `nandlab run`
    does before it opens the bench); refusals are UsageError."""
    try:
        text = decode_text(data, "fuzz.yaml", CampaignFileError)
        preflight(parse_campaign(text, "fuzz.yaml"), _CAMPAIGN_DIR)
    except UsageError as exc:
        if isinstance(exc, CampaignFileError):
            assert str(exc).startswith("fuzz.yaml"), f"message names no file: {exc}"


def expression(data: bytes) -> None:
    """An expression: a tree whose text parses back to the same tree (when that text, with
    its ranges written out, is within the parser's length bound), or an ExprError."""
    text = data.decode("utf-8", errors="replace")
    try:
        tree = parse(text)
    except ExprError:
        return
    if len(str(tree)) <= MAX_CHARS:
        assert parse(str(tree)) == tree, f"{text!r} -> {tree} does not parse back"


def url(data: bytes) -> None:
    """A bench URL: its transport's options and the profile it names, or a UsageError."""
    text = data.decode("utf-8", errors="replace")
    try:
        scheme = scheme_of(text)
        if scheme == "sim":
            opts = parse_sim_url(text)
            assert 0 <= opts.seed < 2**63 and 1 <= opts.dies
        else:
            {"rtl": parse_rtl_url, "ftdi": parse_ftdi_url, "xdma": parse_xdma_url}[scheme](text)
        bench_profile(text)
    except UsageError:
        return


def parameter_page(data: bytes) -> None:
    """Three parameter page copies as READ PARAMETER PAGE returns them: the chosen copy
    and its fields, or a typed error (CRC, fatal ONFI rule)."""
    raw = data[: 3 * PARAMETER_PAGE_BYTES].ljust(3 * PARAMETER_PAGE_BYTES, b"\xff")
    try:
        page, _ = choose_parameter_page(raw, 3)
        decode_parameter_page(page, _ID_BYTES)
    except NandlabError:
        return


def op_program(data: bytes) -> None:
    """An encoded op program (first byte even) or result stream (odd): decoded, and a
    decoded program encodes back to the same words; else OpProgramError."""
    body = data[1:]
    try:
        if data[:1] and data[0] & 1:
            decode_results(body)
            return
        program = Program.decode(body)
    except OpProgramError:
        return
    assert program.encode() == body, (
        "a decoded program does not encode back to its words"
    )


TARGETS: dict[str, Callable[[bytes], None]] = {
    "campaign": campaign,
    "expression": expression,
    "url": url,
    "parameter_page": parameter_page,
    "op_program": op_program,
}
