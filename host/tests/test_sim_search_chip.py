"""The virtual SiM die (slc-search): search bit-exact against a host reference on error-free
pages (the paper's Sec. III), gather, page-open-cache / page-close, and raw bit errors that
show up in the bitmap when the sensed page has them."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from nandlab.onfi import Chip
from nandlab.onfi_spec import search as fmt
from nandlab.ops import Program
from nandlab.sequences import core
from nandlab.sequences import search as seq
from nandlab.transport import open_bench

BLOCK = 6


@pytest.fixture(scope="module")
def chip(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chip]:
    state = tmp_path_factory.mktemp("die")
    with open_bench(f"sim://slc-search?seed=9&fresh=1&state={state}") as bench:
        c = Chip(bench)
        c.identify()
        c.erase_block(BLOCK)
        yield c


def _values(seed: int) -> np.ndarray:
    """Random slot values with repeats and shared fields, so masks find several slots."""
    rng = np.random.default_rng(seed)
    v = rng.integers(0, 1 << 63, fmt.DATA_SLOTS, dtype=np.uint64)
    v[rng.integers(0, fmt.DATA_SLOTS, 40)] = v[3]
    v[::7] = (v[::7] & np.uint64(0x00FFFFFFFFFFFFFF)) | np.uint64(0x2A << 56)
    return v


def _store(chip: Chip, page: int, values: np.ndarray) -> bytes:
    stored = fmt.encode_page(BLOCK, page, values.astype(">u8").tobytes())
    chip.program_page(BLOCK, page, stored)
    return stored


def _run(chip: Chip, program: seq.Program) -> list[bytes]:
    return [bytes(d) for d in chip.run(program, "test").data]


def _search(chip: Chip, key: int, mask: int, threshold: int = 0) -> np.ndarray:
    s = chip.profile.vendor.search
    k, m = key.to_bytes(8, "big"), mask.to_bytes(8, "big")
    prog = seq.search(chip.sdr, s, k, m, threshold, 10**6)
    return fmt.bitmap_bits(_run(chip, prog)[0])


def _open(chip: Chip, page: int, *, cache: bool = False, sample: int = fmt.SAMPLE_BYTES) -> bytes:
    s, row = chip.profile.vendor.search, chip.geometry.row_bytes(BLOCK, page)
    if cache:
        _run(chip, seq.page_open_cache(chip.sdr, s, row, 10**6))
        return b""
    out = _run(chip, seq.page_open(chip.sdr, s, row, sample, 10**6))
    return out[0] if out else b""


def _reference(plain: bytes, key: int, mask: int) -> list[bool]:
    """Slot by slot in plain Python: (slot XOR key) AND mask == 0."""
    slots = [int.from_bytes(plain[i : i + 8], "big") for i in range(0, fmt.DATA_BYTES, 8)]
    return [(v ^ key) & mask == 0 for v in slots]


def test_search_bit_exact_against_host_reference(chip: Chip) -> None:
    values = _values(1)
    stored = _store(chip, 0, values)
    plain = fmt.derandomize(BLOCK, 0, 0, stored[: fmt.DATA_BYTES])
    sample = _open(chip, 0)
    assert sample == stored[: fmt.SAMPLE_BYTES] and fmt.sample_ok(BLOCK, 0, sample)
    rng = np.random.default_rng(2)
    queries = [(int(values[3]), (1 << 64) - 1), (0x2A << 56, 0xFF << 56), (0, 0), (1, 1)]
    for _ in range(40):
        key = int(values[rng.integers(0, len(values))])
        lo, hi = sorted(rng.integers(0, 65, 2))
        mask = ((1 << int(hi)) - 1) ^ ((1 << int(lo)) - 1) | int(rng.integers(0, 1 << 63))
        queries.append((key ^ int(rng.integers(0, 2)), mask))
    hits = 0
    for key, mask in queries:
        got = _search(chip, key, mask)
        want = _reference(plain, key, mask)
        assert got.tolist() == want, (hex(key), hex(mask))
        hits += sum(want)
    assert hits > 100  # the queries do find slots, not just empty bitmaps
    assert _search(chip, int(values[3]), (1 << 64) - 1)[fmt.HEADER_SLOTS :].sum() >= 30


def test_gather_returns_stored_chunks_with_their_ecc(chip: Chip) -> None:
    stored = _store(chip, 1, _values(3))
    _open(chip, 1, sample=0)
    s = chip.profile.vendor.search
    chunks = [0, 5, 63]
    out = _run(chip, seq.gather(chip.sdr, s, fmt.chunk_map(chunks)))[0]
    assert len(out) == len(chunks) * fmt.GATHER_UNIT
    for i, c in enumerate(chunks):
        unit = out[i * fmt.GATHER_UNIT : (i + 1) * fmt.GATHER_UNIT]
        assert unit[:64] == stored[c * 64 : (c + 1) * 64]
        assert unit[64:] == stored[4096 + 4 * c : 4096 + 4 * c + 4]


def test_page_open_cache_keeps_the_active_page_until_close(chip: Chip) -> None:
    a, b = _values(5), _values(6)
    _store(chip, 2, a)
    stored_b = _store(chip, 3, b)
    key = int(a[10])
    _open(chip, 2)
    _open(chip, 3, cache=True)
    assert _search(chip, key, (1 << 64) - 1)[fmt.HEADER_SLOTS + 10]  # still page 2
    s = chip.profile.vendor.search
    sample = _run(chip, seq.page_close(chip.sdr, s, fmt.SAMPLE_BYTES))[0]
    assert sample == stored_b[: fmt.SAMPLE_BYTES]
    got = _search(chip, int(b[10]), (1 << 64) - 1)
    assert (
        got[fmt.HEADER_SLOTS + 10] and not _search(chip, key, (1 << 64) - 1)[fmt.HEADER_SLOTS + 10]
    )
    # page-close with nothing pending: no active page, a search is ignored (FFh out)
    _run(chip, seq.page_close(chip.sdr, s, 0))
    assert _run(chip, seq.search(chip.sdr, s, b"\0" * 8, b"\0" * 8, 0, 10**6))[0] == b"\xff" * 64


def test_threshold_reports_slots_within_t_failed_bits(chip: Chip) -> None:
    """The failed-bit count of each 64-bitline group against t: a slot differing from the
    key in d masked bits is reported exactly when d <= t; unmasked differences count for
    nothing; a threshold past 63 makes the search a no-op (FFh out)."""
    values = _values(11)
    _store(chip, 4, values)
    plain = fmt.derandomize(BLOCK, 4, 0, fmt.encode_page(BLOCK, 4, values.astype(">u8").tobytes()))
    slots = [int.from_bytes(plain[i : i + 8], "big") for i in range(0, fmt.DATA_BYTES, 8)]
    _open(chip, 4, sample=0)
    rng = np.random.default_rng(12)
    for _ in range(12):
        key = int(rng.integers(0, 1 << 63)) | int(rng.integers(0, 2)) << 63
        mask = int(rng.integers(0, 1 << 63)) << 1 | 1
        distance = [bin((v ^ key) & mask).count("1") for v in slots]
        for t in (0, 1, 2, 17, 30, 63):
            got = _search(chip, key, mask, t)
            assert got.tolist() == [d <= t for d in distance], (hex(key), hex(mask), t)
    near = int(values[20]) ^ 0b101 << 30  # two bits away from slot 28
    assert not _search(chip, near, (1 << 64) - 1, 1)[fmt.HEADER_SLOTS + 20]
    assert _search(chip, near, (1 << 64) - 1, 2)[fmt.HEADER_SLOTS + 20]
    assert _search(chip, near, ~(0b101 << 30) & ((1 << 64) - 1), 0)[fmt.HEADER_SLOTS + 20]
    s = chip.profile.vendor.search
    din = b"\0" * 16 + bytes([fmt.MAX_THRESHOLD + 1])
    prog = Program().cmd(s.search_cmd) + core.data_in(chip.sdr, din)
    prog += Program().cmd(s.search_confirm) + core.busy(chip.sdr, 10**6)
    assert _run(chip, prog + core.data_out(chip.sdr, 64))[0] == b"\xff" * 64
    with pytest.raises(ValueError, match="threshold 64 out of range 0..63"):
        seq.search(chip.sdr, s, b"\0" * 8, b"\0" * 8, 64, 10**6)


def test_search_sees_raw_bit_errors_of_the_sensed_page(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    state = tmp_path_factory.mktemp("worn")
    with open_bench(f"sim://slc-search?seed=9&fresh=1&state={state}") as bench:
        chip = Chip(bench)
        chip.identify()
        bench.fast_forward_wear(0, BLOCK, 60000)
        chip.erase_block(BLOCK)
        values = _values(7)
        _store(chip, 0, values)
        bench.bake(85.0, 100.0)
        _open(chip, 0)
        missed = sum(
            not _search(chip, int(v), (1 << 64) - 1)[fmt.HEADER_SLOTS + i]
            for i, v in enumerate(values[:200])
        )
    # ~400 raw bit errors per page at 60K P/E + 100 h at 85 C: some slots no longer match
    assert 0 < missed < 200
