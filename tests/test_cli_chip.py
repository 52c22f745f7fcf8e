"""End-to-end: chip commands on a virtual die, across separate invocations."""

from __future__ import annotations

from pathlib import Path

import pytest
from nandlab.ops.pattern import page_pattern
from nandlab.profiles import load_profile

URL = "sim://mlc-64l?seed=3"

PAGE_BYTES, SPARE_BYTES = 16384, 1952


def test_profiles_table_and_json(run, run_json):
    result = run("profiles")
    assert result.exit_code == 0
    assert "mlc-64l" in result.stdout and "tlc-48l" in result.stdout
    doc = run_json("profiles")
    by_name = {p["name"]: p for p in doc["profiles"]}
    assert by_name["mlc-64l"]["cell"] == "mlc"
    assert by_name["mlc-64l"]["page_bytes"] == PAGE_BYTES
    assert all(p["virtual"] for p in doc["profiles"])


def test_info_json_has_parameter_page_and_fields(run, run_json):
    doc = run_json("info", URL, "--fresh")
    page = bytes.fromhex(doc["parameter_page_hex"])
    assert len(page) == 256 and page[:4] == b"ONFI"
    assert doc["fields"]["page_bytes"] == PAGE_BYTES
    assert doc["fields"]["spare_bytes"] == SPARE_BYTES
    assert doc["fields"]["model"] == "VIRT-MLC-64L"
    assert doc["parameter_page_copy"] == 0 and doc["majority"] is False
    assert doc["geometry"]["blocks"] == 2048
    assert len(doc["unique_id"]) == 32
    assert run("info", URL).exit_code == 0


def test_info_majority_when_every_copy_is_corrupt(run_json):
    doc = run_json("info", "sim://mlc-64l?seed=3&corrupt_param=3", "--fresh")
    assert doc["majority"] is True and doc["parameter_page_copy"] is None
    assert doc["fields"]["page_bytes"] == PAGE_BYTES


def test_program_then_read_in_separate_invocations(run, run_json, tmp_path: Path):
    doc = run_json(
        "program",
        URL,
        "--block",
        "7",
        "--page",
        "1",
        "--pattern",
        "random",
        "--seed",
        "5",
        "--yes",
        "--fresh",
    )
    assert doc["bytes"] == PAGE_BYTES + SPARE_BYTES
    out = tmp_path / "page.bin"
    result = run("read", URL, "--block", "7", "--page", "1", "--out", str(out))
    assert result.exit_code == 0, result.output
    expected = page_pattern(
        "random",
        PAGE_BYTES + SPARE_BYTES,
        seed=5,
        block=7,
        page=1,
        marker_column=PAGE_BYTES,
    )
    got = out.read_bytes()
    errors = sum((a ^ b).bit_count() for a, b in zip(got, expected, strict=True))
    assert errors <= 10  # a fresh MLC page: (nearly) error-free
    doc = run_json("read", URL, "--block", "7", "--page", "1", "--hex")
    assert bytes.fromhex(doc["data_hex"]) == got or doc["bytes"] == len(got)


def test_program_without_yes_is_refused_and_changes_nothing(run, run_json):
    run_json("info", URL, "--fresh")
    result = run("program", URL, "--block", "8", "--page", "0", "--pattern", "zeros")
    assert result.exit_code == 2
    assert "--yes" in result.stderr and "Traceback" not in result.output
    doc = run_json("read", URL, "--block", "8", "--page", "0")
    assert doc["zero_bits"] == 0  # still erased


def test_erase_and_features_set_need_yes(run):
    assert run("erase", URL, "--block", "3").exit_code == 2
    assert run("features", "set", URL, "0xA0", "0x10").exit_code == 2


def test_features_set_then_get(run, run_json):
    doc = run_json("features", "set", URL, "0xA1", "0xF0", "--yes", "--fresh")
    assert doc["params"] == [0xF0, 0, 0, 0]
    assert run_json("features", "get", URL, "A1h")["params"] == [0xF0, 0, 0, 0]
    offsets = run_json("offsets", "get", URL)["offsets_mV"]
    step = load_profile("mlc-64l").read_offsets.step_mV
    assert offsets["VREF1"] == -16 * step  # code F0h = -16 DAC steps


def test_status_json(run_json):
    doc = run_json("status", URL, "--fresh")
    assert doc["status"] & 0x40 and "RDY" in doc["bits"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("info", "sim://no-such-chip"), "mlc-64l"),
        (("info", "simx//mlc-64l"), "sim://PROFILE"),
        (("info", "sim://mlc-64l?seed=x"), "seed"),
        (("read", URL, "--block", "5000", "--page", "0"), "0..2047"),
        (("read", URL, "--block", "1", "--page", "512"), "0..511"),
        (("offsets", "set", URL, "VREF0", "-9000", "--yes"), "in steps of"),
        (("features", "set", URL, "0xA0", "0x100", "--yes"), "0..255"),
        (
            (
                "rber",
                URL,
                "--block",
                "1",
                "--pec",
                "1",
                "--retention",
                "1year",
                "--yes",
            ),
            "1y@30C",
        ),
        (("rber", URL, "--block", "1", "--pec", "-5", "--yes"), "1.."),
    ],
)
def test_usage_errors_exit_2_naming_allowed_values(run, args, needle):
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ")
    assert needle in result.stderr
    assert "Traceback" not in result.output


def test_chip_fault_exits_1_with_one_line(run):
    result = run(
        "read", "sim://slc-search?seed=1", "--block", "1", "--page", "0", "--slc"
    )
    assert result.exit_code == 1
    assert result.stderr.startswith("error: ") and "slc_mode" in result.stderr
    assert "Traceback" not in result.output


def test_every_command_has_help(run):
    for command in (
        "profiles",
        "info",
        "read",
        "program",
        "erase",
        "status",
        "vth",
        "rber",
        "demo",
    ):
        assert run(command, "--help").exit_code == 0
    assert run("features", "set", "--help").exit_code == 0
