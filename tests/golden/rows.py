"""The seeded runs whose rows must not change when the code is restructured.

`python tests/golden/rows.py` (re)captures `tests/golden/*.parquet` from the
current code; `tests/test_rows_unchanged.py` runs the same commands and
compares. Recapture only when a change of the measured numbers is intended,
and say why in the commit.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from click.testing import CliRunner
from nandlab.cli.app import cli

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent

RUNS: dict[str, list[str]] = {
    name: ["run", "--yes", str(REPO / path)]
    for name, path in {
        "mlc-rber-pec-retention": "characterization/campaigns/mlc-rber-pec-retention.yaml",
        "mlc-vth-sweep": "characterization/campaigns/mlc-vth-sweep.yaml",
        "mlc-read-disturb": "characterization/campaigns/mlc-read-disturb.yaml",
        "tlc-latency-power": "characterization/campaigns/tlc-latency-power.yaml",
        "parabit": "characterization/parabit/parabit.yaml",
    }.items()
}
RUNS["demo"] = ["demo"]
RUNS["rber"] = [
    "rber", "sim://mlc-64l?seed=5", "--block", "9", "--pec", "3000",
    "--retention", "1y@30C", "--yes", "--fresh",
]
RUNS["vth"] = ["vth", "sim://mlc-64l?seed=5", "--block", "8", "--wl", "0", "--yes", "--fresh"]

MEASURED = (
    "block", "wl", "page", "page_type", "pec", "operation", "offsets", "offset_mV",
    "state", "vth_mV", "cells", "bits", "errors_0to1", "errors_1to0", "latency_us",
    "energy_uJ", "mean_mA", "peak_mA", "scheme", "expression", "sensings",
    "disturb_reads", "retention_age_h",
)
"""Columns compared: what was measured and where; bookkeeping columns may change."""


def run_rows(name: str, data_dir: Path, out: Path) -> pa.Table:
    """Run one golden command with its own data folder; its measurement rows."""
    import os

    os.environ["NANDLAB_DATA_DIR"] = str(data_dir)
    args = RUNS[name] + ["--out", str(out)]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    if result.exit_code != 0:
        raise RuntimeError(f"nandlab {' '.join(args)}: exit {result.exit_code}\n{result.output}")
    (table_path,) = sorted(out.rglob("measurements.parquet"))
    return pq.read_table(table_path)


def measured(table: pa.Table) -> pa.Table:
    """The compared columns present in `table`, rows in a canonical order."""
    cols = [c for c in MEASURED if c in table.column_names]
    t = table.select(cols)
    keys = [(c, "ascending") for c in cols if not pa.types.is_list(t.schema.field(c).type)]
    return t.sort_by(keys)


def main() -> int:
    names = sys.argv[1:] or list(RUNS)
    for name in names:
        with tempfile.TemporaryDirectory() as tmp:
            table = run_rows(name, Path(tmp) / "data", Path(tmp) / "out")
        pq.write_table(measured(table), GOLDEN / f"{name}.parquet")
        print(f"{name}: {table.num_rows} rows")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
