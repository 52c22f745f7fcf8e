"""End-to-end: vth, rber and demo on a virtual MLC die (few WLs, coarse bins: fast).

Each command is a campaign: its run folder is one `nandlab report` / `resume` take."""

from __future__ import annotations

import json
from pathlib import Path

URL = "sim://mlc-64l?seed=3"

from nandlab.campaign.export import run_table

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_vth_writes_plot_and_ordered_state_histograms(run_json, tmp_path: Path):
    doc = run_json(
        "vth",
        URL,
        "--block",
        "12",
        "--wl",
        "3",
        "--code-step",
        "4",
        "--yes",
        "--fresh",
        "--report",
        "--out",
        str(tmp_path / "runs"),
    )
    states = doc["states"]
    assert [s["state"] for s in states] == ["L0", "L1", "L2", "L3"]
    means = [s["mean_mV"] for s in states]
    assert means == sorted(means)
    for s in states:
        assert len(s["centers_mV"]) == len(s["counts"]) > 0
        assert s["in_range"] + s["below_range"] + s["above_range"] > 0.98 * s["cells"]
    assert (
        states[0]["below_range"] > states[0]["in_range"]
    )  # the DAC cannot reach most of L0
    run_dir = Path(doc["run_dir"])
    pngs = list((run_dir / "plots").glob("*.png"))
    assert pngs and pngs[0].read_bytes()[:8] == PNG_MAGIC
    table = run_table(run_dir)
    assert set(table.column("operation").to_pylist()) == {"erase", "program", "vth"}
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["profile"] == "mlc-64l" and meta["command"] == "nandlab vth"
    assert meta["status"] == "complete" and (run_dir / "summary.md").exists()
    assert (run_dir / "plots" / "vth_pec1_fresh_b12_wl3.png").exists()  # nandlab report's


def test_vth_run_folder_is_a_campaign_run(run, run_json, tmp_path: Path):
    doc = run_json(
        "vth", URL, "--block", "12", "--wl", "1", "--code-step", "8", "--yes", "--fresh",
        "--out", str(tmp_path),
    )
    run_dir = doc["run_dir"]
    resumed = run("resume", "--yes", run_dir, "--json")
    assert resumed.exit_code == 0 and json.loads(resumed.stdout)["status"] == "complete"
    exported = run("export", run_dir, "--format", "csv", "--json")
    assert exported.exit_code == 0 and Path(json.loads(exported.stdout)["path"]).exists()
    ledger = run_json("ledger", URL)
    assert {"block": 12, "pec": 1, "fast_forwarded_cycles": 0} in ledger["blocks"]


def test_vth_no_program_reads_a_known_pattern(run, run_json, tmp_path: Path):
    out = ("--out", str(tmp_path))
    assert (
        run(
            "vth", URL, "--block", "12", "--wl", "0", "--code-step", "8", "--fresh", *out
        ).exit_code
        == 2
    )
    run_json(
        "vth",
        URL,
        "--block",
        "12",
        "--wl",
        "0",
        "--code-step",
        "8",
        "--seed",
        "4",
        "--yes",
        "--fresh",
        *out,
    )
    doc = run_json(
        "vth",
        URL,
        "--block",
        "12",
        "--wl",
        "0",
        "--code-step",
        "8",
        "--seed",
        "4",
        "--no-program",
        *out,
    )
    means = [s["mean_mV"] for s in doc["states"]]
    assert means == sorted(means)
    rows = run_table(doc["run_dir"]).to_pylist()
    assert {r["operation"] for r in rows} == {"vth"}


def _rate(doc) -> float:
    summary = doc["summary"]
    return sum(a["errors_0to1"] + a["errors_1to0"] for a in summary) / sum(
        a["bits"] for a in summary
    )


def test_rber_grows_with_wear_and_retention(run_json, tmp_path: Path):
    out = ("--out", str(tmp_path))
    fresh = run_json(
        "rber", URL, "--block", "20", "--pec", "1", "--wl", "0-1", "--yes", "--fresh", *out
    )
    worn = run_json(
        "rber",
        URL,
        "--block",
        "21",
        "--pec",
        "10000",
        "--retention",
        "1y@30C",
        "--wl",
        "0-1",
        "--yes",
        *out,
    )
    assert worn["fast_forwarded"] is True and worn["retention"] == "1y@30C"
    assert {a["page_type"] for a in worn["summary"]} == {"LSB", "MSB"}
    assert all(p["bits"] == (16384 + 1952) * 8 for p in worn["pages"])
    assert _rate(worn) > _rate(fresh)
    assert _rate(worn) > 1e-4
    # without --report the run folder holds the dataset only; `nandlab report` adds the rest
    run_dir = Path(fresh["run_dir"])
    assert (run_dir / "measurements.parquet").exists() and not (run_dir / "summary.md").exists()


def test_rber_needs_yes(run):
    result = run("rber", URL, "--block", "20", "--pec", "1")
    assert result.exit_code == 2 and "--yes" in result.stderr


def test_rber_refuses_a_block_worn_past_the_target(run, run_json, tmp_path: Path):
    args = ("rber", URL, "--block", "20", "--pec", "5", "--wl", "0", "--yes")
    args += ("--out", str(tmp_path))
    run_json(*args, "--fresh")
    again = run(*args)
    assert again.exit_code == 2 and "already has 5 P/E cycles" in again.stderr


def test_demo_writes_a_dataset(run, tmp_path: Path):
    result = run(
        "demo", "--out", str(tmp_path), "--wl-count", "2", "--code-step", "8", "--json"
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    run_dir = Path(doc["run_dir"])
    meta = json.loads((run_dir / "run.json").read_text())
    assert (
        meta["profile"] == "mlc-64l"
        and meta["stop_utc"]
        and meta["chips"][0]["unique_id"]
    )
    for name in (
        "rber_vs_pec.png",
        "vth_pec1.png",
        "vth_pec3000.png",
        "vth_pec10000.png",
    ):
        assert (run_dir / "plots" / name).read_bytes()[:8] == PNG_MAGIC
    assert "Raw bit error rate" in (run_dir / "summary.md").read_text()
    rows = run_table(run_dir).to_pylist()
    rber = [r for r in rows if r["operation"] == "rber"]
    assert {(r["pec"], r["retention_label"]) for r in rber} == {
        (p, label) for p in (1, 3000, 10000) for label in ("fresh", "1y@30C")
    }
    assert all(r["fast_forwarded"] == (r["pec"] > 1) for r in rber)
    assert {r["operation"] for r in rows} >= {"read", "program", "erase", "vth"}
    by_condition = {
        (a["pec"], a["retention"]): a for a in doc["rber"] if a["page_type"] == "MSB"
    }
    assert by_condition[(10000, "1y@30C")]["rber"] > by_condition[(1, "fresh")]["rber"]
    assert doc["blocks"] == {"1": 100, "3000": 101, "10000": 102}
    assert [v["retention"] for v in doc["vth"]] == ["fresh", "1y@30C"] * 3
    assert doc["bake_h"] == __import__("pytest").approx(13.6, abs=0.1)
    assert doc["simulated_chip_time_s"] > 0
