"""Restructuring changes no measurement: the seeded sample campaigns, the
ParaBit reproduction and the one-off commands give the rows captured in
tests/golden/ (see tests/golden/rows.py for how they were captured)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from golden import rows  # tests/ is on sys.path: pytest's rootdir conftest


@pytest.mark.parametrize("name", list(rows.RUNS))
def test_rows_unchanged(name: str, tmp_path: Path) -> None:
    golden = pq.read_table(rows.GOLDEN / f"{name}.parquet")
    table = rows.measured(rows.run_rows(name, tmp_path / "data", tmp_path / "out"))
    missing = set(golden.column_names) - set(table.column_names)
    assert not missing, f"{name}: columns gone: {sorted(missing)}"
    assert table.num_rows == golden.num_rows, f"{name}: {table.num_rows} rows, golden {golden.num_rows}"
    table = table.select(golden.column_names)
    differ = [c for c in golden.column_names if not table.column(c).equals(golden.column(c))]
    assert not differ, f"{name}: columns differ from the golden rows: {differ}"
