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
        yield SimSearch(chip, allow_test_mode=True)


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
    exact = SimSearch(sim.chip, clock=sim.clock, threshold=0, allow_test_mode=True)
    for s in (sim, exact):
        s.traffic = type(s.traffic)()
        assert s.point_query((BLOCK, 0), (BLOCK, 1), int(keys[200])) == int(values[200])
    # counted from the op programs. The paper's search (t = 0): 256 B verification read +
    # 64 B bitmap + the value chunk with its 4 ECC bytes out of the chip; key + mask +
    # threshold + chunk bitmap in; 128 B to the host
    t = exact.traffic
    assert (t.chip_out, t.chip_in, t.host) == (256 + 64 + 68, 17 + 8, 128)
    assert 2 * 4096 / t.host == 64.0
    assert 21.0 < 2 * 4096 / t.chip_out < 21.2
    # the tolerant search (t = 2) gathers the candidate's key chunk as well: one more chunk
    # map in, one more chunk with its ECC out, one more 64 B to the host
    t = sim.traffic
    assert (t.chip_out, t.chip_in, t.host) == (256 + 64 + 2 * 68, 17 + 2 * 8, 192)


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
    key, mask = 1 << 63 | 3 << 48, 1 << 63 | 0xFF << 48
    exact = SimSearch(sim.chip, clock=sim.clock, threshold=0, allow_test_mode=True)
    female_in_city3 = exact.search(BLOCK, 2, key, mask)
    want = [i + fmt.HEADER_SLOTS for i in range(fmt.DATA_SLOTS) if gender[i] == 1 and city[i] == 3]
    assert female_in_city3.path == "chip" and female_in_city3.slots == want and want
    # t = 2 over a 9-bit field: many slots are within two bits (335 here), every chunk holding
    # one is gathered (63 x 68 B: still less than a full read's 4352) and confirmed on the host
    before = sim.traffic.chip_out
    tolerant = sim.search(BLOCK, 2, key, mask)
    assert tolerant.path == "chip" and tolerant.slots == want
    assert tolerant.candidates == 335
    assert sim.traffic.chip_out - before == 256 + 64 + 63 * 68
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
    # the sample alone with the paper's exact search: it misses the error, a wrong answer
    ablation = SimSearch(sim.chip, max_age_s=None, threshold=0, allow_test_mode=True)
    assert ablation.search(BLOCK, 10, key).path == "chip"
    assert ablation.search(BLOCK, 10, key).slots == []
    # the tolerant search needs no margin for one error: the slot is a candidate, its chunk
    # is corrected by the ECC and the host confirms it
    tolerant = SimSearch(sim.chip, max_age_s=None, allow_test_mode=True).search(BLOCK, 10, key)
    assert (tolerant.path, tolerant.slots, tolerant.corrected_bits) == ("chip", [375], 1)


