"""Self-describing data: the data dictionary is docs/data.md's table and the Parquet schema's
field metadata; rows carry bookkeeping and a Wilson interval; load_run keeps integer types;
run.json says which software made a run; docs/data.md's Python snippets run."""

from __future__ import annotations

import json
import math
import os
import re
import stat
import subprocess
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from nandlab.campaign.runner import start_run
from nandlab.dataset import DICTIONARY, load_run
from nandlab.dataset.columns import BOOKKEEPING, dictionary_markdown, rows_to_table

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "data.md"

CAMPAIGN = """\
name: dict
bench: sim://mlc-64l?seed=31
fresh: true
seed: 2
blocks: [40]
steps:
  - cycle: {pec: 1}
  - program: {wls: 0-1, pattern: random}
  - measure: {what: [rber, vth], code_step: 16}
"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("dict")
    os.environ["NANDLAB_DATA_DIR"] = str(base / "data")
    old = os.umask(0o022)
    try:
        (base / "dict.yaml").write_text(CAMPAIGN)
        start_run(base / "dict.yaml", base / "runs", run_id="dict")
    finally:
        os.umask(old)
        del os.environ["NANDLAB_DATA_DIR"]
    return base / "runs"


def test_docs_table_is_the_dictionary() -> None:
    text = DOC.read_text()
    table = text.split("<!-- dictionary:start -->\n", 1)[1].split("<!-- dictionary:end -->")[0]
    assert table == dictionary_markdown(), "docs/data.md is stale; paste:\n" + (
        dictionary_markdown()
    )
    names = [c.name for c in DICTIONARY]
    assert len(names) == len(set(names))
    assert all(c.meaning for c in DICTIONARY)


def test_parquet_of_a_run_carries_units_and_meanings(runs: Path) -> None:
    schema = pq.read_schema(runs / "dict" / "measurements.parquet")
    for column in DICTIONARY:
        field = schema.field(column.name)
        assert field.type == column.type
        assert field.metadata == {
            b"unit": column.unit.encode(),
            b"description": column.meaning.encode(),
        }
    assert pq.read_schema(runs / "dict" / "measurements.parquet").field("latency_us").metadata[
        b"unit"
    ] == "µs".encode()


def _wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval, written out from Wilson (1927) independently of nandlab."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def test_rows_carry_bookkeeping_and_the_rate_interval(runs: Path) -> None:
    table = pq.read_table(runs / "dict" / "measurements.parquet")
    assert set(table.column("run_id").to_pylist()) == {"dict"}
    for name in ("unit_idx", "time_utc"):
        assert table.column(name).null_count == 0, name
    assert table.schema.field("time_utc").type == pa.timestamp("us", tz="UTC")
    rber = [r for r in table.to_pylist() if r["operation"] == "rber"]
    assert rber
    for r in rber:
        low, high = _wilson(r["errors_0to1"] + r["errors_1to0"], r["bits"])
        assert r["rber_low"] == pytest.approx(low, abs=1e-12)
        assert r["rber_high"] == pytest.approx(high, rel=1e-9)
    zero = rows_to_table([{"bits": 1000, "errors_0to1": 0, "errors_1to0": 0}]).to_pylist()[0]
    assert zero["rber_low"] == 0.0 and zero["rber_high"] == pytest.approx(3.8415 / 1003.8415, 1e-4)
    assert set(BOOKKEEPING) <= {c.name for c in DICTIONARY}


def test_load_run_keeps_integers_with_gaps(runs: Path) -> None:
    df = load_run(runs / "dict")
    assert isinstance(df.dtypes["seed"], pd.ArrowDtype)
    assert str(df.dtypes["seed"]) == "int64[pyarrow]" and df["seed"].isna().any()
    assert str(df.dtypes["block"]) == "int32[pyarrow]"
    assert df.attrs["units"]["vth_mV"] == "mV"
    big = 2**63 - 25  # far beyond a float64's 53 bits
    table = rows_to_table([{"seed": big}, {"bits": 8}])
    path = runs.parent / "big.parquet"
    pq.write_table(table, path)
    assert load_run(path)["seed"].tolist()[0] == big


def test_run_json_says_which_software_and_is_readable(runs: Path) -> None:
    run = runs / "dict"
    meta = json.loads((run / "run.json").read_text())
    # the commit nandlab ran from: HEAD then, so HEAD or one of its ancestors now
    assert re.fullmatch(r"[0-9a-f]{40}", meta["git_commit"])
    ancestor = subprocess.run(
        ["git", "-C", str(REPO), "merge-base", "--is-ancestor", meta["git_commit"], "HEAD"]
    )
    assert ancestor.returncode == 0 and isinstance(meta["git_dirty"], bool)
    assert meta["nandlab_version"] and meta["python"] and meta["command_line"]
    assert isinstance(meta["pid"], int) and meta["host"]
    assert meta["status"] == "complete" and meta["start_utc"].endswith("Z")
    assert meta["stop_utc"] >= meta["start_utc"]
    for name in ("run.json", "measurements.parquet", "run.sqlite"):
        assert stat.S_IMODE((run / name).stat().st_mode) == 0o644, name
    assert stat.S_IMODE(run.stat().st_mode) == 0o755


def test_docs_snippets_run(runs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) >= 3  # pandas, DuckDB, nandlab's query
    monkeypatch.chdir(runs.parent)
    for code in blocks:
        exec(compile(code, str(DOC), "exec"), {})
