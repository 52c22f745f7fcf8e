"""One shard of a campaign on a Ray worker: its chips' units, on a bench of its own.

The head (`campaign.ray_runner`) hands a worker a `ShardSpec`: the campaign, the chip
enables of its shard and, on a virtual bench, the die checkpoint to start from (the
files themselves, so the worker may run on another host). The worker keeps its own
data folder (die image, bad-block tables, locks) in a temporary folder it removes when
its shard is done (a killed worker's is removed by the next one, if on the same host),
runs its units in plan order and
returns each as a `ShardUnit`: rows, ledger events, times and the checkpoint files
the head does not hold yet. It writes no run store and no ledger: the head commits.

Bench-wide units (bake, wait, temperature) run in every shard, since each shard's dies
live through them; the head keeps the rows of the first shard that reports one.

A unit that stops half-way (a bench fault, a status FAIL) is reported with its error, the
wear its chips went through and, for a status FAIL, the bad block, so the head books them
as a run in one process does; the worker then runs nothing more.

The worker's folder goes on /dev/shm where there is one: the durable copy of every
checkpoint is the head's, so the worker's saves need no disk and no fsync (on a disk,
two workers' and the head's fsyncs queued behind each other: 40 ms a unit of waiting).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from nandlab.campaign.bench_session import CHECKPOINTS, BenchSession
from nandlab.campaign.runner import run_context
from nandlab.campaign.schema import parse_campaign
from nandlab.campaign.steps import apply, execute
from nandlab.campaign.sweep import expand
from nandlab.campaign.unit import Unit
from nandlab.errors import ChipStatusFail, NandlabError
from nandlab.onfi.wear import BlockCycles


@dataclass
class ShardSpec:
    """What a worker needs to run shard `shard` of a run, from `after` on."""

    shard: int
    url: str
    ces: list[int]
    meta: dict[str, Any]  # run.json
    after: int  # index of the shard's last committed unit (-1: none)
    tag: str | None  # the die checkpoint to start from (virtual benches)
    files: dict[str, bytes] = field(default_factory=dict)  # that checkpoint's files
    bbt: dict[str, bytes] = field(default_factory=dict)  # unique ID -> bbt.json
    kill_after: int | None = None  # test aid: SIGKILL itself as its n-th unit starts
    fail_after: int | None = None  # test aid: a bench fault in its n-th unit...
    fail_programs: int = 0  # ...after this many of its op programs
    stale: str | None = None  # the folder a killed worker of this shard left (any host)


@dataclass
class ShardUnit:
    """One unit run by a shard."""

    index: int
    key: str
    seed: int
    rows: list[dict[str, Any]]
    ledger: list[dict[str, Any]]
    chip_time_ns: int
    wall_s: float
    tag: str | None
    manifest: bytes = b""
    files: dict[str, bytes] = field(default_factory=dict)  # new since the last unit
    error: Exception | None = None  # the unit stopped half-way: why
    wear: dict[str, dict[int, BlockCycles]] = field(default_factory=dict)  # uid -> its wear
    bad: tuple[str, int, str] | None = None  # (uid, block, reason) of a status FAIL


def scratch() -> str | None:
    """Where workers make their folders: /dev/shm (memory) where it exists, else the
    temporary folder."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def shard_tag(shard: int, index: int) -> str:
    return f"s{shard}.u{index:05d}"


