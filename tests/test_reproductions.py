"""Paper reproductions: campaign files under characterization/ run by `nandlab run`, their
analysis modules build each table and figure from the run's rows (`nandlab report`).

Each test runs a reduced-size seeded version of a reproduction campaign, then checks the
analysis against the committed full-size rows and report."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pyarrow.parquet as pq
import pytest
from click.testing import Result
from nandlab.campaign.schema import load_campaign
from nandlab.campaign.sweep import expand
from nandlab.characterize.readback import (
    STRING_CHECKER,
    DataSpec,
    page_data,
    page_order,
)
from nandlab.profiles import load_profile

REPO = Path(__file__).resolve().parents[1]
PARABIT = REPO / "characterization" / "parabit"
FLASHCOSMOS = REPO / "characterization" / "flashcosmos"
MCFLASH = REPO / "characterization" / "mcflash"


def load_analysis(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"analysis_{path.parent.name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def reduced(campaign: Path, tmp_path: Path, *edits: tuple[str, str]) -> str:
    """The campaign file with `edits` applied and its analysis named by absolute path."""
    text = campaign.read_text()
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    name = text.split("analysis: ")[1].strip()
    text = text.replace(f"analysis: {name}", f"analysis: {campaign.parent / name}")
    path = tmp_path / campaign.name
    path.write_text(text)
    return str(path)


def committed(folder: Path, prefix: str = "") -> tuple[list[dict], dict]:
    """Rows and run.json of the committed run under folder/data whose name starts so."""
    (run,) = [
        p for p in sorted((folder / "data").iterdir()) if p.name.startswith(prefix)
    ]
    rows = pq.read_table(run / "measurements.parquet").to_pylist()
    return rows, json.loads((run / "run.json").read_text())


def test_parabit_report_from_a_reduced_run(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    campaign = reduced(
        PARABIT / "parabit.yaml",
        tmp_path,
        ("count: 8", "count: 2"),
        ("wls: 0-31", "wls: 0-7"),
    )
    out = tmp_path / "runs"
    assert run("run", "--yes", campaign, "--out", str(out), "--run-id", "p").exit_code == 0
    assert run("report", str(out / "p")).exit_code == 0
    lines = (out / "p" / "report.md").read_text().splitlines()
    for op in ("AND", "XOR", "NOT-MSB"):
        assert any(
            line.startswith(f"| Table 1 | {op} ") and line.endswith("| yes | predicted |")
            for line in lines
        )
    # recomputed from the raw rows: XOR errors per WL at 5000 P/E, mean and max
    rows = pq.read_table(out / "p" / "measurements.parquet").to_pylist()
    per_wl = [
        r["errors_0to1"] + r["errors_1to0"]
        for r in rows
        if r["operation"] == "compute:XOR"
        and r["reference"] == "written"
        and r["pec"] == 5000
    ]
    assert len(per_wl) == 8
    mean = next(line for line in lines if "mean bit errors per 8 KiB WL" in line)
    assert f"(8 WLs) | 0.945 | {sum(per_wl) / len(per_wl):.3f} |" in mean
    top = next(line for line in lines if "max bit errors per 8 KiB WL" in line)
    assert f"| 5 | {max(per_wl)} |" in top
    assert (out / "p" / "plots" / "fig17_xor_errors.png").stat().st_size > 0


def test_parabit_committed_report_is_rebuilt_from_its_rows(tmp_path: Path) -> None:
    rows, meta = committed(PARABIT)
    text, plots = load_analysis(PARABIT / "analysis.py").report(rows, meta, tmp_path)
    assert text == (PARABIT / "report.md").read_text()
    assert [p.name for p in plots] == ["fig17_xor_errors.png"]
    assert (
        "| Fig. 13a | XOR latency, µs (4 sensings) | ~100 | 104.0 | - | yes |" in text
    )


def test_flashcosmos_fig11_from_a_reduced_run(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    campaign = reduced(
        FLASHCOSMOS / "fig11.yaml",
        tmp_path,
        ("blocks: {range: {from: 2, to: 50, step: 2}}", "blocks: [2, 4]"),
        ("wls: 0-191", "wls: 0-7"),
        ("[null, 300, 600, 1000, 1100]", "[null, 600]"),
    )
    out = tmp_path / "runs"
    assert run("run", "--yes", campaign, "--out", str(out), "--run-id", "f").exit_code == 0
    assert run("report", str(out / "f")).exit_code == 0
    text = (out / "f" / "report.md").read_text()
    rows = pq.read_table(out / "f" / "measurements.parquet").to_pylist()
    setting = {r["block"]: r["expression"] for r in rows if r["operation"] == "program"}
    assert sorted(set(setting.values())) == [
        "ESP step 100 mV, verify +600 mV",
        "regular SLC",
    ]
    rate = {}
    for block in setting:
        read = [r for r in rows if r["operation"] == "rber" and r["block"] == block]
        assert len(read) == 8 and {r["page_type"] for r in read} == {"SLC"}
        rate[block] = sum(r["errors_0to1"] + r["errors_1to0"] for r in read) / sum(
            r["bits"] for r in read
        )
    for block, name in setting.items():  # one block per setting: its median block
        assert f"| {name} | {rate[block]:.3g} |" in text
    assert "| median block: RBER(1.00) / RBER(1.59) | 10x |" in text
    assert (out / "f" / "plots" / "fig11_esp.png").stat().st_size > 0


def test_flashcosmos_fig8_from_a_reduced_run(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    program_wls = ", ".join(str(4 * k) for k in range(48))
    measure_wls = ", ".join(str(4 * k) for k in range(47))
    campaign = reduced(
        FLASHCOSMOS / "fig8.yaml",
        tmp_path,
        ("to: 24, step: 2", "to: 16, step: 2"),
        ("1000, 3000, 10000, " * 3 + "1000, 3000, 10000", "1000, 10000, " * 3 + "1000, 10000"),
        (program_wls, "0, 4, 8"),
        (measure_wls, "0, 4"),
    )
    out = tmp_path / "runs"
    assert run("run", "--yes", campaign, "--out", str(out), "--run-id", "f").exit_code == 0
    assert run("report", str(out / "f")).exit_code == 0
    text = (out / "f" / "report.md").read_text()
    rows = pq.read_table(out / "f" / "measurements.parquet").to_pylist()
    rber = [r for r in rows if r["operation"] == "rber"]
    pages = {(r["mode"], r["page_type"]) for r in rber}
    assert pages == {("slc", "SLC"), ("mlc", "lower"), ("mlc", "upper")}
    assert {r["retention_age_h"] for r in rber} == {0.0, 730.0, 8760.0}
    conditions = {(r["mode"], r["pattern"], r["pec"]) for r in rber}
    # 4 SLC blocks (1 page a WL) and 4 MLC blocks (2 pages), 2 WLs, 3 retention ages
    assert len(conditions) == 8 and len(rber) == (4 * 1 + 4 * 2) * 2 * 3
    for label, age in (("0 h", 0.0), ("1 year", 8760.0)):
        cells = []
        for mode, pattern in (
            ("slc", "checker-string scrambled"),
            ("slc", "checker-string"),
            ("mlc", "checker-string scrambled"),
            ("mlc", "checker-string"),
        ):
            mine = [
                r for r in rber
                if (r["mode"], r["pattern"], r["pec"], r["retention_age_h"])
                == (mode, pattern, 10000, age)
            ]
            errors = sum(r["errors_0to1"] + r["errors_1to0"] for r in mine)
            cells.append(f"{errors / sum(r['bits'] for r in mine):.3g}")
        assert f"| 10K | {label} | {' | '.join(cells)} |" in text
    assert "| MLC: RBER checkered / randomized (whole sweep) | 4.92x |" in text
    assert (out / "f" / "plots" / "fig8_rber.png").stat().st_size > 0


def test_mlc_mode_data_is_measured_by_rber_only(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    campaign = tmp_path / "c.yaml"
    campaign.write_text(
        "name: c\nbench: sim://tlc-48l?seed=2\nfresh: true\nallow_test_mode: true\n"
        "blocks: [20]\nsteps:\n  - cycle: {pec: 1}\n"
        "  - esp_program: {wls: 0-3, mlc: true, allow_test_mode: true}\n"
        "  - measure: {what: [rber, latency]}\n"
    )
    result = run("run", "--yes", str(campaign), "--out", str(tmp_path / "runs"))
    assert result.exit_code == 2
    assert "block 20 holds MLC-mode data (test mode): measure only rber" in result.stderr


def test_mlc_mode_checkerboard_alternates_the_erased_and_the_highest_state() -> None:
    profile = load_profile("tlc-48l")
    spec = DataSpec(STRING_CHECKER, seed=0, mlc=True)
    lower = [page_data(profile, spec, 2, wl, 0)[:4] for wl in (0, 4)]
    upper = [page_data(profile, spec, 2, wl, 1)[:4] for wl in (0, 4)]
    assert lower == [b"\x55" * 4, b"\xaa" * 4] and upper == [b"\xff" * 4] * 2


def test_string_checkerboard_alternates_along_wls_and_strings() -> None:
    profile = load_profile("tlc-48l")  # 4 strings: WL w sits at string position w // 4
    spec = DataSpec(STRING_CHECKER, seed=0, slc=True)
    first = [page_data(profile, spec, 2, wl, 0)[:4] for wl in range(8)]
    assert first == [b"\x55" * 4] * 4 + [b"\xaa" * 4] * 4


def test_flashcosmos_fig12_from_a_reduced_run(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    campaign = reduced(
        FLASHCOSMOS / "fig12.yaml",
        tmp_path,
        ("{from: 2, to: 16, step: 2}", "{from: 2, to: 4, step: 2}"),
        ("[1, 2, 4, 8, 16, 24, 32, 48]", "[1, 8]"),
    )
    out = tmp_path / "runs"
    assert run("run", "--yes", campaign, "--out", str(out), "--run-id", "f").exit_code == 0
    assert run("report", str(out / "f")).exit_code == 0
    text = (out / "f" / "report.md").read_text()
    rows = pq.read_table(out / "f" / "measurements.parquet").to_pylist()
    mws = {r["chunk"]: r for r in rows if r["operation"] == "mws"}
    t_r = [r["latency_us"] for r in rows if r["operation"] == "read" and r["slc"]]
    assert sorted(mws) == [1, 8] and len(t_r) == 2
    for n in (1, 8):
        ratio = mws[n]["latency_us"] / (sum(t_r) / len(t_r))
        assert f"| {n} | <= 1.01 | {ratio:.4f} | {mws[n]['bits']:.3g} | yes |" in text
    assert (out / "f" / "plots" / "fig12_tmws.png").stat().st_size > 0
    # the first unit (block 2, one WL) runs the same operations on the same die as in the
    # committed full-size run, but after fewer blocks were cycled: the die's read-noise
    # stream stands elsewhere, and since RTN's tail is uncapped the slowest bitline (the
    # zero-error strobe) may move by a step of the search's 10 ns grid
    full, _ = committed(FLASHCOSMOS, "flashcosmos-fig12")
    (first,) = [r for r in full if r["operation"] == "mws" and r["chunk"] == 1]
    assert abs(mws[1]["latency_us"] - first["latency_us"]) <= 0.02 + 1e-9


def test_flashcosmos_fig13_from_a_reduced_run(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    campaign = reduced(
        FLASHCOSMOS / "fig13.yaml",
        tmp_path,
        ("{from: 2, to: 64, step: 2}", "{from: 2, to: 8, step: 2}"),
        ("counts: [1, 2, 4, 8, 16, 32]", "counts: [1, 4]"),
    )
    out = tmp_path / "runs"
    assert run("run", "--yes", campaign, "--out", str(out), "--run-id", "f").exit_code == 0
    assert run("report", str(out / "f")).exit_code == 0
    text = (out / "f" / "report.md").read_text()
    rows = pq.read_table(out / "f" / "measurements.parquet").to_pylist()
    mws = [r for r in rows if r["operation"] == "mws"]
    # one unit for the chip: the blocks' operands written once, then each count measured
    assert {r["unit"] for r in mws} == {"s01.mws_blocks_timing/ce0"}
    assert [r["chunk"] for r in mws] == [1, 4] and {r["pec"] for r in mws} == {10000}
    (t_r,) = [r["latency_us"] for r in rows if r["operation"] == "read" and r["slc"]]
    for r in mws:
        ratio = r["latency_us"] / t_r
        assert f"| {r['chunk']} | ~1.0 | {ratio:.4f} | {r['bits']:.3g} | yes |" in text
    assert (out / "f" / "plots" / "fig13_tmws.png").stat().st_size > 0


def test_flashcosmos_fig14_from_a_reduced_run(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    campaign = reduced(
        FLASHCOSMOS / "fig14.yaml",
        tmp_path,
        ("blocks: {range: {from: 2, to: 16, step: 2}}", "blocks: [2, 4, 6, 8]"),
    )
    out = tmp_path / "runs"
    assert run("run", "--yes", campaign, "--out", str(out), "--run-id", "f").exit_code == 0
    assert run("report", str(out / "f")).exit_code == 0
    text = (out / "f" / "report.md").read_text()
    rows = pq.read_table(out / "f" / "measurements.parquet").to_pylist()
    # every operation's current is sampled over its POWER window
    assert all(
        r["energy_measured"] for r in rows if r["operation"] in ("read", "mws", "erase")
    )
    (read,) = [r for r in rows if r["operation"] == "read"]
    mws = {r["chunk"]: r for r in rows if r["operation"] == "mws"}
    assert sorted(mws) == [1, 2, 4] and {r["unit"] for r in mws.values()} == {
        "s01.mws_power/ce0"
    }
    ratio = mws[2]["mean_mA"] / read["mean_mA"]
    assert f"| 2 blocks, x page read | 1.34 | {ratio:.3f} | yes |" in text
    energy = mws[4]["energy_uJ"] / (4 * read["energy_uJ"])
    assert (
        f"| energy 4-block MWS / 4 reads | 0.47 (53 % below) | {energy:.3f} | yes |"
        in text
    )


def test_flashcosmos_sec52_from_a_reduced_run(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    campaign = reduced(
        FLASHCOSMOS / "sec52.yaml",
        tmp_path,
        ("allow_test_mode: true}", "allow_test_mode: true, bits: 1000000}"),
    )
    out = tmp_path / "runs"
    assert run("run", "--yes", campaign, "--out", str(out), "--run-id", "f").exit_code == 0
    assert run("report", str(out / "f")).exit_code == 0
    text = (out / "f" / "report.md").read_text()
    rows = [
        r
        for r in pq.read_table(out / "f" / "measurements.parquet").to_pylist()
        if r["operation"] == "mws"
    ]
    # operands as they are in block 2 (AND / NAND), inverted in block 4 (OR / NOR)
    assert {(r["block"], r["expression"]) for r in rows} == {
        (2, "AND"),
        (2, "NAND"),
        (4, "OR"),
        (4, "NOR"),
    }
    assert {r["chunk"] for r in rows} == {2, 8, 16, 32, 48}
    for op in ("AND", "OR"):
        mine = [r for r in rows if r["expression"] == op]
        bits = sum(r["bits"] for r in mine)
        errors = sum(r["errors_0to1"] + r["errors_1to0"] for r in mine)
        runs = sum(r["sensings"] for r in mine)
        assert bits >= 1e6 and f"| {op} | 0 | {errors} (95 % upper bound " in text
        assert f") | {bits:.3g} | {runs} |" in text


@pytest.mark.parametrize(
    ("figure", "plot", "line"),
    [
        ("fig8", "fig8_rber.png", "| 1K | 0 h |"),
        ("fig11", "fig11_esp.png", "| 1.00 | regular SLC |"),
        ("fig12", "fig12_tmws.png", "| 48 | 1.033 | 1.0276 |"),
        ("fig13", "fig13_tmws.png", "| 32 | 1.363 | 1.3609 |"),
        ("fig14", None, "| 4 blocks, x page read | 1.8 | 1.800 | yes |"),
        ("sec52", None, "| NOR | 0 | 0 (95 % upper bound 3.8e-09) | 1e+09 | 7630 |"),
        (
            "fig11-zero",
            "fig11_zero_esp.png",
            (
                "| zero errors at tESP/tPROG = 2.02 | 0 in 4.83e11 | 0 in 1.02e+09 (95 % upper "
                "bound 3.8e-09) | 1.02e+09 | yes |"
            ),
        ),
    ],
)
def test_flashcosmos_committed_report_is_rebuilt_from_its_rows(
    figure: str, plot: str | None, line: str, tmp_path: Path
) -> None:
    rows, meta = committed(FLASHCOSMOS, f"flashcosmos-{figure}-2")
    analysis = load_analysis(FLASHCOSMOS / "analysis.py")
    text, plots = analysis.report(rows, meta, tmp_path)
    assert text == (FLASHCOSMOS / f"report-{figure}.md").read_text()
    assert [p.name for p in plots] == ([plot] if plot else [])
    assert line in text


def test_report_names_a_missing_analysis(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    campaign = tmp_path / "c.yaml"
    campaign.write_text(
        "name: c\nbench: sim://mlc-planar?seed=2\nfresh: true\nblocks: [20]\n"
        "steps:\n  - cycle: {pec: 1}\nanalysis: gone.py\n"
    )
    out = tmp_path / "runs"
    assert run("run", "--yes", str(campaign), "--out", str(out), "--run-id", "c").exit_code == 0
    result = run("report", str(out / "c"))
    assert result.exit_code == 2
    assert f"the campaign's analysis {tmp_path / 'gone.py'} is missing" in result.stderr


@pytest.mark.parametrize(
    "path",
    sorted(
        p for folder in (PARABIT, FLASHCOSMOS, MCFLASH) for p in folder.glob("*.yaml")
    ),
    ids=lambda p: p.name,
)
def test_reproduction_campaigns_expand(path: Path) -> None:
    """Every reproduction campaign names an analysis that exists and expands into units
    (the full-size ones are too long to run in the tests)."""
    loaded = load_campaign(path)
    spec = loaded.campaign.blocks
    if spec.range is not None:
        blocks = list(range(spec.range.from_, spec.range.to + 1, spec.range.step))
    elif spec.random is not None:
        blocks = list(range(spec.random.from_, spec.random.from_ + spec.random.count))
    else:
        blocks = list(spec.blocks or [])
    assert expand(loaded, blocks).units
    assert loaded.campaign.analysis is not None
    assert (path.parent / loaded.campaign.analysis).is_file()


def test_report_says_when_the_analysis_finds_no_figure(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    campaign = tmp_path / "c.yaml"
    campaign.write_text(
        "name: c\nbench: sim://mlc-planar?seed=2\nfresh: true\nblocks: [20]\n"
        f"steps:\n  - cycle: {{pec: 1}}\nanalysis: {FLASHCOSMOS / 'analysis.py'}\n"
    )
    out = tmp_path / "runs"
    assert run("run", "--yes", str(campaign), "--out", str(out), "--run-id", "c").exit_code == 0
    result = run("report", str(out / "c"))
    assert result.exit_code == 2
    assert "no Flash-Cosmos rows in this run" in result.stderr


def _rate(rows: list[dict], **where: object) -> float:
    sel = [r for r in rows if all(r.get(k) == v for k, v in where.items())]
    assert sel, where
    return sum(r["errors_0to1"] + r["errors_1to0"] for r in sel) / sum(
        r["bits"] for r in sel
    )


def test_mcflash_from_a_reduced_run(run: Callable[..., Result], tmp_path: Path) -> None:
    codes = ", ".join(str(c) for c in range(0, 125, 4))
    campaign = reduced(
        MCFLASH / "mcflash-64l.yaml",
        tmp_path,
        ("wls: 0-159", "wls: 0-7"),
        ("wls: 0-7, vref0_codes", "wls: 0-1, vref0_codes"),
        (f"vref0_codes: [{codes}]", "vref0_codes: [0, 44, 48, 124]"),
        ("recalibrate: false", "recalibrate: true"),
    )
    out = tmp_path / "runs"
    assert run("run", "--yes", campaign, "--out", str(out), "--run-id", "m").exit_code == 0
    assert run("report", str(out / "m")).exit_code == 0
    text = (out / "m" / "report.md").read_text()
    rows = pq.read_table(out / "m" / "measurements.parquet").to_pylist()
    plain = {"offset_mV": None, "retention_age_h": 0.0}
    # NOT ran on the NOT layout only, the pair operations on random pairs only
    assert {r["pattern"] for r in rows if r["operation"] == "mcflash:NOT"} == {
        "random-msb"
    }
    assert {r["pattern"] for r in rows if r["operation"] == "mcflash:AND"} == {"random"}
    # the planner's Vth sweeps are rows too: recalibrating, one per block group (P/E,
    # layout) and age, by the first mcflash step at that age; the Fig. 7 and Sec. 4.3 steps
    # reuse them (the committed run keeps the fresh data's: one sweep per group)
    sweeps = {(r["step"], r["block"], r["retention_age_h"]) for r in rows if r["operation"] == "vth"}
    assert len(sweeps) == 8 * 4
    assert {s for s, _, _ in sweeps} == {f"s{i:02d}.mcflash" for i in (2, 6, 8, 10)}
    and_15k = _rate(rows, operation="mcflash:AND", pec=1500, **plain)
    assert f"| Table 2 1.5K P/E | AND | 9.0e-07..2.5e-06 | {and_15k:.2e} (" in text
    assert _rate(rows, operation="mcflash:AND", pec=1, **plain) == 0.0
    # Fig. 6: after 1 year at 10K P/E NOT errs most, AND least (of the order of 1e-3 here)
    year = {
        op: _rate(
            rows,
            operation=f"mcflash:{op}",
            pec=10000,
            offset_mV=None,
            retention_age_h=8760.0,
        )
        for op in ("AND", "OR", "XNOR", "NOT")
    }
    assert (
        year["NOT"] > 1.15 * year["OR"] and year["AND"] < year["OR"] <= year["XNOR"]
    ), year
    assert (
        "| RBER grows with retention (each P/E > 1, each op: 1 year >= 0) | yes |"
        in text
    )
    # Fig. 7: every L1 cell wrong at V_OFF = 0; Sec. 4.3: NAND without inverse read fails
    assert "| P/E 1: RBER at V_OFF = 0 | ~25 % | 25.0% | yes |" in text
    assert "| NAND | > 5 % |" in text and "| XOR | > 5 % |" in text
    assert "| energy/KiB XNOR / AND (within 10 %) | 1.51 | 1.51 | yes |" in text
    assert "| AND | 40.0 |" in text and "| XNOR | 90.0 |" in text
    assert (out / "m" / "plots" / "fig6-mlc-64l.png").stat().st_size > 0
    assert (out / "m" / "plots" / "fig7-mlc-64l.png").stat().st_size > 0


def test_mcflash_report_is_recomputed_from_rows() -> None:
    """Changing a row changes the table: the report's numbers come from the rows alone."""
    analyse = load_analysis(MCFLASH / "analysis.py").analyse
    base = {"pec": 1500, "retention_age_h": 0.0, "bits": 1000, "offset_mV": None}
    rows = [
        {**base, "operation": f"mcflash:{op}", "errors_0to1": k, "errors_1to0": 1}
        for k, op in enumerate(("AND", "OR", "XNOR", "NOT"))
    ]
    t2 = {(fig, op): meas for fig, op, _, meas, _, _ in analyse(rows)["table2"]}
    assert t2[("Table 2 1.5K P/E", "AND")] == "1.00e-03 (1 in 1e+03 bits)"
    assert t2[("Table 2 1.5K P/E", "NOT")].startswith("4.00e-03 (4 in")
    rows[0]["errors_1to0"] = 0
    t2 = {(fig, op): meas for fig, op, _, meas, _, _ in analyse(rows)["table2"]}
    assert t2[("Table 2 1.5K P/E", "AND")] == "0 in 1e+03 bits"


