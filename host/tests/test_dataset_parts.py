"""Parquet parts of a running run (dataset.parts): written after their units commit, whole
after a kill, numbered on across a resume, never duplicating a row, read by every reader
with the rows committed after them, checked against their sha256, rebuilt from the store.

The run here is a run folder written directly through the run store (no bench), so each
test takes milliseconds; tests/test_crash_resume.py kills real runs that write parts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from nandlab.cli.app import cli
from nandlab.dataset import parts as parts_mod
from nandlab.dataset.catalog import query
from nandlab.dataset.load import run_arrow
from nandlab.dataset.parts import (
    PARTS,
    PartWriter,
    committed_table,
    part_path,
    rebuild_parts,
)
from nandlab.dataset.store import RunStore, finish_dataset, store_table
from nandlab.errors import DamagedFileError


def _row(idx: int, n: int) -> dict[str, Any]:
    return {"operation": "rber", "block": idx, "page": n, "bits": 1000, "errors_0to1": n,
            "errors_1to0": 0, "rber": n / 1000, "seed": 2**62 + idx, "offsets": [idx, -n]}


def _run(root: Path, status: str = "stopped") -> Path:
    run = root / "runs" / "r"
    run.mkdir(parents=True)
    (run / "run.json").write_text(json.dumps(
        {"run_id": "r", "campaign": "c", "status": status, "units": 40,
         "start_utc": "2026-11-25T10:00:00Z", "campaign_text": "name: c\n",
         "campaign_file": "c.yaml"}))
    return run


def _commit(store: RunStore, writer: PartWriter | None, units: range, rows: int = 3) -> None:
    for idx in units:
        store.commit_unit(idx, f"u{idx}", idx, [_row(idx, n) for n in range(rows)],
                          checkpoint=None, chip_time_ns=0, wall_s=0.0)
        if writer is not None:
            writer.committed(rows)


def _manifest(run: Path) -> list[tuple[int, int, int]]:
    store = RunStore(run, readonly=True)
    try:
        return [(p.n, p.first_unit, p.last_unit) for p in store.parts()]
    finally:
        store.close()


def test_a_part_is_due_after_its_rows_or_its_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _run(tmp_path)
    store = RunStore(run)
    monkeypatch.setattr(parts_mod, "PART_ROWS", 7)
    writer = PartWriter(run, store)
    _commit(store, writer, range(5))  # 3 rows a unit: due at the 3rd unit (9 rows)
    assert _manifest(run) == [(0, 0, 2)]
    monkeypatch.setattr(parts_mod, "PART_EVERY_S", 0.0)
    _commit(store, writer, range(5, 6))  # time is due: units 3..5 go together
    assert _manifest(run) == [(0, 0, 2), (1, 3, 5)]
    assert writer.flush() is None  # nothing waits: no empty part
    store.close()
    assert sorted(p.name for p in (run / PARTS).iterdir()) == [
        "part-000000.parquet", "part-000001.parquet"]


def test_parts_and_the_tail_are_every_committed_row_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _run(tmp_path)
    store = RunStore(run)
    monkeypatch.setattr(parts_mod, "PART_ROWS", 10)
    writer = PartWriter(run, store)
    _commit(store, writer, range(9))
    _commit(store, None, range(9, 11))  # committed after the last part: only in the store
    store.close()
    assert _manifest(run)[-1][2] < 10
    assert committed_table(run).equals(store_table(run))
    assert run_arrow(run).to_pylist() == store_table(run).to_pylist()


def test_a_kill_between_rename_and_manifest_leaves_no_duplicate_and_numbering_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _run(tmp_path)
    store = RunStore(run)
    writer = PartWriter(run, store)
    _commit(store, None, range(4))
    writer.flush()
    _commit(store, None, range(4, 6))
    # the next part renamed into place but never entered, and a temp file of the one after
    monkeypatch.setattr(store, "record_part", lambda part: None)
    writer.flush()
    monkeypatch.undo()
    (run / PARTS / ".part-000002.parquet.tmp").write_bytes(b"PAR1 half")
    store.close()
    assert committed_table(run).equals(store_table(run))  # the unentered file is not read

    store = RunStore(run)  # the resume
    writer = PartWriter(run, store)
    assert sorted(p.name for p in (run / PARTS).iterdir()) == ["part-000000.parquet"]
    _commit(store, writer, range(6, 8))
    writer.flush()
    store.close()
    assert _manifest(run) == [(0, 0, 3), (1, 4, 7)]
    units = pq.read_table(part_path(run, 1)).column("unit_idx").to_pylist()
    assert units == [u for u in range(4, 8) for _ in range(3)]
    assert committed_table(run).equals(store_table(run))


def test_parts_carry_the_final_files_schema_and_metadata(tmp_path: Path) -> None:
    run = _run(tmp_path)
    store = RunStore(run)
    writer = PartWriter(run, store)
    _commit(store, None, range(3))
    writer.flush()
    store.close()
    finish_dataset(run)
    part = pq.read_schema(part_path(run, 0))
    final = pq.read_schema(run / "measurements.parquet")
    assert part.equals(final, check_metadata=True)
    assert part.field("vth_mV").metadata == {b"unit": b"mV",
                                             b"description": b"threshold voltage bin centre "
                                                             b"(vth rows)"}
    assert pq.read_table(part_path(run, 0)).equals(pq.read_table(run / "measurements.parquet"))


def test_a_damaged_part_is_named_with_the_fix_and_rebuilt(tmp_path: Path) -> None:
    run = _run(tmp_path)
    store = RunStore(run)
    writer = PartWriter(run, store)
    for units in (range(2), range(2, 4)):
        _commit(store, None, units)
        writer.flush()
    store.close()
    good = part_path(run, 1).read_bytes()
    data = bytearray(good)
    data[len(data) // 2] ^= 0x40
    part_path(run, 1).write_bytes(bytes(data))
    with pytest.raises(DamagedFileError, match=r"part-000001.parquet is damaged.*--rebuild"):
        run_arrow(run)
    part_path(run, 0).unlink()
    with pytest.raises(DamagedFileError, match=r"part-000000.parquet is missing.*--rebuild"):
        query(run.parent, "SELECT COUNT(*) FROM rows")
    out = CliRunner().invoke(cli, ["export", str(run), "--rebuild"])
    assert out.exit_code == 0, out.output
    assert out.output == f"rebuilt {run / PARTS} from the run store\n"
    assert part_path(run, 1).read_bytes() == good
    assert rebuild_parts(run) == []
    assert committed_table(run).equals(store_table(run))


def test_query_sees_an_unfinished_runs_parts_and_tail(tmp_path: Path) -> None:
    run = _run(tmp_path, status="interrupted")
    store = RunStore(run)
    writer = PartWriter(run, store)
    _commit(store, None, range(3))
    writer.flush()
    _commit(store, None, range(3, 5), rows=2)
    store.close()
    found = query(run.parent, "SELECT unit_idx, COUNT(*) AS n, MIN(seed) AS s FROM rows "
                              "JOIN runs USING (run_id) WHERE runs.status = 'interrupted' "
                              "GROUP BY ALL ORDER BY ALL").to_pylist()
    assert found == [{"unit_idx": i, "n": 3 if i < 3 else 2, "s": 2**62 + i} for i in range(5)]


STOPPING = """\
name: stopping
bench: sim://mlc-64l?seed=23
fresh: true
seed: 4
blocks: [300]
steps:
  - cycle: {pec: 1}
  - program: {wls: 0-1, pattern: random}
  - measure: {what: [rber], repeats: {sweep: [1, 2, 3, 4]}}
