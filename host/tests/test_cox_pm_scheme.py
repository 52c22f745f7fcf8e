"""The cox-pm scheme: answers against an independent host reference (re over the data written)
on fresh, worn and retained blocks (so the in-chip decoder fails and the controller's fallback
answers), the cache and single forms agreeing, and every bad input refused."""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np
import pytest

from nandlab.errors import RangeError, UnsupportedCapability
from nandlab.onfi import Chip
from nandlab.schemes.cox_pm import CoxPmScan
from nandlab.transport import open_bench
from nandlab.transport.sim import SimTransport

PAGE_BYTES = 16384
WORDS = [b"alpha", b"bravo", b"delta", b"kilo", b"lima", b"oscar", b"romeo", b"tango"]
PATTERNS = [b"apple tree", b"zebra", b"kilo oscar kilo tango"]


def _page_text(rng: np.random.Generator, plant: bytes | None) -> bytes:
    text = b" ".join(WORDS[i] for i in rng.integers(0, len(WORDS), 3000))[:PAGE_BYTES]
    if plant is None:
        return text
    at = int(rng.integers(0, PAGE_BYTES - len(plant)))
    return text[:at] + plant + text[at + len(plant) :]


def _dataset(seed: int, n: int) -> list[bytes]:
    rng = np.random.default_rng(seed)
    plants = [b"apple tree", b"zebra", None, None]
    return [_page_text(rng, plants[int(rng.integers(0, 4))]) for _ in range(n)]


def _reference(data: bytes, patterns: list[bytes]) -> bool:
    return re.search(b"|".join(re.escape(p) for p in patterns), data) is not None


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CoxPmScan]:
    state = tmp_path_factory.mktemp("die")
    with open_bench(f"sim://tlc-coxpm?seed=21&fresh=1&state={state}") as bench:
        chip = Chip(bench)
        chip.identify()
        yield CoxPmScan(chip, allow_test_mode=True)


def _check(answers: list, pages: list[bytes], patterns: list[bytes]) -> None:
    for a, data in zip(answers, pages, strict=True):
        want = _reference(data, patterns)
        assert a.matched == want, f"page {a.page}"
        assert (a.data == data.ljust(PAGE_BYTES, b"\0")) if want else a.data is None


def test_fresh_scan_matches_the_host_reference(fresh: CoxPmScan) -> None:
    pages = _dataset(1, 6)
    fresh.chip.erase_block(3)
    for p, data in enumerate(pages):
        fresh.store(3, p, data)
    fresh.set_patterns(PATTERNS)
    cached = fresh.scan(3, range(6))
    _check(cached, pages, PATTERNS)
    assert {a.path for a in cached} == {"chip"} and any(a.matched for a in cached)
    # bytes to the host: only the matched pages' data
    assert sum(a.host_bytes for a in cached) == PAGE_BYTES * sum(a.matched for a in cached)
    single = fresh.scan(3, range(6), cache=False)
    assert [a.matched for a in single] == [a.matched for a in cached]
    # the cache form hides the 40 us decode behind the next sensing
    assert sum(a.busy_us for a in cached) < sum(a.busy_us for a in single) - 5 * 39.0
    fresh.set_patterns(["kilo oscar kilo tango"])  # str patterns are UTF-8
    _check(fresh.scan(3, [0, 2, 5]), [pages[0], pages[2], pages[5]], [PATTERNS[2]])


def test_bad_inputs_are_refused(fresh: CoxPmScan, tmp_path_factory: pytest.TempPathFactory) -> None:
    with pytest.raises(RangeError, match="1 to 8"):
        fresh.set_patterns([b"x"] * 9)
    with pytest.raises(RangeError, match="33 bytes"):
        fresh.set_patterns([b"y" * 33])
    scan = CoxPmScan(fresh.chip, allow_test_mode=True)
    with pytest.raises(RangeError, match="set_patterns first"):
        scan.scan(3, [0])
    state = tmp_path_factory.mktemp("plain")
    with open_bench(f"sim://tlc-48l?seed=1&fresh=1&state={state}") as bench:
        chip = Chip(bench)
        chip.identify()
        assert CoxPmScan.unsupported(chip) is not None
        with pytest.raises(UnsupportedCapability, match="coxpm"):
            CoxPmScan(chip)


def test_worn_retained_block_falls_back_and_stays_right(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    state = tmp_path_factory.mktemp("worn")
    with open_bench(f"sim://tlc-coxpm?seed=22&fresh=1&state={state}") as bench:
        assert isinstance(bench, SimTransport)
        chip = Chip(bench)
        chip.identify()
        scan = CoxPmScan(chip, allow_test_mode=True)
        bench.fast_forward_wear(0, 5, 2000)
        chip.erase_block(5)
        pages = _dataset(2, 6)
        for p, data in enumerate(pages):
            scan.store(5, p, data)
        bench.bake(30.0, 365 * 24.0)  # 2K P/E + 12 months: past the in-chip decoder
        scan.set_patterns(PATTERNS[:2])
        answers = scan.scan(5, range(6))
        _check(answers, pages, PATTERNS[:2])
        fallbacks = [a for a in answers if a.path == "fallback"]
        assert fallbacks and scan.stats.decoding_failures == len(fallbacks)
        # one soft read per fallback, one more per retry (a soft decode that failed)
        assert scan.stats.soft_reads == len(fallbacks) + scan.stats.retries
        # the controller corrected more raw errors than the chip's decoder handles per page
        assert all(a.bit_errors is not None and a.bit_errors > 16 * 40 for a in fallbacks)
