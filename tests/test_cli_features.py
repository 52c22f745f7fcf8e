"""End-to-end: `nandlab features set` refuses what the part would silently drop (exit 2)."""

from __future__ import annotations

import pytest

URL = "sim://tlc-48l?seed=3"


@pytest.mark.parametrize(
    ("fa", "p1", "message"),
    [
        ("0x5C", "0x11", "feature address 5Ch is not implemented by tlc-48l"),
        ("0x01", "0x09", "SDR timing mode 9 is not supported"),
        ("0x01", "0x14", "interface bits 0x1 (NV-DDR)"),
        ("0xB9", "0x05", "test-mode setting of tlc-48l: pass allow_test_mode (--allow-test-mode)"),
    ],
)
def test_a_write_the_part_would_drop_exits_2(run, fa: str, p1: str, message: str) -> None:
    result = run("features", "set", URL, fa, p1, "--yes", "--fresh")
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_a_test_mode_address_with_allow_test_mode_is_taken(run, run_json) -> None:
    doc = run_json("features", "set", URL, "0xB9", "0x05", "--yes", "--fresh", "--allow-test-mode")
    assert doc["params"] == [5, 0, 0, 0]
    assert run_json("features", "get", URL, "B9h")["params"] == [5, 0, 0, 0]


def test_a_timing_mode_the_part_lists_is_taken_and_read_back(run) -> None:
    result = run("features", "set", URL, "0x01", "0x03", "--yes", "--fresh")
    assert result.exit_code == 0, result.output
    assert "P1=03h" in result.stdout and "read back" in result.stdout
