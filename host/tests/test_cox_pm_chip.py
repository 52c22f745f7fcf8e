"""The virtual CoX-PM die (tlc-coxpm) through its byte protocol: page format, set_pattern,
read_when_matched's three outcomes in status bits 4-3, the in-chip decoder correcting written
bit errors, busy time of the single and cache forms, and the logic's power."""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np
import pytest

from nandlab.codes import pif_code
from nandlab.errors import RangeError
from nandlab.onfi import Chip
from nandlab.onfi_spec import coxpm as fmt
from nandlab.onfi_spec.opcodes import Status
from nandlab.ops import Program
from nandlab.profiles import load_profile
from nandlab.sequences import core
from nandlab.sequences import coxpm as seq
from nandlab.transport import open_bench
from nandlab.transport.sim import SimTransport
from nandlab.vchip.coxpm import max_passes

BLOCK = 7
PAGE_BYTES = 16384
TOTAL = PAGE_BYTES + 2208


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SimTransport]:
    state = tmp_path_factory.mktemp("die")
    with open_bench(f"sim://tlc-coxpm?seed=4&fresh=1&state={state}") as b:
        assert isinstance(b, SimTransport)
        chip = Chip(b)
        chip.identify()
        chip.erase_block(BLOCK)
        yield b


@pytest.fixture(scope="module")
def chip(bench: SimTransport) -> Chip:
    return Chip(bench)


def _text(seed: int, inject: bytes = b"") -> bytes:
    rng = np.random.default_rng(seed)
    words = [b"flash", b"page", b"cell", b"string", b"block", b"plane"]
    text = b" ".join(words[i] for i in rng.integers(0, len(words), 4000))[:PAGE_BYTES]
    return text[:9000] + inject + text[9000 + len(inject) :] if inject else text


def _stored(page: int, data: bytes, flips: dict[int, int] | None = None) -> bytes:
    """The stored page with `flips` (codeword -> bit errors) written into it (seeded)."""
    raw = bytearray(fmt.encode_page(BLOCK, page, data, PAGE_BYTES, 2208))
    rng = np.random.default_rng(page)
    for cw, k in (flips or {}).items():
        for bit in rng.choice(9216, k, replace=False):
            pos = (
                cw * 1024 + bit // 8
                if bit < 8192
                else PAGE_BYTES + cw * 128 + (bit - 8192) // 8
            )
            raw[pos] ^= 0x80 >> (bit % 8)
    return bytes(raw)


def _run(chip: Chip, program: Program) -> list[bytes]:
    return [bytes(d) for d in chip.run(program, "test").data]


def _set(chip: Chip, payload: bytes) -> int:
    c = chip.profile.vendor.coxpm
    assert c is not None
    return _run(chip, seq.set_pattern(chip.sdr, c, payload, 10**6))[0][0]


def _rwm(chip: Chip, page: int, n: int = 0) -> tuple[fmt.Outcome, bytes, int]:
    c = chip.profile.vendor.coxpm
    assert c is not None
    row = chip.geometry.row_bytes(BLOCK, page)
    res = chip.run(seq.read_when_matched(chip.sdr, c, row, 10**6), "read_when_matched")
    out = _run(chip, seq.outcome_data(chip.sdr, n)) if n else [b""]
    return fmt.outcome_of(res.data[0][0]), out[0], int(sum(res.busy_ns))


def test_page_format_is_codewords_of_the_code() -> None:
    geo = load_profile("tlc-coxpm").geometry
    assert fmt.layout_problem(geo.page_bytes, geo.spare_bytes) is None
    assert fmt.layout_problem(16384, 2047) is not None
    assert fmt.layout_problem(4000, 2048) is not None
    data = _text(1)
    raw = fmt.encode_page(3, 9, data, PAGE_BYTES, 2208)
    assert len(raw) == TOTAL and raw[PAGE_BYTES + 2048 :] == b"\xff" * 160
    words = fmt.codewords(raw, PAGE_BYTES)
    code = pif_code()
    assert words.shape == (16, 9216) and not code.syndrome(words).any()
    # randomised: the stored bytes are not the data, and the stream differs per page
    assert raw[:PAGE_BYTES] != data.ljust(PAGE_BYTES, b"\0")
    assert fmt.encode_page(3, 10, data, PAGE_BYTES, 2208)[:64] != raw[:64]
    assert fmt.plain_data(3, 9, words) == data.ljust(PAGE_BYTES, b"\0")
    with pytest.raises(RangeError, match="do not fit"):
        fmt.encode_page(3, 9, b"x" * (PAGE_BYTES + 1), PAGE_BYTES, 2208)


def test_pattern_list_limits() -> None:
    pats = [b"a" * 32, b"bc", b"\x00\xff"]
    assert fmt.parse_patterns(fmt.pattern_bytes(pats)) == pats
    with pytest.raises(RangeError, match="1 to 8"):
        fmt.pattern_bytes([b"x"] * 9)
    with pytest.raises(RangeError, match="1 to 8"):
        fmt.pattern_bytes([])
    with pytest.raises(RangeError, match="pattern 1 is 33 bytes"):
        fmt.pattern_bytes([b"ok", b"y" * 33])
    with pytest.raises(RangeError, match="pattern 0 is 0 bytes"):
        fmt.pattern_bytes([b""])
    for bad in (b"", b"\x09" + b"\x01a" * 9, b"\x01\x21" + b"z" * 33, b"\x02\x01a", b"\x01\x05ab"):
        assert fmt.parse_patterns(bad) is None
    with pytest.raises(RangeError, match="11"):
        fmt.outcome_of(0b11 << 3)


