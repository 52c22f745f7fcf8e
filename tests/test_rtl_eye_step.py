"""`nandlab run` with an `eye` step on `rtl://`, then `nandlab report`.

The campaign erases and programs a block of the tiny test die, then the step
negotiates the fastest interface the die and the bench share (NV-DDR3 mode 10),
sweeps the RTL controller's DQS capture delay (role `eye`) over the page
register, centres the capture and returns the chip to SDR (SET FEATURES 01h
sent in NV-DDR3, its bytes repeated, then read back in SDR): the run must
finish and its report must carry the "Data eye" table and plot. The pass
window lies inside the die's output window [tDQSQ, tQH] after its DQS edge
(ONFI's figures for the mode, `onfi_spec.nvddr_timing`), and every tap outside
it reads more bit errors than the taps inside.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from click.testing import Result
from nandlab.dataset.store import RunStore
from nandlab.onfi_spec.nvddr_timing import ddr
from nandlab.rtlsim.eye import TAP_PS
from nandlab.rtlsim.sim_env import TB_PROFILE

TAP_STEP = 32
"""320 ps a step: two or three taps fall in mode 10's 725 ps eye."""


def test_eye_step_on_the_rtl_runs_to_the_report(
    tmp_path: Path, run: Callable[..., Result]
) -> None:
    campaign = tmp_path / "eye.yaml"
    campaign.write_text(f"""\
name: rtl-eye
bench: rtl://?profile={TB_PROFILE}&seed=9&sim=icarus
seed: 1
blocks: [3]
steps:
  - erase: {{}}
  - program: {{wls: 0}}
  - eye: {{wl: 0, bytes: 32, tap_step: {TAP_STEP}}}
""")
    runs = tmp_path / "runs"
    result = run("run", str(campaign), "--out", str(runs), "--run-id", "r", "--yes",
                 "--no-progress")
    assert result.exit_code == 0, result.output
    store = RunStore(runs / "r")
    try:
        rows = [r for r in store.rows() if str(r.get("operation", "")).startswith("eye")]
    finally:
        store.close()
    (window,) = [r for r in rows if r["operation"] == "eye_window"]
    assert (window["interface"], window["timing_mode"], window["lane"]) == ("nv-ddr3", 10, 0)
    t = ddr("nv-ddr3", 10)
    assert t.tDQSQ <= window["window_start_ps"] < window["window_end_ps"] <= t.tQH
    scans = [r for r in rows if r["operation"] == "eye_scan"]
    assert len(scans) == 512 // TAP_STEP
    outside = [r for r in scans if not window["window_start_ps"] <= r["capture_delay_ps"]
               <= window["window_end_ps"]]
    assert outside and all(r["bit_errors"] > window["bit_errors"] for r in outside)
    assert all(r["capture_delay_ps"] == r["capture_tap"] * TAP_PS for r in scans)

    result = run("report", str(runs / "r"))
    assert result.exit_code == 0, result.output
    assert "## Data eye" in (runs / "r" / "summary.md").read_text()
    assert (runs / "r" / "plots" / "data_eye.png").stat().st_size > 10_000