def test_errors_in_a_matching_slot_within_t_are_still_found(sim: SimSearch) -> None:
    """Raw bit errors outside the verification read, on a page younger than the margin: the
    paper's exact search misses the slot; t = 2 finds it (one error per chunk: corrected) or
    refuses to answer (two in one chunk: the ECC sees them), never answers wrong."""
    young = 0.0  # _raw_page writes timestamp 0: the page is new by this clock
    policies = {
        t: SimSearch(sim.chip, clock=lambda: young, threshold=t, allow_test_mode=True)
        for t in (0, 1, 2)
    }
    # one error in the key's slot (chunk 47), one in another chunk (chunk 50)
    values = _raw_page(sim, 13, [3000 * 8 + 1, 3200 * 8 + 6], seed=13)
    key = int(values[(3000 - 64) // 8])
    assert policies[0].search(BLOCK, 13, key).slots == []  # the paper's search: missed
    for t in (1, 2):
        hit = policies[t].search(BLOCK, 13, key)
        assert (hit.path, hit.slots, hit.corrected_bits) == ("chip", [375], 1)
        assert hit.candidates == 1
    # two errors in the key's slot: t = 1 cannot see it (the bound: more than t errors);
    # t = 2 makes it a candidate, the chunk ECC detects the double error and the page's
    # full read cannot correct written errors at any offset: no answer, not a wrong one
    values = _raw_page(sim, 14, [3000 * 8 + 1, 3000 * 8 + 60], seed=14)
    key = int(values[(3000 - 64) // 8])
    assert policies[0].search(BLOCK, 14, key).slots == []
    assert policies[1].search(BLOCK, 14, key).slots == []
    with pytest.raises(UncorrectableData):
        policies[2].search(BLOCK, 14, key)
    assert policies[2].stats.chunk_fallbacks == 1


def test_tolerant_search_is_bit_identical_to_exact_on_a_clean_page(sim: SimSearch) -> None:
    rng = np.random.default_rng(15)
    values = rng.integers(0, 1 << 63, fmt.DATA_SLOTS, dtype=np.uint64)
    values[rng.integers(0, fmt.DATA_SLOTS, 30)] = values[7]
    sim.store(BLOCK, 15, [int(v) for v in values])
    exact = SimSearch(sim.chip, clock=sim.clock, threshold=0, allow_test_mode=True)
    paths = set()
    for i in range(24):
        key = int(values[rng.integers(0, fmt.DATA_SLOTS)]) ^ (i % 2)
        mask = FULL if i < 8 else int(rng.integers(1, 1 << 63)) << int(rng.integers(0, 2))
        a, b = sim.search(BLOCK, 15, key, mask), exact.search(BLOCK, 15, key, mask)
        want = [(int(v) ^ key) & mask == 0 for v in values]
        assert a.matches.tolist() == b.matches.tolist()
        assert a.matches[fmt.HEADER_SLOTS :].tolist() == want and b.path == "chip"
        paths.add(a.path)
    assert paths == {"chip"}
    assert sum(int(b.matches.sum()) for b in [exact.search(BLOCK, 15, int(values[7]))]) >= 30


def test_measure_io_runs_at_the_match_and_storage_rates(sim: SimSearch) -> None:
    rng = np.random.default_rng(12)
    keys = np.sort(rng.choice(1 << 40, fmt.DATA_SLOTS, replace=False)).astype(np.uint64)
    io = SimSearch(sim.chip, measure_io=True, allow_test_mode=True)
    io.store(BLOCK, 11, [int(k) for k in keys])
    io.store(BLOCK, 12, [int(k) ^ 0xFF for k in keys])
    assert io.point_query((BLOCK, 11), (BLOCK, 12), int(keys[9])) == int(keys[9]) ^ 0xFF
    # NV-DDR3 mode 1 (80 MT/s, ONFI: 12.5 ns a byte): 456 B out + 33 B in, each transfer's
    # window a whole number of 1 ns samples (the 17-byte search data in: 212.5 -> 213 ns)
    assert sim.chip.interface.mode == 1 and io.traffic.io_ns == (456 + 33) * 12.5 + 0.5
    io.page_read(BLOCK, 11, 4096)  # storage mode: NV-DDR3 mode 10, 800 MT/s
    assert sim.chip.interface.mode == 10 and io.traffic.io_ns == 6113 + 4096 * 1.25
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
    aged = SimSearch(sim.chip, max_age_s=3600.0, clock=lambda: now[0], allow_test_mode=True)
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
        sim = SimSearch(chip, allow_test_mode=True)
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
    for t in (-1, 64):
        with pytest.raises(RangeError, match=f"threshold {t} out of range 0..63"):
            SimSearch(sim.chip, threshold=t)
    state = tmp_path_factory.mktemp("mlc")
    with open_bench(f"sim://mlc-64l?seed=1&fresh=1&state={state}") as bench:
        chip = Chip(bench)
        chip.identify()
        with pytest.raises(UnsupportedCapability, match="vendor.search"):
            SimSearch(chip)