def test_decoder_iteration_cap_fits_the_page_budget() -> None:
    c = load_profile("tlc-coxpm").vendor.coxpm
    assert c is not None
    passes = max_passes(c, 16)
    # one block column (128 bits) per cycle, 72 per pass, within 2.5 us per sub-page
    assert passes == 17 and passes * 72 / c.decoder_MHz <= c.t_decode_match_us / 16


def test_read_when_matched_outcomes(chip: Chip) -> None:
    hit, miss = _text(2, b"needle in the page"), _text(3)
    chip.program_page(BLOCK, 0, _stored(0, hit))
    chip.program_page(BLOCK, 1, _stored(1, miss))
    # 30 written errors in every codeword: the in-chip decoder fixes them
    chip.program_page(BLOCK, 2, _stored(2, hit, {cw: 30 for cw in range(16)}))
    # 120 in codeword 5: beyond the bit-flipping decoder
    chip.program_page(BLOCK, 3, _stored(3, hit, {5: 120}))
    assert _set(chip, fmt.pattern_bytes([b"absent", b"needle"])) & Status.FAIL == 0
    outcome, data, _ = _rwm(chip, 0, PAGE_BYTES)
    assert outcome is fmt.Outcome.MATCHED and data == hit.ljust(PAGE_BYTES, b"\0")
    outcome, data, _ = _rwm(chip, 1, 64)
    assert outcome is fmt.Outcome.NOT_MATCHED and data == b"\xff" * 64
    outcome, data, _ = _rwm(chip, 2, PAGE_BYTES)
    assert outcome is fmt.Outcome.MATCHED and data == hit.ljust(PAGE_BYTES, b"\0")
    outcome, data, _ = _rwm(chip, 3, TOTAL)
    # the chip sends the sensed page as stored (a fresh block: no raw errors of its own)
    assert outcome is fmt.Outcome.DECODING_FAILURE and data == _stored(3, hit, {5: 120})
    # the match runs on the data, not on the stored (randomised) bytes: independent reference
    assert re.search(b"needle", data) is None


def test_set_pattern_refuses_malformed_lists_with_fail(chip: Chip) -> None:
    assert _set(chip, b"\x09" + b"\x01a" * 9) & Status.FAIL
    # the refused list cleared the matcher: nothing matches
    chip.program_page(BLOCK, 4, _stored(4, _text(4, b"anything")))
    assert _rwm(chip, 4)[0] is fmt.Outcome.NOT_MATCHED
    assert _set(chip, fmt.pattern_bytes([b"anything"])) & Status.FAIL == 0
    assert _rwm(chip, 4)[0] is fmt.Outcome.MATCHED
    # RESET does not rewrite the matcher's tables: the patterns stay
    chip.run(core.reset(chip.sdr, 10**7), "reset")
    assert _rwm(chip, 4)[0] is fmt.Outcome.MATCHED


def test_busy_time_and_logic_power(bench: SimTransport, chip: Chip) -> None:
    c = chip.profile.vendor.coxpm
    assert c is not None
    pages = [5, 6, 7]  # upper, lower, middle pages: tR 40, 40, 45 us
    for p in pages:
        chip.program_page(BLOCK, p, _stored(p, _text(p, b"zebra" if p == 6 else b"")))
    _set(chip, fmt.pattern_bytes([b"zebra"]))
    busy = [_rwm(chip, p)[2] for p in pages]
    assert busy == [80_000, 80_000, 85_000]  # tR + 40 us decode + match
    die = bench.dies[0]
    t, row = chip.sdr, chip.geometry.row_bytes
    t0 = die.now_ns
    res = [chip.run(seq.read_when_matched_cache(t, c, row(BLOCK, p), 10**6), "c") for p in pages]
    last = chip.run(seq.read_when_matched_last(t, c, 10**6), "last")
    t1 = die.now_ns
    # the decode of page n hides behind the sensing of page n + 1
    assert [int(sum(r.busy_ns)) for r in res] == [40_000, 40_000, 45_000]
    assert int(sum(last.busy_ns)) == 40_000
    outcomes = [fmt.outcome_of(r.data[0][0]) for r in [*res[1:], last]]
    assert outcomes == [fmt.Outcome.NOT_MATCHED, fmt.Outcome.MATCHED, fmt.Outcome.NOT_MATCHED]
    # the three decodes draw logic_mW over idle on VCC, on top of the three reads
    p = chip.profile.power
    logic_nJ = 3 * c.logic_mW * c.t_decode_match_us
    reads_nJ = sum(
        (p.read_mA - p.idle_mA) * p.vcc_V * tr for tr in (40.0, 40.0, 45.0)
    )
    io_nJ = die.power.energy_nJ(t0, t1) - p.idle_mA * p.vcc_V * (t1 - t0) / 1000.0
    assert io_nJ - reads_nJ - logic_nJ == pytest.approx(0.0, abs=0.25 * logic_nJ / 3)
    # within the paper's power rule: P_read + P_logic <= P_program, logic <= 20 mW
    assert c.logic_mW <= 20.0
    assert p.read_mA * p.vcc_V + c.logic_mW <= p.program_mA * p.vcc_V
