"""Campaigns on Ray: scaling on this machine, and sharding with fail-over on 4 nodes.

1. Efficiency: the same 4-chip campaign (virtual dies, units of real chip operations)
   on a local Ray cluster with 1 worker, then with 2 workers; efficiency = throughput
   of 2 workers / (2 x throughput of 1 worker) = time(1) / (2 x time(2)), with time
   from starting the workers (handing them the die image) to the last unit's commit
   on the head; also printed for the whole run (checks, initial checkpoint and
   dataset, the same in both, included). Ray is started once beforehand. On a
   2-core machine the head's commits share the cores with the workers, and so does
   whatever else runs there (the load average is printed). Goal >= 0.8.
2. Four simulated nodes on this machine (`ray.cluster_utils.Cluster`, one CPU each):
   the campaign's 4 chips in 4 shards, one per node, the first worker killed (SIGKILL)
   in its 3rd unit; the run must finish with the rows of the same campaign in one
   process (correctness, not speed).

    .venv/bin/python bench/ray_scale.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

CAMPAIGN = """\
name: ray-bench
bench: sim://mlc-64l?seed=61&dies=4
fresh: true
seed: 2
chips: [0, 1, 2, 3]
blocks: [{blocks}]
steps:
  - cycle: {{pec: 1000}}
  - program: {{wls: 0-3, pattern: random}}
  - measure: {{what: [rber], repeats: {{sweep: [1, 2, 3]}}}}
  - bake: {{retention: 1y@30C}}
  - measure: {{what: [rber, vth], vth_wl: 0}}
"""


MEASURED = (
    "unit", "chip", "block", "wl", "page", "page_type", "pec", "operation", "offsets",
    "offset_mV", "state", "vth_mV", "cells", "bits", "errors_0to1", "errors_1to0",
    "latency_us", "energy_uJ", "retention_age_h",
)
"""What was measured and where (bookkeeping columns such as times differ run to run)."""


def _rows(run_dir: Path) -> list[dict[str, object]]:
    import pyarrow.parquet as pq

    table = pq.read_table(run_dir / "measurements.parquet")
    return table.select([c for c in MEASURED if c in table.column_names]).to_pylist()


def _run(tmp: Path, name: str, blocks: str, units: object | None) -> tuple[float, Path]:
    from nandlab.campaign.runner import start_run

    os.environ["NANDLAB_DATA_DIR"] = str(tmp / f"data-{name}")
    path = tmp / f"{name}.yaml"
    path.write_text(CAMPAIGN.format(blocks=blocks))
    t0 = time.perf_counter()
    result = start_run(path, tmp / "runs", run_id=name, run_units=units)  # type: ignore[arg-type]
    return time.perf_counter() - t0, result.run_dir


def _shards_wall(run_dir: Path) -> float:
    import json

    return float(json.loads((run_dir / "run.json").read_text())["ray"]["shards_wall_s"])


def efficiency(tmp: Path) -> None:
    import json

    import ray
    from nandlab.campaign.ray_runner import RayUnits

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        blocks = "300, 301, 302, 303, 304, 305"
        wall1, one = _run(tmp, "w1", blocks, RayUnits(workers=1))
        wall2, two = _run(tmp, "w2", blocks, RayUnits(workers=2))
    finally:
        ray.shutdown()
    shards1, shards2 = _shards_wall(one), _shards_wall(two)
    print(f"# 4 chips x 6 blocks: 1 worker {wall1:.1f} s, 2 workers {wall2:.1f} s wall; "
          f"from starting the workers to the last commit {shards1:.1f} s / {shards2:.1f} s; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"ray_rows_equal_1_vs_2_workers: {_rows(one) == _rows(two)}")
    print(f"ray_efficiency_2_workers_whole_run: {wall1 / (2 * wall2):.2f}")
    print(f"ray_efficiency_2_workers: {shards1 / (2 * shards2):.2f}")
    cpu = [sum(json.loads((r / "run.json").read_text())["ray"]["workers_cpu_s"])
           for r in (one, two)]
    # the work itself: a 2-worker run should use the CPU of one worker's run, so its
    # throughput on 2 otherwise idle cores is this much of twice one worker's
    print(f"ray_cpu_efficiency_2_workers: {cpu[0] / cpu[1]:.2f}")
    for name, run in (("1 worker", one), ("2 workers", two)):
        meta = json.loads((run / "run.json").read_text())["ray"]
        print(f"# {name}: CPU s of the workers {sum(meta['workers_cpu_s']):.1f} "
              f"({', '.join(f'{c:.1f}' for c in meta['workers_cpu_s'])}), "
              f"of the head {meta['head_cpu_s']:.1f}")
        # where each worker's wall time went: its units (checkpoints included), the rest
        # (start-up: imports, numba's cached kernels, the die image; waiting for the head)
        print(f"#   wall s: shards {meta['shards_wall_s']:.1f}, in units per worker "
              f"{', '.join(f'{w:.1f}' for w in meta['units_wall_s'])}, "
              f"head committing {meta['head_commit_s']:.1f}")


def four_nodes(tmp: Path) -> None:
    import json

    import ray
    from nandlab.campaign.ray_runner import RayUnits
    from ray.cluster_utils import Cluster

    blocks = "300, 301"
    _, single = _run(tmp, "single", blocks, None)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    for _ in range(3):
        cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, log_to_driver=False)
    try:
        cluster.wait_for_nodes()
        _, sharded = _run(tmp, "nodes4", blocks, RayUnits(workers=4, kill_after=3))
    finally:
        ray.shutdown()
        cluster.shutdown()
    meta = json.loads((sharded / "run.json").read_text())["ray"]
    print(f"# 4 nodes: shards {meta['shards']}, worker restarts {meta.get('restarts', 0)}")
    print(f"four_nodes_distinct_nodes: {len(set(meta['nodes']))}")
    print(f"four_nodes_rows_equal_single_process: {_rows(single) == _rows(sharded)}")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        efficiency(Path(tmp))
        four_nodes(Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