def _local_url(url: str, data: Path) -> str:
    """A sim URL whose die image lives in the worker's own folder."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "state"]
    query.append(("state", str(data)))
    return f"{parts.scheme}://{parts.netloc}{parts.path}?" + "&".join(f"{k}={v}" for k, v in query)


class ShardWorker:
    """Runs one shard's units in order; `next()` runs one and reports it (None: done)."""

    def __init__(self, spec: ShardSpec) -> None:
        self.spec = spec
        if spec.stale is not None:  # removed when this worker runs on the dead one's host
            shutil.rmtree(spec.stale, ignore_errors=True)
        self.root = Path(tempfile.mkdtemp(prefix=f"nandlab-shard{spec.shard}-", dir=scratch()))
        data = self.root / "data"
        os.environ["NANDLAB_DATA_DIR"] = str(data)  # this process is the shard's alone
        for uid, doc in spec.bbt.items():
            path = data / "chips" / uid / "bbt.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(doc)
        meta = spec.meta
        url = meta["bench_url"]
        self.virtual = url.startswith("sim:")
        run_dir = self.root / "run"
        pool = run_dir / CHECKPOINTS
        pool.mkdir(parents=True)
        for name, doc in spec.files.items():
            (pool / name).write_bytes(doc)
        self.session = BenchSession(
            _local_url(url, data) if self.virtual else url, spec.ces, run_dir
        )
        if self.virtual and spec.tag is not None:
            self.session.restore(spec.tag)
        self.session.open()
        self.shipped = set(spec.files)
        loaded = parse_campaign(meta["campaign_text"], meta["campaign_file"])
        self.plan = expand(loaded, list(meta["blocks"]))
        self.ctx = run_context(self.session, meta)
        self.ids = {int(ch["ce"]): str(ch["unique_id"]) for ch in meta["chips"]}
        self.pos = 0
        self.started = 0

    def discard(self) -> None:
        """The run stopped: close the bench (its image is saved) and remove the folder."""
        self.session.close()
        shutil.rmtree(self.root, ignore_errors=True)

    def folder(self) -> str:
        """The worker's own folder (die image, data)."""
        return str(self.root)

    def cpu_s(self) -> float:
        """CPU time this worker's process has used (s)."""
        return time.process_time()

    def node(self) -> str:
        """The Ray node this worker runs on."""
        import ray

        return str(ray.get_runtime_context().get_node_id())

    def _mine(self, unit: Unit) -> bool:
        return unit.ce is None or unit.ce in self.spec.ces

    def next(self) -> ShardUnit | None:
        """Run the shard's next unit (applying the others' to the context on the way)."""
        units = self.plan.units
        while self.pos < len(units):
            unit = units[self.pos]
            self.pos += 1
            if unit.index <= self.spec.after or not self._mine(unit):
                apply(unit, self.ctx)
                continue
            return self._run(unit)
        self.session.close()
        shutil.rmtree(self.root, ignore_errors=True)  # the head holds what it needs
        return None

    def _run(self, unit: Unit) -> ShardUnit:
        self.started += 1
        if self.spec.kill_after is not None and self.started == self.spec.kill_after:
            os.kill(os.getpid(), 9)
        bench = self.session.bench
        assert bench is not None
        if self.spec.fail_after is not None and self.started == self.spec.fail_after:
            bench.faults.inject("link_lost", after_programs=self.spec.fail_programs)
        clock0, wall0 = bench.chip_time_ns(), time.perf_counter()
        chip = self.session.chips.get(unit.ce) if unit.ce is not None else None
        chip_id = self.ids[unit.ce] if unit.ce is not None else ",".join(self.ids.values())
        try:
            outcome = execute(unit, self.ctx, bench, chip, chip_id)
        except (NandlabError, OSError) as exc:
            return self._stopped(unit, chip_id, exc, time.perf_counter() - wall0)
        chip_ns = bench.chip_time_ns() - clock0
        apply(unit, self.ctx)
        tag = self.session.checkpoint(shard_tag(self.spec.shard, unit.index))
        report = ShardUnit(
            unit.index, unit.key, unit.seed, outcome.rows, outcome.ledger, chip_ns,
            time.perf_counter() - wall0, tag,
        )
        if tag is not None:
            pool = self.root / "run" / CHECKPOINTS
            report.manifest = (pool / f"manifest.{tag}.json").read_bytes()
            names = self.session.checkpoint_files(tag)
            report.files = {n: (pool / n).read_bytes() for n in sorted(names - self.shipped)}
            self.shipped = names
            self.session.prune(tag)
        return report

    def _stopped(self, unit: Unit, chip_id: str, exc: Exception, wall_s: float) -> ShardUnit:
        """Report a unit stopped half-way; the shard runs nothing more."""
        self.pos = len(self.plan.units)
        wear = {self.ids[ce]: chip.wear.take() for ce, chip in self.session.chips.items()}
        bad = None
        if isinstance(exc, ChipStatusFail) and unit.block is not None:
            bad = (chip_id, unit.block, f"status FAIL: {exc}")
        return ShardUnit(unit.index, unit.key, unit.seed, [], [], 0, wall_s, None,
                         error=exc, wear=wear, bad=bad)