"""


def test_a_stopped_run_writes_its_last_part_and_completion_removes_the_parts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nandlab.campaign.runner import resume_run, start_run
    from nandlab.errors import Interrupted

    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "c.yaml").write_text(STOPPING)
    calls = 0

    def ctrl_c_after_the_third_unit(label: str, done: int, total: int, step: int) -> None:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise KeyboardInterrupt

    # the default rule makes no part in this short run: the stop writes the only one
    with pytest.raises(Interrupted):
        start_run(tmp_path / "c.yaml", tmp_path / "runs", run_id="s",
                  progress=ctrl_c_after_the_third_unit)
    run = tmp_path / "runs" / "s"
    store = RunStore(run, readonly=True)
    last = store.last_unit()
    store.close()
    assert last == 2 and _manifest(run) == [(0, 0, 2)]
    assert pq.read_table(part_path(run, 0)).equals(store_table(run))
    assert resume_run(run).status == "complete"
    assert not (run / PARTS).exists()
    assert run_arrow(run).num_rows == store_table(run).num_rows


def test_query_of_a_run_that_completes_meanwhile_reads_its_final_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nandlab.dataset import catalog as catalog_mod
    from nandlab.dataset.parts import drop_parts

    run = _run(tmp_path, status="stopped")
    store = RunStore(run)
    writer = PartWriter(run, store)
    _commit(store, None, range(4))
    writer.flush()
    store.close()
    listed = catalog_mod._sources

    def completing_after_the_listing(runs: Any) -> Any:
        found = listed(runs)
        if (run / PARTS).exists():  # the run completes between listing and reading
            meta = json.loads((run / "run.json").read_text())
            meta.update(status="complete", dataset=finish_dataset(run))
            (run / "run.json").write_text(json.dumps(meta))
            drop_parts(run)
        return found

    monkeypatch.setattr(catalog_mod, "_sources", completing_after_the_listing)
    found = query(run.parent, "SELECT runs.status, COUNT(*) AS n FROM rows "
                              "JOIN runs USING (run_id) GROUP BY ALL").to_pylist()
    assert found == [{"status": "complete", "n": 12}]
