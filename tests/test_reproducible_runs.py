"""A seeded campaign started on a fresh virtual die gives bit-identical measured rows, whatever
ran on that chip and data folder before: one-off commands, other campaigns, cached bad-block
markers (bbt.json), ledger wear.

Every sample campaign is run as it is written except for its sizes (fewer WLs, coarser
sweeps, fewer disturb reads), which keeps the test fast and changes nothing it checks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml
from golden import rows  # tests/ is on sys.path: pytest's rootdir conftest
from nandlab.campaign.runner import start_run

CAMPAIGNS = Path(__file__).resolve().parents[1] / "characterization" / "campaigns"


def _smaller(step: dict[str, Any]) -> dict[str, Any]:
    ((kind, params),) = step.items()
    p = dict(params)
    if kind == "program":
        p["wls"] = "0-1"
    elif kind == "measure":
        p.update(repeats=1, code_step=max(p.get("code_step", 1), 8))
        p["retry_code_step"] = max(p.get("retry_code_step", 4), 16)
        if "vth_wl" in p:
            p["vth_wl"] = 1
    elif kind == "disturb":
        p["reads"] = min(p["reads"], 100)
    return {kind: p}


def _variant(path: Path, folder: Path) -> Path:
    doc = yaml.safe_load(path.read_text())
    assert doc["fresh"] is True, (
        f"{path.name} must start from a fresh die to be reproducible"
    )
    doc["steps"] = [_smaller(s) for s in doc["steps"]]
    out = folder / path.name
    out.write_text(yaml.safe_dump(doc, sort_keys=False))
    return out


def _measured(run_dir: Path) -> Any:
    return rows.measured(pq.read_table(run_dir / "measurements.parquet"))


@pytest.mark.parametrize("path", sorted(CAMPAIGNS.glob("*.yaml")), ids=lambda p: p.stem)
def test_same_seed_same_rows_whatever_ran_before(
    path: Path, run, tmp_path: Path
) -> None:
    campaign = _variant(path, tmp_path)
    out = tmp_path / "runs"
    first = start_run(campaign, out, run_id="first").run_dir
    bench = yaml.safe_load(campaign.read_text())["bench"]
    blocks = [int(b) for b in json.loads((first / "run.json").read_text())["blocks"]]
    # the same chip, used in between: a campaign block erased and read (its bad-block
    # marker cached), another block cycled, a die started fresh by a one-off
    for args in (
        ("erase", bench, "--block", str(blocks[0]), "--yes"),
        ("read", bench, "--block", str(blocks[-1]), "--page", "0"),
        (
            "rber",
            bench,
            "--block",
            "7",
            "--pec",
            "4",
            "--wl",
            "0",
            "--yes",
            "--out",
            str(out),
        ),
        ("erase", bench, "--block", "9", "--yes", "--fresh"),
        ("erase", bench, "--block", str(blocks[-1]), "--yes"),
    ):
        result = run(*args)
        assert result.exit_code == 0, (args, result.output)
    again = start_run(campaign, out, run_id="again").run_dir
    a, b = _measured(first), _measured(again)
    assert a.num_rows > 0 and a.num_rows == b.num_rows
    differ = [c for c in a.column_names if not a.column(c).equals(b.column(c))]
    assert not differ, (
        f"{path.name}: columns differ between the two fresh runs: {differ}"
    )
