"""SimTransport: op programs on virtual dies, byte-level runs, instruments, persistence."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from nandlab.analysis import chunk_error_counts
from nandlab.errors import RangeError, TransportError
from nandlab.ops import (
    BusyRecord,
    EndRecord,
    ErrCountRecord,
    ErrorCode,
    ErrorRecord,
    Pattern,
    Program,
    decode_results,
    pattern_bytes,
)
from nandlab.transport import SimTransport, open_bench

STATUS = 0x70
TWHR = 120
BAD_OPCODE_WORD = (0x7F << 24).to_bytes(4, "little")


@pytest.fixture(autouse=True)
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path))
    return tmp_path


@pytest.fixture
def bench() -> Iterator[SimTransport]:
    with SimTransport("slc-search", seed=1, dies=2, persist=False) as b:
        yield b


def status_program(ce: int = 0) -> Program:
    return Program().ce(ce).cmd(STATUS).delay(TWHR).dout(1)


def erase_program(block: int, ce: int = 0) -> Program:
    row = (block << 6).to_bytes(3, "little")  # slc-search: 64 pages per block
    return Program().ce(ce).cmd(0x60).addr(row).cmd(0xD0).wait_rdy(50_000_000).mark(7)


def test_status_program(bench: SimTransport) -> None:
    results = bench.run(status_program())
    assert results.data == [bytes([0xE0])]  # WP# high, RDY, ARDY
    assert isinstance(results[-1], EndRecord)
    assert results.elapsed_ns == 100 + TWHR + 100  # tWC, delay, tRC in mode 0


def test_run_encoded_is_byte_identical_to_run() -> None:
    program = erase_program(5).power_start(100).cmd(STATUS).delay(TWHR).dout(1).power_stop()
    with SimTransport("slc-search", seed=1, persist=False) as a:
        direct = a.run(program).encode()
    with SimTransport("slc-search", seed=1, persist=False) as b:
        encoded = b.run_encoded(program.encode())
    assert direct == encoded
    results = decode_results(encoded)
    busy = results.of_type(BusyRecord)[0]
    assert busy.index == 4 and 1_000_000 < busy.busy_ns < 5_000_000
    assert results.marks[0].id == 7 and results.marks[0].t_ns >= busy.busy_ns
    power = results.power[0]
    assert power.period_ns == 100 and len(power.samples_uA) == 3
    assert min(power.samples_uA) > 0


@pytest.mark.parametrize(
    ("words", "code", "index"),
    [
        (Program().ce(0).cmd(STATUS).encode()[:-4], ErrorCode.TRUNCATED, 2),  # no END
        (
            Program().ce(0).encode()[:-4] + (0x7F << 24).to_bytes(4, "little"),
            ErrorCode.BAD_OPCODE,
            1,
        ),
        (Program().ce(0).din(b"abcdef").encode()[:-8], ErrorCode.TRUNCATED, 1),
        # TIMING with interface 7 (0..4 exist)
        (Program().ce(0).encode()[:-4] + (0x0C_000070).to_bytes(4, "little"), ErrorCode.BAD_ARG, 1),
        (Program().ce(0).encode() + b"\x00\x00", ErrorCode.TRUNCATED, 1),
        (Program().ce(0).encode() + bytes(4), ErrorCode.BAD_ARG, 1),
    ],
)
def test_malformed_programs_give_an_error_record(
    bench: SimTransport, words: bytes, code: ErrorCode, index: int
) -> None:
    before = bench.now_ns
    results = decode_results(bench.run_encoded(words))
    assert list(results) == [ErrorRecord(code, index), EndRecord(0)]
    assert bench.now_ns == before


def test_no_target_and_timeout_stop_the_program(bench: SimTransport) -> None:
    results = bench.run(Program().cmd(STATUS).dout(1))
    assert results.errors == [ErrorRecord(ErrorCode.NO_TARGET, 0)]
    results = bench.run(Program().ce(2).cmd(STATUS))
    assert results.errors == [ErrorRecord(ErrorCode.NO_TARGET, 0)]
    program = erase_program(5)
    program = Program(list(program)[:4]).wait_rdy(1000).dout(1)
    results = bench.run(program)
    assert results.errors == [ErrorRecord(ErrorCode.TIMEOUT, 4)]
    assert results.data == []  # the DOUT after the failed WAIT_RDY did not run


def test_dies_share_one_clock(bench: SimTransport) -> None:
    bench.run(Program().ce(0).delay(12_345))
    assert [d.now_ns for d in bench.dies] == [bench.now_ns] * 2
    # die 1 erases while die 0 is addressed: it is ready once enough time passes
    bench.run(Program(list(erase_program(9, ce=1))[:4]))
    assert not bench.dies[1].ready
    bench.run(Program().ce(0).delay(5_000_000))
    results = bench.run(status_program(ce=1))
    assert results.data[0][0] & 0x40


def test_gpio_wp_blocks_erase(bench: SimTransport) -> None:
    bench.run(Program().gpio(0, 1))
    results = bench.run(Program(list(erase_program(5))[:4]).cmd(STATUS).delay(TWHR).dout(1))
    assert results.data[0][0] & 0x81 == 0x01  # FAIL, WP# low
    bench.run(Program().gpio(1, 1))
    assert bench.run(status_program()).data[0][0] & 0x80


def test_timing_mismatch_is_recorded(bench: SimTransport) -> None:
    bench.run(Program().ce(0).timing(3))
    assert bench.expected_timing_mode == 3
    assert bench.timing_mismatches[-1].expected_mode == 3
    assert bench.timing_mismatches[-1].die_mode == 0
    results = bench.run(Program().ce(0).timing(1, interface=1))
    assert results.errors == [ErrorRecord(ErrorCode.BAD_ARG, 1)]


def test_dout_compare_counts_match_a_host_reference(bench: SimTransport) -> None:
    page, chunk = 4096 + 256, 1000
    pattern = Pattern.prbs()
    erase = erase_program(3)
    row = (3 << 6 | 0).to_bytes(3, "little")
    program = Program(list(erase)[:5])
    program.cmd(0x80).addr(b"\x00\x00" + row).delay(400).din_pattern(page, pattern, 99)
    program.cmd(0x10).wait_rdy(50_000_000)
    program.cmd(0x00).addr(b"\x00\x00" + row).cmd(0x30).wait_rdy(1_000_000).delay(TWHR)
    program.dout(page)
    program.cmd(0x00).addr(b"\x00\x00" + row).cmd(0x30).wait_rdy(1_000_000).delay(TWHR)
    program.dout_compare(page, pattern, 99, chunk)
    results = bench.run(program)
    assert not results.errors
    expected = pattern_bytes(pattern, 99, page)
    read = results.data[0]
    counts = results.err_counts[0]
    assert counts.chunk_bytes == chunk and len(counts.counts) == 5
    got = np.frombuffer(read, np.uint8)
    want = np.frombuffer(expected, np.uint8)
    rise = np.unpackbits(got & ~want).sum()
    fall = np.unpackbits(~got & want).sum()
    # the second read has fresh noise: compare totals loosely, exact per-chunk math below
    assert abs(counts.err_0to1 - rise) <= 50 and abs(counts.err_1to0 - fall) <= 50
    assert counts.err_0to1 + counts.err_1to0 < page * 8 * 1e-3


def test_error_counts_per_chunk() -> None:
    expected = bytes([0x00, 0xFF, 0x0F, 0xF0, 0xAA])
    read = bytes([0x01, 0xFE, 0xFF, 0x00, 0xAA])
    counts = chunk_error_counts(expected, read, 2)
    # chunk 0: 0->1 one bit, 1->0 one bit; chunk 1: 0->1 four bits, 1->0 four bits; chunk 2: none
    assert counts.tolist() == [[1, 1], [4, 4], [0, 0]]


def test_instruments(bench: SimTransport) -> None:
    assert bench.supports("power") and bench.supports("dout_compare")
    assert not bench.supports("soft_bit_read")  # slc-search has no vendor.soft_bit_read
    assert not bench.supports("teleport")
    before = bench.now_ns
    bench.bake(85.0, 13.6)
    assert bench.now_ns == before
    assert all(d.array.retention_age_h > 13.6 for d in bench.dies)
    bench.fast_forward_wear(1, 10, 3000)
    assert bench.dies[1].array.pec(10) == 3000 and bench.dies[0].array.pec(10) == 0
    with pytest.raises(RangeError):
        bench.fast_forward_wear(2, 10, 1)
    with pytest.raises(RangeError):
        bench.bake(85.0, -1)
    assert bench.roles.declared() == ("power", "clock", "faults", "wear", "oven")


def test_closed_bench_refuses(bench: SimTransport) -> None:
    bench.close()
    bench.close()
    with pytest.raises(TransportError, match="closed"):
        bench.run(status_program())


def _program_and_read(bench: SimTransport, block: int, data: bytes | None) -> bytes:
    row = (block << 6).to_bytes(3, "little")
    program = Program().ce(0)
    if data is not None:
        program.cmd(0x60).addr(row).cmd(0xD0).wait_rdy(50_000_000)
        program.cmd(0x80).addr(b"\x00\x00" + row).delay(400).din(data).cmd(0x10)
        program.wait_rdy(50_000_000)
    program.cmd(0x00).addr(b"\x00\x00" + row).cmd(0x30).wait_rdy(1_000_000).delay(TWHR)
    program.dout(len(data) if data else 64)
    results = bench.run(program)
    assert not results.errors
    return results.data[0]


def test_die_state_persists_between_opens(state_dir: Path) -> None:
    data = bytes(range(256)) * 4
    url = "sim://slc-search?seed=4"
    with open_bench(url) as bench:
        assert isinstance(bench, SimTransport)
        bench.run(Program().ce(0).cmd(0xEF).addr(b"\xa0").delay(400).din(b"\x05\0\0\0"))
        _program_and_read(bench, 7, data)
        bench.bake(85.0, 10)
        clock = bench.now_ns
        age = bench.dies[0].array.retention_age_h
    folder = state_dir / "sim" / "slc-search-seed4"
    assert (folder / "manifest.json").is_file()
    with open_bench(url) as bench:
        assert isinstance(bench, SimTransport)
        assert bench.image_note == "loaded"
        assert bench.now_ns == clock
        assert bench.dies[0].array.retention_age_h == age
        assert bench.dies[0].feature(0xA0) == b"\x05\0\0\0"
        read = _program_and_read(bench, 7, None)
        assert read == data[:64]
    with open_bench(url + "&fresh=1") as bench:
        assert isinstance(bench, SimTransport)
        assert bench.now_ns == 0 and bench.dies[0].array.pec(7) == 0
        assert _program_and_read(bench, 7, None) == b"\xff" * 64
    assert len(list(folder.glob("die0.*.npz"))) == 1  # old generations are removed


def test_state_option_and_separate_seeds(tmp_path: Path) -> None:
    state = tmp_path / "elsewhere"
    with open_bench(f"sim://slc-search?seed=1&state={state}&dies=2") as bench:
        bench.run(Program().ce(1).delay(1000))
    manifest = state / "sim" / "slc-search-seed1" / "manifest.json"
    assert manifest.is_file()
    with open_bench(f"sim://slc-search?seed=2&state={state}") as bench:
        assert isinstance(bench, SimTransport) and bench.image_note == "no saved image"


@pytest.mark.parametrize(
    "pattern", [Pattern.constant(0x00), Pattern.checker(1), Pattern.prbs(invert=True)]
)
def test_dout_compare_exact_on_a_deterministic_stream(
    bench: SimTransport, pattern: Pattern
) -> None:
    """READ ID 20h streams b"ONFI" + 4 zero bytes, repeating: the counts are exact."""
    n, chunk = 40, 6
    read_id = Program().ce(0).cmd(0x90).addr(b"\x20").delay(TWHR)
    stream = bench.run(Program(list(read_id)).dout(n)).data[0]
    assert stream == (b"ONFI" + bytes(4)) * 5
    results = bench.run(Program(list(read_id)).dout_compare(n, pattern, 5, chunk))
    counts = results.err_counts[0].counts
    want = pattern_bytes(pattern, 5, n)
    ref = []
    for start in range(0, n, chunk):
        got_c, want_c = stream[start : start + chunk], want[start : start + chunk]
        rise = sum(bin(g & ~w & 0xFF).count("1") for g, w in zip(got_c, want_c, strict=True))
        fall = sum(bin(~g & w & 0xFF).count("1") for g, w in zip(got_c, want_c, strict=True))
        ref.append((rise, fall))
    assert list(counts) == ref
    assert isinstance(results[0], ErrCountRecord)


def test_a_crash_while_saving_keeps_the_previous_image(
    state_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nandlab.vchip.array import CellArray
    from nandlab.vchip.array_image import DieImage

    url = "sim://slc-search?seed=6&dies=2"
    with open_bench(url) as bench:
        bench.run(Program().ce(0).delay(1000))
    real_image = CellArray.image

    def crash_on_die_1(self: CellArray) -> DieImage:
        if self.chip == 1:  # die 0's files are written by then
            raise KeyboardInterrupt
        return real_image(self)

    monkeypatch.setattr(CellArray, "image", crash_on_die_1)
    bench = open_bench(url)
    bench.run(Program().ce(0).delay(5000))
    with pytest.raises(KeyboardInterrupt):
        bench.close()
    monkeypatch.setattr(CellArray, "image", real_image)
    with open_bench(url) as bench:
        assert isinstance(bench, SimTransport) and bench.image_note == "loaded"
        assert bench.now_ns == 1000


def test_fast_forward_advances_the_clock_by_the_cycling_time() -> None:
    with open_bench("sim://mlc-64l?seed=4&fresh=1") as bench:
        assert isinstance(bench, SimTransport)
        geo = bench.profile.geometry
        t0 = bench.now_ns
        ns = bench.fast_forward_wear(0, 12, 100)
        assert bench.now_ns - t0 == ns == bench.fast_forward_ns
        # every page of the block: its data in at mode 0 (100 ns / byte) plus tPROG >= 300 us
        per_cycle_floor = geo.pages_per_block * ((geo.page_bytes + geo.spare_bytes) * 100 + 300_000)
        assert 100 * per_cycle_floor < ns < 100 * 2 * per_cycle_floor
        assert bench.dies[0].array.pec(12) == 100
        slc_ns = bench.fast_forward_wear(0, 13, 100, slc=True)
        assert slc_ns < ns / 1.5  # one page per WL in SLC mode
