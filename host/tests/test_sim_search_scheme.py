"""The sim-search scheme: the paper's applications (B+tree leaf lookup, a secondary index
with BitWeaving-style masks, range queries from upper / lower bounds, partition gather),
bytes moved per point query, optimistic error correction, and every bad input refused."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from nandlab.errors import RangeError, UncorrectableData, UnsupportedCapability
from nandlab.onfi import Chip
from nandlab.onfi_spec import search as fmt
from nandlab.schemes.sim_search import SimSearch, range_bitmap
from nandlab.transport import open_bench

BLOCK = 8
FULL = (1 << 64) - 1


@pytest.fixture(scope="module")
def sim(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SimSearch]:
    state = tmp_path_factory.mktemp("die")
    with open_bench(f"sim://slc-search?seed=11&fresh=1&state={state}") as bench:
        chip = Chip(bench)
        chip.identify()
        chip.erase_block(BLOCK)
        yield SimSearch(chip)


def test_btree_leaf_point_query_and_bytes_moved(sim: SimSearch) -> None:
    rng = np.random.default_rng(1)
    keys = np.sort(rng.choice(1 << 40, fmt.DATA_SLOTS, replace=False)).astype(np.uint64)
    values = rng.integers(0, 1 << 63, fmt.DATA_SLOTS, dtype=np.uint64)
    sim.store(BLOCK, 0, [int(k) for k in keys])
    sim.store(BLOCK, 1, [int(v) for v in values])
    for i in (0, 17, 503):
        assert sim.point_query((BLOCK, 0), (BLOCK, 1), int(keys[i])) == int(values[i])
    absent = int(keys[5]) + 1 if keys[6] != keys[5] + 1 else int(keys[5]) + 2
    assert sim.point_query((BLOCK, 0), (BLOCK, 1), absent) is None
    sim.traffic = type(sim.traffic)()
    assert sim.point_query((BLOCK, 0), (BLOCK, 1), int(keys[200])) == int(values[200])
    t = sim.traffic
    # counted from the op programs: 256 B verification read + 64 B bitmap + one 64 B chunk
    # with its 4 ECC bytes out of the chip; key + mask + chunk bitmap in; 128 B to the host
    assert (t.chip_out, t.chip_in, t.host) == (256 + 64 + 68, 16 + 8, 128)
    assert 2 * 4096 / t.host == 64.0
    assert 21.0 < 2 * 4096 / t.chip_out < 21.5


def test_secondary_index_bitweaving_masks_and_gather(sim: SimSearch) -> None:
    # row = gender (1 bit) | age (7 bits) | city (8 bits) | user id (48 bits), big endian
    rng = np.random.default_rng(2)
    gender = rng.integers(0, 2, fmt.DATA_SLOTS)
    age = rng.integers(18, 90, fmt.DATA_SLOTS)
    city = rng.integers(0, 6, fmt.DATA_SLOTS)
    uid = rng.choice(1 << 48, fmt.DATA_SLOTS, replace=False)
    rows = [
        int(g) << 63 | int(a) << 56 | int(c) << 48 | int(u)
        for g, a, c, u in zip(gender, age, city, uid, strict=True)
    ]
    sim.store(BLOCK, 2, rows)
    female_in_city3 = sim.search(BLOCK, 2, 1 << 63 | 3 << 48, 1 << 63 | 0xFF << 48)
    want = [i + fmt.HEADER_SLOTS for i in range(fmt.DATA_SLOTS) if gender[i] == 1 and city[i] == 3]
    assert female_in_city3.path == "chip" and female_in_city3.slots == want and want
    ids = sim.slots_of(BLOCK, 2, female_in_city3.slots, opened=True)
    assert sorted(v & ((1 << 48) - 1) for v in ids.values()) == sorted(
        int(uid[s - 8]) for s in want
    )


def test_range_query_upper_and_lower_bounds(sim: SimSearch) -> None:
    rng = np.random.default_rng(3)
    salary = rng.integers(0, 1 << 14, fmt.DATA_SLOTS)
    uid = rng.integers(0, 1 << 32, fmt.DATA_SLOTS)
    # salary in the top 16 bits (big endian), as the paper's bit-sliced key
    sim.store(BLOCK, 3, [int(s) << 48 | int(u) for s, u in zip(salary, uid, strict=True)])
    got = range_bitmap(sim, BLOCK, 3, 2001, 7000, bits=16)
    # the paper's decomposition: salary <= 8191 AND NOT salary <= 1023
    want = [s < 8192 and not s < 1024 for s in salary]
    assert got[fmt.HEADER_SLOTS :].tolist() == want
    exact = [2001 <= s < 7000 for s in salary]
    assert all(
        g or not e for g, e in zip(want, exact, strict=True)
    )  # a superset: nothing in range is lost
    assert sum(want) < fmt.DATA_SLOTS  # and it does filter
    with pytest.raises(RangeError):
        range_bitmap(sim, BLOCK, 3, 10, 5, bits=16)


def test_partition_gather(sim: SimSearch) -> None:
    rng = np.random.default_rng(4)
    items = rng.integers(0, 1 << 63, fmt.DATA_SLOTS, dtype=np.uint64)
    sim.store(BLOCK, 4, [int(v) for v in items])
    for part in range(0, 8, 3):  # partition = the top 3 bits of the key (radix)
        hit = sim.search(BLOCK, 4, part << 61, 0b111 << 61)
        got = sim.slots_of(BLOCK, 4, hit.slots, opened=True)
        want = sorted(int(v) for v in items if int(v) >> 61 == part)
        assert sorted(got.values()) == want


def _raw_page(sim: SimSearch, page: int, flips: list[int], seed: int) -> np.ndarray:
    """Program a SiM page whose stored bits have `flips` inverted (written errors)."""
    values = np.random.default_rng(seed).integers(0, 1 << 63, fmt.DATA_SLOTS, dtype=np.uint64)
    stored = bytearray(fmt.encode_page(BLOCK, page, values.astype(">u8").tobytes()))
    for bit in flips:
        stored[bit // 8] ^= 0x80 >> (bit % 8)
    sim.chip.program_page(BLOCK, page, bytes(stored))
    return values


def test_corrupted_verification_read_falls_back_and_answers_right(sim: SimSearch) -> None:
    values = _raw_page(sim, 5, [100 * 8 + 3, 1000 * 8], seed=5)  # header sample + chunk 15
    key = int(values[(1000 - 64) // 8])  # the slot whose bit is flipped
    hit = sim.search(BLOCK, 5, key)
    assert hit.path == "fallback:crc" and hit.corrected_bits == 2
    assert hit.slots == [1000 // 8]


def test_default_policy_is_the_papers_age_margin(sim: SimSearch) -> None:
    values = _raw_page(sim, 10, [3000 * 8 + 1], seed=10)  # one error outside the 256-byte sample
    key = int(values[(3000 - 64) // 8])  # in slot 375, which the error changed
    hit = sim.search(BLOCK, 10, key)  # written at time 0: far older than 6 months
    assert sim.max_age_s == 4380 * 3600.0
    assert hit.path == "fallback:age" and hit.slots == [375] and hit.corrected_bits == 1
    ablation = SimSearch(sim.chip, max_age_s=None)  # the sample alone: it misses the error
    assert ablation.search(BLOCK, 10, key).path == "chip"
    assert ablation.search(BLOCK, 10, key).slots == []  # the wrong answer the margin prevents


def test_measure_io_runs_at_the_match_and_storage_rates(sim: SimSearch) -> None:
    rng = np.random.default_rng(12)
    keys = np.sort(rng.choice(1 << 40, fmt.DATA_SLOTS, replace=False)).astype(np.uint64)
    io = SimSearch(sim.chip, measure_io=True)
    io.store(BLOCK, 11, [int(k) for k in keys])
    io.store(BLOCK, 12, [int(k) ^ 0xFF for k in keys])
    assert io.point_query((BLOCK, 11), (BLOCK, 12), int(keys[9])) == int(keys[9]) ^ 0xFF
    # NV-DDR3 mode 1 (80 MT/s, ONFI: 12.5 ns a byte): 388 B out + 24 B in
    assert sim.chip.interface.mode == 1 and io.traffic.io_ns == (388 + 24) * 12.5
    io.page_read(BLOCK, 11, 4096)  # storage mode: NV-DDR3 mode 10, 800 MT/s
    assert sim.chip.interface.mode == 10 and io.traffic.io_ns == 5150 + 4096 * 1.25
    assert io.traffic.io_nJ > 0
    io.restore_interface()
    assert sim.chip.interface.interface == "sdr"


def test_uncorrectable_page_raises_after_every_retry(sim: SimSearch) -> None:
    _raw_page(sim, 6, [0, 9, 2000 * 8, 2000 * 8 + 5], seed=6)  # two errors in chunks 0 and 31
    with pytest.raises(UncorrectableData, match="every read offset"):
        sim.search(BLOCK, 6, 0)
    assert sim.chip.read_offsets_mV() == {name: 0.0 for name in sim.chip.read_offsets_mV()}


def test_aged_page_is_read_in_full(sim: SimSearch) -> None:
    now = [1000.0]
    aged = SimSearch(sim.chip, max_age_s=3600.0, clock=lambda: now[0])
    aged.store(BLOCK, 7, [5, 6, 7])
    assert aged.search(BLOCK, 7, 6).path == "chip"
    now[0] += 7200.0
    hit = aged.search(BLOCK, 7, 6)
    assert hit.path == "fallback:age" and hit.slots == [9]


def test_worn_baked_pages_never_give_a_wrong_answer(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    state = tmp_path_factory.mktemp("worn")
    with open_bench(f"sim://slc-search?seed=11&fresh=1&state={state}") as bench:
        chip = Chip(bench)
        chip.identify()
        bench.fast_forward_wear(0, BLOCK, 30000)
        chip.erase_block(BLOCK)
        sim = SimSearch(chip)
        rng = np.random.default_rng(7)
        pages = [rng.integers(0, 1 << 63, fmt.DATA_SLOTS, dtype=np.uint64) for _ in range(8)]
        for p, v in enumerate(pages):
            sim.store(BLOCK, p, [int(x) for x in v])
        bench.bake(85.0, 100.0)  # ~7 years at 30 C
        for p, v in enumerate(pages):
            hit = sim.search(BLOCK, p, int(v[250]))
            assert hit.slots == [250 + fmt.HEADER_SLOTS], (p, hit.path)
        # some verification reads failed: those pages were read in full, corrected and retried
        assert sim.stats.fallbacks > 0 and sim.stats.retries > 0


def test_bad_inputs_are_refused(sim: SimSearch, tmp_path_factory: pytest.TempPathFactory) -> None:
    with pytest.raises(RangeError, match="64 bits"):
        sim.search(BLOCK, 0, 1 << 64)
    with pytest.raises(RangeError, match="8 bytes"):
        sim.search(BLOCK, 0, b"\x01" * 7)
    with pytest.raises(RangeError, match="mask"):
        sim.search(BLOCK, 0, 1, -1)
    with pytest.raises(RangeError, match="slot 512"):
        sim.slots_of(BLOCK, 0, [512])
    with pytest.raises(RangeError, match="slot 3"):
        sim.slots_of(BLOCK, 0, [3])  # the header chunk is not data
    with pytest.raises(RangeError, match="chunk 64"):
        sim.gather(BLOCK, 0, [64])
    with pytest.raises(RangeError, match="505 slots"):
        sim.store(BLOCK, 9, list(range(505)))
    state = tmp_path_factory.mktemp("mlc")
    with open_bench(f"sim://mlc-64l?seed=1&fresh=1&state={state}") as bench:
        chip = Chip(bench)
        chip.identify()
        with pytest.raises(UnsupportedCapability, match="vendor.search"):
            SimSearch(chip)
