"""Reading runs: read-only archives, unfinished runs, damaged files, the catalogue.

One tiny campaign run is made per module and copied for each test."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner, Result

from nandlab.bench import Bench
from nandlab.campaign.export import export, read_export, rebuild
from nandlab.campaign.report import report
from nandlab.campaign.runner import RunStopped, resume_run, start_run
from nandlab.cli.app import cli
from nandlab.dataset import load_run
from nandlab.dataset.catalog import catalog, query
from nandlab.dataset.store import RunStore
from nandlab.errors import DamagedFileError, UsageError
from nandlab.transport import open_bench
from nandlab.transport.base import Transport

CAMPAIGN = """\
name: tiny
bench: sim://mlc-64l?seed=23
fresh: true
seed: 4
blocks: [300]
steps:
  - cycle: {pec: 1}
  - program: {wls: 0-1, pattern: random}
  - measure: {what: [rber, latency], repeats: {sweep: [1, 2, 3]}}
"""

ANALYSIS = """\
def report(rows, meta, plots_dir):
    return f"# {meta['campaign']}: {len(rows)} rows\\n", []
"""


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("pristine")
    os.environ["NANDLAB_DATA_DIR"] = str(base / "data")
    try:
        (base / "tiny.yaml").write_text(CAMPAIGN + "analysis: analysis.py\n")
        (base / "analysis.py").write_text(ANALYSIS)
        result = start_run(base / "tiny.yaml", base / "runs", run_id="tiny")
    finally:
        del os.environ["NANDLAB_DATA_DIR"]
    assert result.status == "complete"
    return result.run_dir


@pytest.fixture
def run_dir(pristine: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "runs" / "tiny"
    shutil.copytree(pristine, copy)
    return copy


def _stored_rows(run: Path) -> int:
    # immutable: a read-only open of a WAL file would leave -wal / -shm files behind
    with sqlite3.connect(f"file:{run / 'run.sqlite'}?immutable=1", uri=True) as db:
        return int(db.execute("SELECT COUNT(*) FROM rows").fetchone()[0])


def _tree(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
    }


def _nandlab(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def _set_meta(run: Path, **fields: object) -> None:
    meta = json.loads((run / "run.json").read_text())
    meta.update(fields)
    (run / "run.json").write_text(json.dumps(meta))


def test_read_only_archived_run_exports_and_reports_without_a_write(
    run_dir: Path, tmp_path: Path
) -> None:
    rows = _stored_rows(run_dir)
    for p in [run_dir, *run_dir.rglob("*")]:
        p.chmod(p.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    before = _tree(run_dir)
    try:
        done = export(run_dir, "csv", tmp_path / "out" / "rows.csv")
        summary, plots = report(run_dir, tmp_path / "report")
        frame = load_run(run_dir)
        after = _tree(run_dir)
    finally:
        for p in [run_dir, *run_dir.rglob("*")]:
            p.chmod(p.stat().st_mode | stat.S_IWUSR)
    assert done.rows == rows and read_export(done.path).num_rows == rows
    assert f"measurement rows: {rows}" in summary.read_text() and plots
    assert "| RBER | 95 % interval |" in summary.read_text()
    assert (tmp_path / "report" / "report.md").read_text() == f"# tiny: {rows} rows\n"
    assert len(frame) == rows
    assert after == before, "reading an archived run changed its folder"
    assert not list(run_dir.glob("run.sqlite-*"))


HOLD_LOCK = """\
import sys, time
from pathlib import Path
from nandlab.locks import acquire
acquire(Path(sys.argv[1]), "run folder", run="tiny")
print("held", flush=True)
time.sleep(120)
"""


def test_a_live_writers_rows_are_read_without_touching_its_journal(run_dir: Path) -> None:
    # a running campaign: another process holds the run's lock, run.sqlite is open in WAL mode
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(run_dir / "run.lock")],
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    _set_meta(run_dir, status="running", pid=holder.pid, host=os.uname().nodename)
    writer = RunStore(run_dir)
    try:
        writer.commit_unit(99, "extra", 1, [{"operation": "read", "latency_us": 5.0}],
                           checkpoint=None, chip_time_ns=0, wall_s=0.0)
        rows = len(writer.rows())
        assert rows > _stored_rows(run_dir)  # the new unit is in the -wal file only
        with pytest.raises(UsageError, match=r"still running \(pid .*--partial"):
            export(run_dir, "parquet")
        done = export(run_dir, "parquet", partial=True)
        assert done.partial and done.rows == rows
        assert pq.read_table(done.path).column("unit_idx").to_pylist()[-1] == 99
    finally:
        writer.close()
        holder.kill()
        holder.wait()
    with pytest.raises(UsageError, match=r"status killed"):  # its lock went with it
        export(run_dir, "parquet")


def test_cli_refuses_an_unfinished_run_with_exit_2(run_dir: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    _set_meta(run_dir, status="running", pid=int(dead.stdout), host=os.uname().nodename)
    for command in ("export", "report"):
        result = _nandlab(command, str(run_dir))
        assert result.exit_code == 2, result.output
        assert "status killed" in result.stderr and f"nandlab resume {run_dir}" in result.stderr
        assert "--partial" in result.stderr and "Traceback" not in result.stderr
    assert not (run_dir / "export").exists()
    assert _nandlab("runs", "--out", str(run_dir.parent), "--json").exit_code == 0


def _link_lost_on_open(n: int) -> Callable[[str], Transport]:
    opens = [0]

    def opener(url: str) -> Transport:
        transport = open_bench(url)
        opens[0] += 1
        if opens[0] == n:
            Bench(transport).faults.inject("link_lost", after_programs=0)
        return transport

    return opener


def test_partial_report_goes_when_the_run_completes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "two.yaml").write_text(CAMPAIGN.replace("blocks: [300]", "blocks: [300, 301]"))
    with pytest.raises(RunStopped):
        start_run(tmp_path / "two.yaml", tmp_path / "runs", run_id="p",
                  opener=_link_lost_on_open(3))
    run = tmp_path / "runs" / "p"
    summary, _ = report(run, partial=True)
    assert summary == run / "partial-report" / "summary.md"
    assert "**partial**" in summary.read_text() and "status **stopped**" in summary.read_text()
    assert not (run / "summary.md").exists()
    assert resume_run(run).status == "complete"
    assert not (run / "partial-report").exists()
    summary, _ = report(run)
    assert summary == run / "summary.md" and "**partial**" not in summary.read_text()


def test_damaged_parquet_is_named_and_rebuilt_from_the_store(run_dir: Path) -> None:
    parquet = run_dir / "measurements.parquet"
    good = parquet.read_bytes()
    damaged = bytearray(good)
    damaged[len(good) // 2] ^= 0x40
    parquet.write_bytes(bytes(damaged))
    for read in (lambda: export(run_dir, "csv"), lambda: report(run_dir),
                 lambda: load_run(run_dir)):
        with pytest.raises(DamagedFileError, match=r"measurements.parquet is damaged.*--rebuild"):
            read()
    result = _nandlab("report", str(run_dir))
    assert result.exit_code == 2 and "measurements.parquet is damaged" in result.stderr
    parquet.unlink()
    with pytest.raises(DamagedFileError, match="measurements.parquet is missing"):
        export(run_dir, "csv")
    assert _nandlab("export", str(run_dir), "--rebuild").exit_code == 0
    assert parquet.read_bytes() == good
    assert len(load_run(run_dir)) == _stored_rows(run_dir)


def test_damaged_export_is_named(run_dir: Path) -> None:
    path = export(run_dir, "parquet").path
    data = bytearray(path.read_bytes())
    data[-20] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(DamagedFileError, match=r"tiny.parquet is damaged.*export it"):
        load_run(path)
    with pytest.raises(DamagedFileError):
        read_export(path)


def test_export_never_writes_over_a_run_file_or_a_foreign_file(run_dir: Path) -> None:
    for name in ("measurements.parquet", "run.sqlite", "run.json", "summary.md"):
        before = (run_dir / name).read_bytes() if (run_dir / name).exists() else None
        with pytest.raises(UsageError, match="one of the run's own files"):
            export(run_dir, "parquet", run_dir / name)
        after = (run_dir / name).read_bytes() if (run_dir / name).exists() else None
        assert after == before
    foreign = run_dir.parent / "notes.csv"
    foreign.write_text("mine\n")
    with pytest.raises(UsageError, match="not a nandlab export"):
        export(run_dir, "csv", foreign)
    assert foreign.read_text() == "mine\n"
    first = export(run_dir, "csv", run_dir.parent / "rows.csv")
    assert export(run_dir, "csv", first.path).rows == first.rows  # its own export: redone


def test_a_store_that_lost_rows_is_not_exported(run_dir: Path) -> None:
    with sqlite3.connect(run_dir / "run.sqlite") as db:
        db.execute("DELETE FROM rows WHERE unit_idx = (SELECT MAX(unit_idx) FROM rows)")
    with pytest.raises(DamagedFileError, match=r"holds \d+ rows, but the run completed with"):
        export(run_dir, "parquet")
    with pytest.raises(DamagedFileError):
        rebuild(run_dir)
    assert not (run_dir / "export").exists()


def test_runs_and_query_over_several_runs(run_dir: Path) -> None:
    shutil.copytree(run_dir, run_dir.parent / "again")
    _set_meta(run_dir.parent / "again", run_id="again", start_utc="2999-01-01T00:00:00Z")
    stopped = run_dir.parent / "stopped"
    shutil.copytree(run_dir, stopped)
    _set_meta(stopped, run_id="stopped", status="stopped", dataset=None)
    rows = _stored_rows(run_dir)
    entries = {e.run_id: (e.status, e.rows) for e in catalog(run_dir.parent)}
    assert entries == {
        "tiny": ("complete", rows), "stopped": ("stopped", rows), "again": ("complete", rows)
    }
    assert [e.run_id for e in catalog(run_dir.parent)][-1] == "again"  # oldest first
    table = query(run_dir.parent, "SELECT COUNT(*) AS n, COUNT(DISTINCT run_id) AS runs FROM rows")
    # the two complete runs, whose run_id is the one run.json had when measurements.parquet
    # was written, and the committed rows of the stopped one, read from its store
    assert table.to_pylist() == [{"n": 3 * rows, "runs": 2}]
    status = query(run_dir.parent, "SELECT run_id, rows FROM runs WHERE status = 'stopped'")
    assert status.to_pylist() == [{"run_id": "stopped", "rows": rows}]
    listing = _nandlab("runs", "--out", str(run_dir.parent))
    assert listing.exit_code == 0
    listed = [line.split()[1] for line in listing.stdout.splitlines() if "complete" in line]
    assert listed == ["tiny", "again"]  # oldest first; the stopped one says "stopped"
    result = _nandlab("query", "SELEC nothing", "--out", str(run_dir.parent))
    assert result.exit_code == 2 and "query failed" in result.stderr
    result = _nandlab("query", "SELECT pec, bits FROM rows WHERE bits IS NOT NULL LIMIT 2",
                      "--out", str(run_dir.parent), "--csv")
    assert result.exit_code == 0 and result.stdout.splitlines()[0] == "pec,bits"


@pytest.mark.parametrize("damage", ["garbage", "truncated", "not JSON"])
def test_damaged_store_is_named(run_dir: Path, damage: str) -> None:
    store = run_dir / "run.sqlite"
    if damage == "garbage":
        store.write_bytes(b"not a database at all" * 100)
    elif damage == "truncated":
        store.write_bytes(store.read_bytes()[: store.stat().st_size // 3])
    else:
        with sqlite3.connect(store) as db:
            db.execute("UPDATE rows SET data = '{broken' WHERE n = 0")
    for command in ("export", "report"):
        result = _nandlab(command, str(run_dir), "--partial")
        assert result.exit_code == 2, (command, result.output)
        assert "run.sqlite is damaged" in result.stderr and "Traceback" not in result.stderr
    assert len(load_run(run_dir)) > 0  # measurements.parquet still holds every row


def test_read_only_for_real(run_dir: Path, tmp_path: Path) -> None:
    """The CLI on a run folder the user cannot write (root runs it without CAP_DAC_OVERRIDE,
    util-linux's setpriv, so modes bind as they do for anyone else)."""
    for p in [run_dir, *run_dir.rglob("*")]:
        p.chmod(0o555 if p.is_dir() else 0o444)
    before = _tree(run_dir)
    drop = ["setpriv", "--bounding-set", "-dac_override", "--"] if os.geteuid() == 0 else []

    def nandlab(*args: str) -> subprocess.CompletedProcess[str]:
        command = [*drop, sys.executable, "-c", "from nandlab.cli.main import main; main()"]
        return subprocess.run([*command, *args], capture_output=True, text=True)

    try:
        for command in ("export", "report"):
            refused = nandlab(command, str(run_dir))
            assert refused.returncode == 2, refused.stderr
            assert f"run folder {run_dir} is read-only: give --out" in refused.stderr
        assert nandlab("export", str(run_dir), "--out", str(tmp_path / "x.h5"),
                       "--format", "hdf5").returncode == 0
        assert nandlab("report", str(run_dir), "--out", str(tmp_path / "r")).returncode == 0
        after = _tree(run_dir)
    finally:
        for p in [run_dir, *run_dir.rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)
    assert after == before
    assert read_export(tmp_path / "x.h5").num_rows == _stored_rows(run_dir)
    assert (tmp_path / "r" / "report.md").exists()


@pytest.mark.parametrize("shm", ["kept", "lost"])
def test_read_only_killed_run_keeps_the_rows_of_its_wal(
    run_dir: Path, tmp_path: Path, shm: str
) -> None:
    """A run archived read-only after a kill: committed rows still in run.sqlite-wal are read
    (beside it; without its -shm, which SQLite would have to create, from a private copy)."""
    writer = RunStore(run_dir)
    try:
        writer.commit_unit(99, "extra", 1, [{"operation": "read", "latency_us": 5.0}],
                           checkpoint=None, chip_time_ns=0, wall_s=0.0)
        rows = len(writer.rows())
        killed = tmp_path / "killed"
        shutil.copytree(run_dir, killed)  # what a kill -9 leaves: -wal and -shm beside it
    finally:
        writer.close()
    _set_meta(killed, status="running", dataset=None)
    assert (killed / "run.sqlite-wal").stat().st_size > 0
    if shm == "lost":
        (killed / "run.sqlite-shm").unlink()
    for p in [killed, *killed.rglob("*")]:
        p.chmod(0o555 if p.is_dir() else 0o444)
    drop = ["setpriv", "--bounding-set", "-dac_override", "--"] if os.geteuid() == 0 else []
    before = _tree(killed)
    try:
        done = subprocess.run(
            [*drop, sys.executable, "-c", "from nandlab.cli.main import main; main()",
             "export", str(killed), "--partial", "--out", str(tmp_path / "k.parquet")],
            capture_output=True, text=True,
        )
        after = _tree(killed)
    finally:
        for p in [killed, *killed.rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)
    assert done.returncode == 0, done.stderr
    assert "partial" in done.stdout
    assert pq.read_table(tmp_path / "k.parquet").num_rows == rows
    assert after == before