@pytest.mark.parametrize("profile", ["mlc-64l", "mlc-176l"])
def test_mcflash_committed_report_is_rebuilt_from_its_rows(
    profile: str, tmp_path: Path
) -> None:
    rows, meta = committed(MCFLASH, f"mcflash-{profile}-2")
    sweeps = {(r["step"], r["block"]) for r in rows if r["operation"] == "vth"}
    assert sweeps == {("s02.mcflash", b) for b in range(100, 115, 2)}  # recalibrate: false
    text, plots = load_analysis(MCFLASH / "analysis.py").report(rows, meta, tmp_path)
    assert text == (MCFLASH / f"report-{profile}.md").read_text()
    assert [p.name for p in plots] == [f"fig6-{profile}.png", f"fig7-{profile}.png"]


def test_mlc_page_order_programs_msb_after_the_string_neighbours_lsb() -> None:
    profile = load_profile("mlc-64l")
    stride = profile.geometry.sub_blocks
    wls = range(3 * stride)
    order = page_order(profile, wls, False, "mlc")
    assert sorted(order) == [(wl, pt) for wl in wls for pt in (0, 1)]
    pos = {p: i for i, p in enumerate(order)}
    for wl in wls:
        assert pos[(wl, 0)] < pos[(wl, 1)]
        if wl + stride in wls:
            assert pos[(wl + stride, 0)] < pos[(wl, 1)] < pos[(wl + stride, 1)]
    assert page_order(profile, [0, 1], False, "wl") == [(0, 0), (0, 1), (1, 0), (1, 1)]
