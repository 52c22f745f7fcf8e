"""Bench URLs, in the manner of pyftdi's device URLs.

A URL names the transport (its scheme) and the transport's options::

    sim://mlc-64l?seed=7&dies=2          built-in profile by name
    sim:///abs/path/to/part.yaml         user profile by absolute path
    sim://?profile=rel/path/part.yaml    user profile by any path
    rtl://slc-search?seed=3              the FPGA RTL in simulation (nandlab.transport.rtl)
    ftdi://ftdi:2232h/1?board=...        FT2232H bench (nandlab.transport.ftdi)
    xdma:///dev/xdma0?board=...          PCIe FPGA bench (nandlab.transport.xdma)

This module parses `sim://`; each other transport parses its own URLs.

Options of `sim://`: seed=N (physics seed, default 0), dies=K (chip enables,
1..8, default 1), fresh=1 (discard the saved die image), state=DIR (where die
images live), board=NAME|PATH (a board file: interface negotiation keeps to its
modes and warm-up, as on the FPGA bench it describes), and, as a test aid,
corrupt_param=N (0..3: the dies damage their first N parameter page copies; 3
leaves only the bitwise majority intact).

Parsing only checks the form; loading the profile is the transport's job, so
an unknown profile surfaces as the loader's ProfileError.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import SplitResult, parse_qsl, urlencode, urlsplit

from nandlab.errors import BenchURLError

SIM_FORM = "sim://PROFILE?seed=N&dies=K&fresh=1&state=DIR (or sim:///path/profile.yaml, sim://?profile=PATH)"
MAX_SIM_DIES = 8


@dataclass(frozen=True)
class SimOptions:
    """Options of a `sim://` bench.

    profile: built-in profile name or path to a profile YAML.
    seed: seed of the virtual dies' physics (>= 0).
    dies: virtual dies, one per chip enable (1..8).
    fresh: start from fresh dies, discarding any saved die image.
    state: folder holding die images (default: the user data dir).
    corrupt_param: test aid: the dies corrupt this many leading parameter
        page copies (0..3), to exercise the CRC / majority paths.
    board: a board file (name or path) whose interfaces the bench keeps to.
    """

    profile: str
    seed: int = 0
    dies: int = 1
    fresh: bool = False
    state: Path | None = None
    corrupt_param: int = 0
    board: str | None = None


def _scheme(url: str) -> str:
    bad = next((c for c in url if ord(c) < 0x20 or ord(c) == 0x7F), None)
    if bad is not None:  # a NUL would reach the file system as a path
        raise BenchURLError(f"bench URL {url!r} holds the control character {bad!r}")
    if "://" not in url:
        raise BenchURLError(f"bench URL '{url}' has no scheme: use {SIM_FORM}")
    return url.split("://", 1)[0].lower()


def split_url(url: str, form: str) -> SplitResult:
    """urlsplit, with its ValueError (unbalanced '[' / ']', a bad port) as BenchURLError."""
    try:
        return urlsplit(url)
    except ValueError as exc:
        raise BenchURLError(f"bench URL '{url}' is malformed ({exc}); form: {form}") from None


def query_options(url: str, query: str, allowed: frozenset[str], form: str) -> dict[str, str]:
    """A bench URL's options; BenchURLError for a malformed query, an option not in
    `allowed` or one given twice, each message ending with the URL `form`."""
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        raise BenchURLError(f"bench URL '{url}': malformed query; form: {form}") from None
    options: dict[str, str] = {}
    for key, value in pairs:
        if key not in allowed:
            raise BenchURLError(
                f"bench URL '{url}': unknown option '{key}': allowed "
                f"{', '.join(sorted(allowed))}; form: {form}"
            )
        if key in options:
            raise BenchURLError(f"bench URL '{url}': option '{key}' given twice")
        options[key] = value
    return options


def int_option(url: str, key: str, value: str, lo: int, hi: int | None, form: str) -> int:
    """An integer option in lo..hi (hi None: no upper bound); BenchURLError otherwise."""
    try:
        number = int(value, 10) if len(value) <= 40 else None  # int() refuses > 4300 digits
    except ValueError:
        number = None
    allowed = f"{lo}..{hi}" if hi is not None else f">= {lo}"
    if number is None or number < lo or (hi is not None and number > hi):
        raise BenchURLError(
            f"bench URL '{url}': {key}='{value}' is not an integer in {allowed}; form: {form}"
        )
    return number


def parse_sim_url(url: str) -> SimOptions:
    """Parse a `sim://` URL; raises BenchURLError naming the fault and the allowed form."""
    if _scheme(url) != "sim":
        raise BenchURLError(f"'{url}' is not a sim:// URL: use {SIM_FORM}")
    parts = split_url(url, SIM_FORM)
    if parts.fragment:
        raise BenchURLError(f"bench URL '{url}': no #fragment is allowed; form: {SIM_FORM}")
    query = query_options(url, parts.query, _SIM_KEYS, SIM_FORM)

    host_profile = parts.netloc
    path_profile = parts.path if parts.path not in ("", "/") else ""
    if host_profile and path_profile:
        raise BenchURLError(
            f"bench URL '{url}': give either a built-in profile name or a path, not both; "
            f"form: {SIM_FORM}"
        )
    named = [p for p in (host_profile, path_profile, query.get("profile", "")) if p]
    if not named:
        raise BenchURLError(f"bench URL '{url}' names no chip profile; form: {SIM_FORM}")
    if len(named) > 1:
        raise BenchURLError(f"bench URL '{url}' names the profile twice; form: {SIM_FORM}")

    fresh = query.get("fresh", "0")
    if fresh not in ("0", "1"):
        raise BenchURLError(f"bench URL '{url}': fresh='{fresh}' must be 0 or 1; form: {SIM_FORM}")
    state = query.get("state")
    if state == "":
        raise BenchURLError(f"bench URL '{url}': state= needs a folder; form: {SIM_FORM}")
    try:
        state_dir = Path(state).expanduser() if state else None
    except (RuntimeError, ValueError):  # ~user of a user this machine does not know
        raise BenchURLError(f"bench URL '{url}': state={state}: no such home folder") from None
    return SimOptions(
        profile=named[0],
        seed=int_option(url, "seed", query.get("seed", "0"), 0, 2**63 - 1, SIM_FORM),
        dies=int_option(url, "dies", query.get("dies", "1"), 1, MAX_SIM_DIES, SIM_FORM),
        fresh=fresh == "1",
        state=state_dir,
        corrupt_param=int_option(
            url, "corrupt_param", query.get("corrupt_param", "0"), 0, 3, SIM_FORM
        ),
        board=query.get("board") or None,
    )


_SIM_KEYS = frozenset({"seed", "dies", "fresh", "state", "profile", "corrupt_param", "board"})
KNOWN_SCHEMES = ("sim", "rtl", "ftdi", "xdma")


def scheme_of(url: str) -> str:
    """The URL's scheme, checked against the transports this build provides."""
    scheme = _scheme(url)
    if scheme not in KNOWN_SCHEMES:
        raise BenchURLError(
            f"bench URL '{url}': unknown transport '{scheme}://': available "
            f"{', '.join(s + '://' for s in KNOWN_SCHEMES)}; form: {SIM_FORM}"
        )
    return scheme


def with_fresh(url: str, fresh: bool = True) -> str:
    """`url` with fresh=1 in its query (fresh) or without any fresh= (not fresh).

    Not urlunsplit: it drops the "//" of a URL with an empty host (sim://?profile=...).
    A malformed URL or query is left as it is, for the URL parser to report.
    """
    try:
        parts = urlsplit(url)
        query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "fresh"]
    except ValueError:
        return url
    if fresh:
        query.append(("fresh", "1"))
    base = url.split("?", 1)[0].split("#", 1)[0]
    fragment = f"#{parts.fragment}" if parts.fragment else ""
    return f"{base}?{urlencode(query, safe='/')}{fragment}" if query else f"{base}{fragment}"

