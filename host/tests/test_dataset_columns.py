"""The row schema of the run folder (contract 4)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from nandlab.dataset.columns import COLUMNS, check_row, rows_to_table


def test_unknown_column_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"unknown measurement columns \['bitz'\]"):
        check_row({"bits": 8, "bitz": 1})


def test_rows_keep_their_types_across_gaps() -> None:
    big_seed = 2**53 + 1  # not representable as a float64
    table = rows_to_table([{"seed": big_seed, "block": 3, "offsets": [-2, 4]}, {"bits": 16}])
    assert table.column_names == list(COLUMNS)
    assert table.schema.field("seed").type == pa.int64()
    assert table.column("seed").to_pylist() == [big_seed, None]
    assert table.column("block").to_pylist() == [3, None]
    assert table.column("offsets").to_pylist() == [[-2, 4], None]
