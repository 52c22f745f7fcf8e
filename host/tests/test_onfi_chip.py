"""Chip operations through SimTransport: validation, refusals, round trips, timing."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from nandlab.errors import (
    AddressError,
    ChipStatusFail,
    RangeError,
    RefusedOperation,
    UnsupportedCapability,
)
from nandlab.onfi import Chip
from nandlab.ops import Program, Results
from nandlab.transport import SimTransport, open_bench


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path))
    return tmp_path


class CountingBench(SimTransport):
    """Counts the programs run, to prove a refused request ran nothing."""

    runs = 0

    def run(self, program: Program) -> Results:
        self.runs += 1
        return super().run(program)


def make_chip(profile: str, seed: int = 1) -> tuple[CountingBench, Chip]:
    bench = CountingBench(profile, seed=seed, persist=False)
    chip = Chip(bench)
    chip.identify()
    return bench, chip


@pytest.fixture
def slc() -> Iterator[tuple[CountingBench, Chip]]:
    bench, chip = make_chip("slc-search")
    yield bench, chip
    bench.close()


@pytest.fixture
def mlc() -> Iterator[tuple[CountingBench, Chip]]:
    bench, chip = make_chip("mlc-64l")
    yield bench, chip
    bench.close()


def page_data(chip: Chip, seed: int) -> bytes:
    """Random page + spare with the bad-block marker byte left FFh."""
    g = chip.geometry
    data = bytearray(np.random.default_rng(seed).integers(0, 256, g.total_bytes, np.uint8))
    data[g.page_bytes] = 0xFF
    return bytes(data)


def bit_errors(a: bytes, b: bytes) -> int:
    return int(np.unpackbits(np.frombuffer(a, np.uint8) ^ np.frombuffer(b, np.uint8)).sum())


def good_block(bench: SimTransport, start: int = 0, plane: int | None = None) -> int:
    array, planes = bench.dies[0].array, bench.profile.geometry.planes
    for b in range(start, start + 200):
        if not array.is_factory_bad(b) and (plane is None or b % planes == plane):
            return b
    raise AssertionError("no good block")


def bad_block(bench: SimTransport) -> int:
    array = bench.dies[0].array
    return next(b for b in range(bench.profile.geometry.blocks) if array.is_factory_bad(b))


# ------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda c: c.read_page(-1, 0), r"block -1 .* allowed 0\.\.4095"),
        (lambda c: c.read_page(4096, 0), r"block 4096 .* allowed 0\.\.4095"),
        (lambda c: c.read_page(0, 64), r"page 64 .* allowed 0\.\.63"),
        (lambda c: c.read_page(0, 0, column=4352), r"column 4352 .* 0\.\.4351"),
        (lambda c: c.read_page(0, 0, column=4000, length=400), "at most 352 bytes"),
        (lambda c: c.read_page(1, 0, plane=0), "block 1 is on plane 1"),
        (lambda c: c.program_page(0, 0, bytes(4353)), r"4353 data bytes .* 1\.\.4352"),
        (lambda c: c.program_page(0, 0, b""), "0 data bytes"),
        (lambda c: c.erase_block(5000), "block 5000"),
        (lambda c: c.erase_multiplane([2, 4]), "distinct plane"),
        (lambda c: c.copyback(2, 0, 3, 0), "same plane"),
        (lambda c: c.read_cache_sequential(0, 60, 5), r"count 1\.\.4"),
        (lambda c: c.status_enhanced(4096), "block 4096"),
    ],
)
def test_address_errors_leave_the_die_unchanged(
    slc: tuple[CountingBench, Chip], call, match: str
) -> None:
    bench, chip = slc
    runs, clock = bench.runs, bench.now_ns
    with pytest.raises(AddressError, match=match):
        call(chip)
    assert bench.runs == runs and bench.now_ns == clock


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda c: c.set_read_offset_code(1, 128), r"-\d+\.\.\d+ mV in steps of \d+ mV"),
        (lambda c: c.set_read_offset_code(0, -129), r"codes -128\.\.127"),
        (lambda c: c.set_read_offset_mV(1, 15.0), r"in steps of \d+ mV"),
        (lambda c: c.set_read_offset_mV(1, 9000.0), r"-\d+\.\.\d+ mV"),
        (lambda c: c.set_read_offset_mV(3, 0.0), r"allowed 0\.\.2 \(VREF0, VREF1, VREF2\)"),
        (lambda c: c.set_timing_mode(6), "allowed 0, 1, 2, 3, 4, 5"),
        (lambda c: c.soft_bit_read(2, 0, 0), r"allowed 1\.\.127 DAC steps"),
        (lambda c: c.set_feature(0x100, bytes(4)), "not a byte"),
        (lambda c: c.set_feature(0x10, bytes(3)), "4 parameter bytes"),
    ],
)
def test_range_errors_leave_the_die_unchanged(
    mlc: tuple[CountingBench, Chip], call, match: str
) -> None:
    bench, chip = mlc
    runs, clock = bench.runs, bench.now_ns
    with pytest.raises(RangeError, match=match):
        call(chip)
    assert bench.runs == runs and bench.now_ns == clock


def test_chip_enable_must_exist() -> None:
    with SimTransport("slc-search", dies=2, persist=False) as bench:
        Chip(bench, ce=1).identify()
        with pytest.raises(AddressError, match=r"allowed 0\.\.1"):
            Chip(bench, ce=2)


# ------------------------------------------------------------- refusals


def test_bad_block_refusal_and_force(slc: tuple[CountingBench, Chip]) -> None:
    bench, chip = slc
    bad = bad_block(bench)
    assert chip.is_bad_block(bad) and not chip.is_bad_block(good_block(bench))
    for call in (
        lambda: chip.erase_block(bad),
        lambda: chip.program_page(bad, 3, b"\x00" * 16),
        lambda: chip.read_page(bad, 0),
    ):
        with pytest.raises(RefusedOperation, match=f"block {bad} carries the factory bad-block"):
            call()
    with pytest.raises(ChipStatusFail, match=f"ERASE block {bad}: status .* FAIL"):
        chip.erase_block(bad, force=True)
    with pytest.raises(ChipStatusFail, match=f"PROGRAM block {bad} page 3"):
        chip.program_page(bad, 3, b"\x00" * 16, force=True)
    assert chip.read_page(bad, 0, force=True).data[chip.geometry.page_bytes] == 0x00


def test_blank_check_refusal_and_force(slc: tuple[CountingBench, Chip]) -> None:
    bench, chip = slc
    block = good_block(bench)
    chip.erase_block(block)
    first, second = page_data(chip, 1), page_data(chip, 2)
    chip.program_page(block, 4, first)
    with pytest.raises(RefusedOperation, match=f"block {block} page 4: the page is not erased"):
        chip.program_page(block, 4, second)
    chip.program_page(block, 4, second, force=True)
    both = bytes(a & b for a, b in zip(first, second, strict=True))  # charge only adds
    assert bit_errors(chip.read_page(block, 4).data, both) < 20
    chip.program_page(block, 5, first, blank_check=False)  # caller just erased the block


def test_write_protect_gives_status_fail(slc: tuple[CountingBench, Chip]) -> None:
    bench, chip = slc
    chip.set_write_protect(True)
    with pytest.raises(ChipStatusFail, match="write protected"):
        chip.erase_block(good_block(bench))
    chip.set_write_protect(False)
    assert chip.erase_block(good_block(bench)).status & 0x01 == 0


# ------------------------------------------------------------- round trips


def test_program_read_round_trip_and_busy_times(mlc: tuple[CountingBench, Chip]) -> None:
    bench, chip = mlc
    block = good_block(bench, 10)
    erase = chip.erase_block(block)
    assert 1_000_000 < erase.busy_ns < 10_000_000
    lsb, msb = page_data(chip, 3), page_data(chip, 4)
    chip.program_page(block, 0, lsb)
    chip.program_page(block, 1, msb)  # MSB after LSB passes the blank check
    with pytest.raises(RefusedOperation):
        chip.program_page(block, 1, msb)
    r_lsb, r_msb = chip.read_page(block, 0), chip.read_page(block, 1)
    assert bit_errors(r_lsb.data, lsb) < 50 and bit_errors(r_msb.data, msb) < 50
    assert 35_000 <= r_lsb.busy_ns <= 45_000  # one sensing, ~40 us
    assert 65_000 <= r_msb.busy_ns <= 75_000  # two sensings, ~70 us
    part = chip.read_page(block, 0, column=100, length=32)
    assert bit_errors(part.data, lsb[100:132]) <= 2


def test_slc_mode_on_an_mlc_part(mlc: tuple[CountingBench, Chip]) -> None:
    bench, chip = mlc
    block = good_block(bench, 20)
    chip.erase_block(block)
    data = page_data(chip, 5)
    with pytest.raises(AddressError, match=r"SLC mode .* allowed 0\.\.255"):
        chip.program_page(block, 256, data, slc=True)
    chip.program_page(block, 255, data, slc=True)
    read = chip.read_page(block, 255, slc=True)
    assert bit_errors(read.data, data) < 20
    assert not bench.dies[0].slc_mode  # the die left SLC mode after the operation


def test_slc_mode_needs_the_vendor_section(slc: tuple[CountingBench, Chip]) -> None:
    _, chip = slc
    with pytest.raises(UnsupportedCapability, match="no vendor.slc_mode section"):
        chip.read_page(2, 0, slc=True)
    with pytest.raises(UnsupportedCapability, match="no vendor.soft_bit_read section"):
        chip.soft_bit_read(2, 0, 4)


def test_cache_read_and_cache_program(slc: tuple[CountingBench, Chip]) -> None:
    bench, chip = slc
    block = good_block(bench, 30)
    chip.erase_block(block)
    datas = [page_data(chip, 10 + i) for i in range(4)]
    result = chip.program_cache(block, 2, datas)
    assert len(result.busy_steps_ns) == 4
    pages = chip.read_cache_sequential(block, 2, 4)
    assert [p.page for p in pages] == [2, 3, 4, 5]
    for page, data in zip(pages, datas, strict=True):
        assert bit_errors(page.data, data) < 20
    assert pages[0].busy_ns > pages[1].busy_ns  # the first includes tR
    single = chip.read_cache_sequential(block, 3, 1)
    assert bit_errors(single[0].data, datas[1]) < 20


def test_multiplane_program_read_erase(slc: tuple[CountingBench, Chip]) -> None:
    bench, chip = slc
    blocks = [good_block(bench, 40, plane=0), good_block(bench, 40, plane=1)]
    chip.erase_multiplane(blocks)
    datas = [page_data(chip, 20), page_data(chip, 21)]
    chip.program_multiplane(blocks, 7, datas)
    reads = chip.read_multiplane(blocks, 7)
    assert [r.block for r in reads] == blocks
    for read, data in zip(reads, datas, strict=True):
        assert bit_errors(read.data, data) < 20
    chip.erase_multiplane(blocks)
    assert all(chip.is_erased(b, 7) for b in blocks)


def test_copyback(slc: tuple[CountingBench, Chip]) -> None:
    bench, chip = slc
    src = good_block(bench, 50, plane=0)
    dst = good_block(bench, src + 1, plane=0)
    chip.erase_block(src)
    chip.erase_block(dst)
    data = page_data(chip, 30)
    chip.program_page(src, 1, data)
    chip.copyback(src, 1, dst, 9)
    assert bit_errors(chip.read_page(dst, 9).data, data) < 40
    with pytest.raises(RefusedOperation, match="not erased"):
        chip.copyback(src, 1, dst, 9)


def test_soft_bit_read(mlc: tuple[CountingBench, Chip]) -> None:
    bench, chip = mlc
    block = good_block(bench, 60)
    chip.erase_block(block)
    chip.program_page(block, 0, page_data(chip, 40))
    soft = chip.soft_bit_read(block, 0, 5)
    ones = int(np.unpackbits(np.frombuffer(soft.data, np.uint8)).sum())
    assert ones > 0.95 * len(soft.data) * 8  # freshly programmed cells are reliable
    assert soft.busy_ns > chip.read_page(block, 0).busy_ns  # two sensings per reference


# ------------------------------------------------------------- features, timing


def test_read_offsets(mlc: tuple[CountingBench, Chip]) -> None:
    _, chip = mlc
    step = chip.profile.read_offsets.step_mV
    chip.set_read_offset_mV(1, -5 * step)
    chip.set_read_offset_code(0, 7, slc=True)
    offsets = chip.read_offsets_mV()
    assert offsets["VREF1"] == -5 * step and offsets["VREF_SLC"] == 7 * step
    assert chip.get_feature(0xA1) == bytes([0xFB, 0, 0, 0])  # code -5
    chip.reset_read_offsets()
    assert set(chip.read_offsets_mV().values()) == {0.0}


def test_status(slc: tuple[CountingBench, Chip]) -> None:
    _, chip = slc
    assert chip.status() == 0xE0
    assert chip.status_enhanced(3) == 0xE0


def test_timing_mode_shortens_data_transfer(slc: tuple[CountingBench, Chip]) -> None:
    bench, chip = slc

    def read_ns() -> int:
        before = bench.now_ns
        chip.read_page(2, 0)
        return bench.now_ns - before

    slow = read_ns()
    chip.set_timing_mode(5)
    assert bench.dies[0].timing_mode == 5 and bench.expected_timing_mode == 5
    assert chip.get_feature(0x01)[0] == 5
    fast = read_ns()
    n = chip.geometry.total_bytes
    assert slow - fast > n * (100 - 20) * 0.9  # tRC 100 ns -> 20 ns per byte
    chip.reset()
    assert chip.timing_mode == 0 and bench.expected_timing_mode == 0
    assert not bench.timing_mismatches


def test_chip_over_a_url_bench() -> None:
    with open_bench("sim://mlc-planar?seed=9&dies=2") as bench:
        chips = [Chip(bench, ce) for ce in range(bench.targets)]
        uids = {c.identify().unique_id for c in chips}
        assert len(uids) == 2


def test_a_new_chip_adopts_the_targets_timing_mode() -> None:
    with open_bench("sim://slc-search?seed=5") as bench:
        Chip(bench).set_timing_mode(4)
    with open_bench("sim://slc-search?seed=5") as bench:
        assert isinstance(bench, SimTransport)
        chip = Chip(bench)
        assert chip.geometry.planes == 2  # identifies on first use, without RESET
        assert chip.timing_mode == 4 and bench.expected_timing_mode == 4


def test_busy_past_the_timeout_raises_nand_timeout(
    slc: tuple[CountingBench, Chip], monkeypatch: pytest.MonkeyPatch
) -> None:
    from nandlab.errors import NandTimeout

    bench, chip = slc
    declared = Chip.timeouts.fget
    assert declared is not None
    monkeypatch.setattr(
        Chip, "timeouts", property(lambda self: dataclasses.replace(declared(self), erase=1000))
    )
    with pytest.raises(NandTimeout, match="ERASE block .* R/B# stayed low"):
        chip.erase_block(good_block(bench))
