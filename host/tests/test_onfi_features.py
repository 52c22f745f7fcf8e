"""SET FEATURES from the host: checked against the part before anything is sent.

A real part drops a write it cannot take without an error, so a refused
write must leave the bench untouched (no program run, no virtual time) and a
write that goes out must be one the part takes (read back here)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from nandlab.errors import RangeError, RefusedOperation
from nandlab.onfi import Chip
from nandlab.onfi.errors import FeatureNotAccepted
from nandlab.ops import Program, Results
from nandlab.profiles import load_profile
from nandlab.profiles.features import FeatureRole, declared_features
from nandlab.transport import SimTransport


class CountingBench(SimTransport):
    runs = 0

    def run(self, program: Program) -> Results:
        self.runs += 1
        return super().run(program)


@pytest.fixture
def tlc() -> Iterator[tuple[CountingBench, Chip]]:
    bench = CountingBench("tlc-48l", seed=1, persist=False)
    chip = Chip(bench)
    chip.identify()
    yield bench, chip
    bench.close()


def test_the_profile_declares_its_feature_addresses() -> None:
    roles = declared_features(load_profile("tlc-48l"))
    assert roles[0x01] is FeatureRole.TIMING_MODE
    assert {fa for fa, r in roles.items() if r is FeatureRole.READ_OFFSET} == set(range(0xA0, 0xA8))
    assert roles[0xA8] is FeatureRole.SOFT_BIT_DELTA
    assert {fa for fa, r in roles.items() if r is FeatureRole.TEST_MODE} == {0xB8, 0xB9, 0xBA}


@pytest.mark.parametrize(
    ("fa", "p1", "error", "match"),
    [
        (0x5C, 0x11, RangeError, r"5Ch is not implemented by tlc-48l .* implemented 01h \(timing"),
        (0x01, 0x09, RangeError, r"SDR timing mode 9 is not supported .* allowed 0, 1, 2, 3, 4, 5"),
        (0x01, 0x13, RangeError, r"interface bits 0x1 \(NV-DDR\): a data interface is switched"),
        (0x01, 0x2A, RangeError, r"interface bits 0x2 \(NV-DDR2\).*negotiate_interface"),
        (0xB9, 0x05, RefusedOperation, r"B9h is a test-mode setting .*--allow-test-mode"),
        (0xBA, 0x01, RefusedOperation, r"BAh is a test-mode setting"),
    ],
)
def test_a_write_the_part_would_drop_is_refused_before_sending(
    tlc: tuple[CountingBench, Chip], fa: int, p1: int, error: type[Exception], match: str
) -> None:
    bench, chip = tlc
    runs, clock = bench.runs, bench.now_ns
    with pytest.raises(error, match=match):
        chip.set_feature(fa, bytes([p1, 0, 0, 0]))
    assert bench.runs == runs and bench.now_ns == clock


def test_a_test_mode_address_goes_out_inside_the_test_mode(
    tlc: tuple[CountingBench, Chip],
) -> None:
    bench, chip = tlc
    runs = bench.runs
    assert chip.set_feature(0xB9, bytes([5, 0, 0, 0]), allow_test_mode=True) > 0
    assert bench.runs == runs + 1
    assert chip.get_feature(0xB9) == bytes([5, 0, 0, 0])
    # the same write outside the test mode is what the die drops, as silicon does
    bench.run(Program().ce(0).cmd(0xEF).addr(b"\xba").delay(400).din(b"\x01\0\0\0"))
    assert chip.get_feature(0xBA) == bytes(4)


def test_a_read_offset_write_is_taken(tlc: tuple[CountingBench, Chip]) -> None:
    _, chip = tlc
    chip.set_feature(0xA2, bytes([0xF6, 0, 0, 0]))
    assert chip.get_feature(0xA2) == bytes([0xF6, 0, 0, 0])


def test_timing_mode_is_read_back(tlc: tuple[CountingBench, Chip]) -> None:
    bench, chip = tlc
    chip.set_timing_mode(4)
    assert chip.get_feature(0x01)[0] == 4 and bench.dies[0].timing_mode == 4


def test_a_timing_mode_the_target_dropped_is_reported(
    tlc: tuple[CountingBench, Chip], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, chip = tlc
    monkeypatch.setattr(chip, "get_feature", lambda fa: bytes(4))  # the target stayed in mode 0
    with pytest.raises(FeatureNotAccepted, match="did not take SDR timing mode 3: .* reads 00h"):
        chip.set_timing_mode(3)
