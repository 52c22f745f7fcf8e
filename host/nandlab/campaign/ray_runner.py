"""Run a campaign's units on a Ray cluster: the chips in shards, one worker each.

    result = start_run("c.yaml", "runs/", run_units=RayUnits(address=None, workers=2))

The head prepares the run as `runner` does (checks, blocks, run.json, the initial die
checkpoint), then splits the campaign's chip enables round robin into shards and
starts one `ray_worker.ShardWorker` per shard, each with its own bench (a virtual
bench: a copy of the initial die image; a real one: the board, on the host the
placement file names). The head alone writes the run store and the ledger: each unit
a worker reports is committed with its rows, ledger events and the worker's die
checkpoint files, kept in `<run>/die/s<shard>/`. A worker that dies (its process
killed, its host lost) is started again from its shard's last committed checkpoint and
runs on from there; no row is lost or stored twice, and a seeded run gives the rows of
the same run in one process (each die sees the same operations in the same order).
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nandlab.campaign.bench_session import CHECKPOINTS, BenchSession
from nandlab.campaign.chip_history import book_unit, book_wear_taken
from nandlab.campaign.placement import Placement
from nandlab.campaign.ray_reaper import Reaper
from nandlab.campaign.ray_worker import ShardSpec, ShardUnit, ShardWorker
from nandlab.campaign.runlog import log
from nandlab.campaign.runner import RunResult, RunStopped, StepProgress, write_meta
from nandlab.campaign.steps.base import Outcome
from nandlab.campaign.stops import reason, signal_of, wind_down
from nandlab.campaign.sweep import Plan
from nandlab.campaign.unit import Unit
from nandlab.characterize.progress import ProgressFn
from nandlab.dataset.parts import PartWriter, drop_parts
from nandlab.dataset.sqlite import utc_now
from nandlab.dataset.store import RunStore, finish_dataset
from nandlab.errors import Interrupted, UsageError
from nandlab.ledger import Ledger
from nandlab.onfi.bbt import BadBlockTable
from nandlab.paths import file_mode
from nandlab.transport.image import image_files, sync_folder

RESTARTS = 3
"""Times a shard's worker is started again after dying before the run stops."""
AHEAD = 2
"""Units asked of each worker at a time: it runs the next while the head commits the last
(one at a time, a worker waited for each report's round trip through the head)."""


class _Pool:
    """A shard's die checkpoints on the head: the files of the last committed one and of
    the last one reported (the worker sends only files the head does not hold yet).

    Files no checkpoint needs any more are removed by a thread of their own: removing a
    block's cells took ~16 ms a unit on the head's critical path. A name is written again
    only once its removal is done."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.committed: tuple[str, set[str]] | None = None
        self.reported: tuple[str, set[str]] | None = None
        self._remover = ThreadPoolExecutor(max_workers=1)
        self._removing: list[Future[None]] = []
        self._doomed: set[str] = set()

    def settle(self, names: set[str] | None = None) -> None:
        """Wait for the removals still running (only if one concerns `names`)."""
        if names is None or names & self._doomed:
            for f in self._removing:
                f.result()
            self._removing.clear()
            self._doomed.clear()

    def close(self) -> None:
        self.settle()
        self._remover.shutdown()

    def add(self, report: ShardUnit) -> None:
        assert report.tag is not None
        files = report.files | {f"manifest.{report.tag}.json": report.manifest}
        self.settle(set(files))
        write_durable(self.root, files)
        names = {n for n, _ in image_files(json.loads(report.manifest))}
        self._drop(self.reported, keep=[self.committed, (report.tag, names)])
        self.reported = (report.tag, names)

    def commit(self) -> None:
        self._drop(self.committed, keep=[self.reported])
        self.committed = self.reported

    def _drop(self, old: tuple[str, set[str]] | None, keep: list[Any]) -> None:
        if old is None or any(k is not None and k[0] == old[0] for k in keep):
            return
        held = set().union(*(k[1] for k in keep if k is not None))
        doomed = {f"manifest.{old[0]}.json"} | (old[1] - held)
        self._doomed |= doomed
        self._removing.append(
            self._remover.submit(_remove, [self.root / name for name in doomed]))

    def hold(self, tag: str, files: dict[str, bytes]) -> None:
        """Start from checkpoint `tag` (its manifest and files, by name)."""
        self.settle()
        write_durable(self.root, files)
        names = set(files) - {f"manifest.{tag}.json"}
        self.committed = self.reported = (tag, names)

    def files(self, tag: str) -> dict[str, bytes]:
        self.settle()
        manifest = (self.root / f"manifest.{tag}.json").read_bytes()
        names = {n for n, _ in image_files(json.loads(manifest))}
        self.committed = self.reported = (tag, names)
        return {f"manifest.{tag}.json": manifest} | {
            n: (self.root / n).read_bytes() for n in names
        }


def _remove(paths: list[Path]) -> None:
    for path in paths:
        path.unlink(missing_ok=True)


def write_durable(folder: Path, files: dict[str, bytes]) -> None:
    """Write `files` (name -> content) into `folder`, each through a temporary file, and make
    them all durable before returning. The fsyncs run at once: the file system commits them
    together, where one after the other each waited for its own commit (~10 ms each on
    this machine's disk; a unit's checkpoint is a few files, and the head commits the
    units of every worker)."""
    temps: list[tuple[Path, Path, int]] = []
    try:
        for name, doc in files.items():
            tmp = folder / f".{name}.tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, file_mode())
            temps.append((tmp, folder / name, fd))
            _write_all(fd, doc)
        with ThreadPoolExecutor(max_workers=min(8, max(1, len(temps)))) as pool:
            list(pool.map(os.fsync, [fd for _, _, fd in temps]))
    finally:
        for _, _, fd in temps:
            os.close(fd)
    for tmp, final, _ in temps:
        os.replace(tmp, final)
    sync_folder(folder)  # the names are durable before a commit names the checkpoint


def _write_all(fd: int, doc: bytes) -> None:
    """os.write until all of `doc` is written (one call writes at most ~2 GiB)."""
    view = memoryview(doc)
    while view:
        view = view[os.write(fd, view):]


@dataclass
class RayUnits:
    """Runs a prepared run's units on Ray (`runner.start_run(run_units=...)`).

    address: a cluster to join (None: a local one with `workers` CPUs); workers: shards
    (default: one per CPU of the cluster, at most one per chip); placement: which host
    holds which board; kill_after / fail_after: test aids, the first worker kills itself
    (SIGKILL) as its n-th unit starts / the last one loses its bench's link in its n-th
    unit, after `fail_programs` of its op programs."""

    address: str | None = None
    workers: int | None = None
    placement: Placement | None = None
    kill_after: int | None = None
    fail_after: int | None = None
    fail_programs: int = 0

    def __call__(
        self,
        session: BenchSession,
        plan: Plan,
        ctx: object,
        meta: dict[str, Any],
        run_dir: Path,
        ledger: Ledger,
        ids: dict[int, str],
        progress: StepProgress | None,
        unit_progress: ProgressFn,
    ) -> RunResult:
        import ray  # the scale extra: loaded only by a run on a cluster

        session.close_bench()
        started = not ray.is_initialized()
        reaper = None
        if started:
            if self.address is None and sys.platform == "linux":
                reaper = Reaper.start()  # a head killed by SIGKILL leaves no Ray process
            ray.init(
                address=self.address,
                num_cpus=None if self.address else (self.workers or os.cpu_count()),
                include_dashboard=False,
                log_to_driver=False,
            )
        try:
            return _Head(self, ray, session, plan, meta, run_dir, ledger, ids, progress).run()
        finally:
            if started:
                ray.shutdown()
            if reaper is not None:
                reaper.stop()


class _Head:
    def __init__(self, opts: RayUnits, ray: Any, session: BenchSession, plan: Plan,
                 meta: dict[str, Any], run_dir: Path, ledger: Ledger, ids: dict[int, str],
                 progress: StepProgress | None) -> None:
        self.opts, self.ray, self.session, self.plan = opts, ray, session, plan
        self.meta, self.run_dir, self.ledger, self.ids = meta, run_dir, ledger, ids
        self.progress = progress
        ces = [int(ch["ce"]) for ch in meta["chips"]]
        n = opts.workers or int(ray.cluster_resources().get("CPU", 1))
        # a real board is one bus: one worker; a resumed run keeps its shards
        n = max(1, min(n, len(ces))) if meta["bench_url"].startswith("sim:") else 1
        self.shards = meta.get("ray", {}).get("shards") or [ces[k::n] for k in range(n)]
        n = len(self.shards)
        meta["ray"] = {"shards": self.shards, "address": opts.address}
        write_meta(run_dir, meta)
        self.pools = [_Pool(run_dir / CHECKPOINTS / f"s{k}") for k in range(n)]
        self.remote = ray.remote(num_cpus=1, max_restarts=0)(ShardWorker)
        self.node_refs: list[Any] = [None] * n
        self.folder_refs: list[Any] = [None] * n

    def _spec(self, k: int, after: int, tag: str | None, kill: bool) -> ShardSpec:
        init = self.run_dir / CHECKPOINTS
        if tag is None:  # the run's initial checkpoint
            start = self.meta.get("initial_checkpoint")
            files = {}
            if start is not None:
                manifest = (init / f"manifest.{start}.json").read_bytes()
                files = {f"manifest.{start}.json": manifest} | {
                    n: (init / n).read_bytes()
                    for n, _ in image_files(json.loads(manifest))
                }
                self.pools[k].hold(start, files)  # the worker sends only what it changes
            tag = start
        else:
            files = self.pools[k].files(tag)
        bbt = {}
        for ce in self.shards[k]:
            path = BadBlockTable.for_chip(self.ids[ce]).path
            if path is not None and path.is_file():
                bbt[self.ids[ce]] = path.read_bytes()
        last = k == len(self.shards) - 1 and self.folder_refs[k] is None
        return ShardSpec(k, self.meta["bench_url"], self.shards[k], self.meta, after, tag,
                         files, bbt, self.opts.kill_after if kill else None,
                         self.opts.fail_after if last else None, self.opts.fail_programs)

    def _start(self, k: int, after: int, tag: str | None, kill: bool) -> Any:
        options: dict[str, Any] = {}
        if self.opts.placement is not None:
            options = self.opts.placement.actor_options(self.meta["bench_url"])
        spec = self._spec(k, after, tag, kill)
        if self.folder_refs[k] is not None:  # a worker of this shard died
            try:
                spec.stale = self.ray.get(self.folder_refs[k])
            except self.ray.exceptions.RayError:  # it died before it made one
                spec.stale = None
        worker = self.remote.options(**options).remote(spec)
        self.node_refs[k] = worker.node.remote()  # where the shard runs now
        self.folder_refs[k] = worker.folder.remote()
        return worker

    def run(self) -> RunResult:
        store = RunStore(self.run_dir)
        parts = PartWriter(self.run_dir, store)
        done = store.done()
        committed = set(done)
        after = [-1] * len(self.shards)
        tags: list[str | None] = [None] * len(self.shards)
        for was in done.values():
            k = _shard_of(was.checkpoint)
            if k is not None and was.idx > after[k]:
                after[k], tags[k] = was.idx, was.checkpoint
        t0, cpu0 = time.perf_counter(), time.process_time()
        workers = [self._start(k, after[k], tags[k], k == 0) for k in range(len(self.shards))]
        # each worker's calls in the order asked: its reports must be committed in order
        calls = [deque(w.next.remote() for _ in range(AHEAD)) for w in workers]
        restarts = [0] * len(workers)
        units_wall = [0.0] * len(workers)
        commit_s = 0.0
        step_done: dict[int, int] = {}
        for unit in self.plan.units:
            if unit.key in committed:
                step_done[unit.step] = step_done.get(unit.step, 0) + 1
        ran = 0
        units = {u.index: u for u in self.plan.units}
        current: str | None = None
        try:
            while any(calls):
                firsts = {q[0]: k for k, q in enumerate(calls) if q}
                (ref,), _ = self.ray.wait(list(firsts), num_returns=1)
                k = firsts[ref]
                calls[k].popleft()
                try:
                    report = self.ray.get(ref)
                except self.ray.exceptions.RayActorError as exc:
                    restarts[k] += 1
                    if restarts[k] > RESTARTS:
                        raise RunStopped(
                            f"shard {k}'s worker died {restarts[k]} times ({exc}); "
                            f"'nandlab resume {self.run_dir} --ray' continues",
                            self.run_dir, None) from exc
                    log.warning("shard %d's worker died: started again from its last "
                                "committed checkpoint", k)
                    self.meta["ray"]["restarts"] = sum(restarts)
                    workers[k] = self._start(k, after[k], tags[k], False)
                    # the dead worker's other call fails too
                    calls[k] = deque(workers[k].next.remote() for _ in range(AHEAD))
                    continue
                if report is None:
                    continue
                unit = units[report.index]
                current = unit.key
                if report.error is not None:
                    book_stopped(self.ledger, self.meta, unit, report)
                    raise report.error
                calls[k].append(workers[k].next.remote())
                c0 = time.perf_counter()
                units_wall[k] += report.wall_s
                after[k], tags[k] = report.index, report.tag
                if report.tag is not None:
                    self.pools[k].add(report)
                if unit.key in committed:  # a bench-wide unit another shard committed first
                    continue
                book_unit(self.ledger, unit, Outcome(report.rows, report.ledger),
                          self.ids, str(self.meta["run_id"]))
                store.commit_unit(unit.index, unit.key, unit.seed, report.rows,
                                  checkpoint=report.tag, chip_time_ns=report.chip_time_ns,
                                  wall_s=report.wall_s)
                if report.tag is not None:
                    self.pools[k].commit()
                committed.add(unit.key)
                parts.committed(len(report.rows))
                commit_s += time.perf_counter() - c0
                ran += 1
                step_done[unit.step] = step_done.get(unit.step, 0) + 1
                if self.progress is not None:
                    self.progress(self.plan.step_label(unit.step), step_done[unit.step],
                                  self.plan.step_units[unit.step], unit.step)
        except BaseException as exc:
            self._discard(workers)
            raise self._stopped(exc, store, parts, current) from exc
        # the shards' part of the wall time: from starting the workers to the last commit,
        # the workers' time in their units (checkpoints included) and the head's in its
        # commits, and the CPU time the workers (last incarnations) and the head used in it
        self.meta["ray"]["shards_wall_s"] = time.perf_counter() - t0
        self.meta["ray"]["units_wall_s"] = units_wall
        self.meta["ray"]["head_commit_s"] = commit_s
        self.meta["ray"]["workers_cpu_s"] = self.ray.get([w.cpu_s.remote() for w in workers])
        self.meta["ray"]["head_cpu_s"] = time.process_time() - cpu0
        return self._finish(store, ran)

    def _discard(self, workers: list[Any]) -> None:
        """Let the workers still alive remove their folders (best effort: a resume starts
        every shard again from the head's checkpoints)."""
        refs = [w.discard.remote() for w in workers]
        try:
            self.ray.wait(refs, num_returns=len(refs), timeout=30)
        except self.ray.exceptions.RayError:  # a stop must not fail on the clean-up
            log.warning("workers did not clean up their folders")

    def _stopped(self, exc: BaseException, store: RunStore, parts: PartWriter,
                 current: str | None) -> BaseException:
        """Record the stop, close everything; the error to raise (a unit's own error, not
        Ray's wrapping of it)."""
        if isinstance(exc, self.ray.exceptions.RayTaskError) and exc.cause is not None:
            exc = exc.cause
        status = "interrupted" if isinstance(exc, KeyboardInterrupt) else "stopped"
        why = reason(exc, self.run_dir)
        self.meta.update(status=status, failed_unit=current, error=why, stop_utc=utc_now())
        wind_down(
            lambda: write_meta(self.run_dir, self.meta),
            *(pool.close for pool in self.pools),
            parts.flush,
            store.close,
            self.session.close,
            *(functools.partial(self.ledger.run_finished, uid, str(self.meta["run_id"]), status)
              for uid in self.ids.values()),
            self.ledger.close,
        )
        if isinstance(exc, UsageError):
            return exc
        message = (
            f"run stopped: {why}. Rows of every unit committed are kept; "
            f"'nandlab resume {self.run_dir}' goes on from there"
        )
        if current is not None:
            message = (
                f"run stopped at unit {current}: {why}. Rows of every unit committed are "
                f"kept; 'nandlab resume {self.run_dir}' retries {current}"
            )
        if isinstance(exc, KeyboardInterrupt):
            return Interrupted(signal_of(exc), message)
        return RunStopped(message, self.run_dir, current)

    def _finish(self, store: RunStore, ran: int) -> RunResult:
        self.meta["ray"]["nodes"] = self.ray.get(self.node_refs)
        for pool in self.pools:
            pool.close()
        self.session.close()
        n, chip_ns, wall = store.totals()
        store.close()
        dataset = finish_dataset(self.run_dir)
        self.session.prune(None)
        self.meta.update(status="complete", dataset=dataset, stop_utc=utc_now(),
                         failed_unit=None, error=None, chip_time_s=chip_ns / 1e9,
                         wall_s_units=wall)
        write_meta(self.run_dir, self.meta)
        drop_parts(self.run_dir)
        for uid in self.ids.values():
            self.ledger.run_finished(uid, str(self.meta["run_id"]), "complete")
        self.ledger.close()
        return RunResult(self.run_dir, "complete", len(self.plan.units), ran, chip_ns, wall)


def book_stopped(ledger: Ledger, meta: dict[str, Any], unit: Unit, report: ShardUnit) -> None:
    """Book what a unit stopped half-way in a worker did, as a run in one process does: its
    chips' wear and, for a status FAIL, the bad block (`meta`: the run's run.json)."""
    run_id = str(meta["run_id"])
    if report.bad is not None:
        ledger.mark_bad(*report.bad, run_id)
    book_wear_taken(ledger, report.wear, run_id, unit.key, meta["bench_url"].startswith("sim:"))


def _shard_of(tag: str | None) -> int | None:
    if tag is None or not tag.startswith("s") or ".u" not in tag:
        return None
    return int(tag[1 : tag.index(".u")])
