"""Campaigns on Ray: scaling on this machine, and sharding with fail-over on 4 nodes.

1. Efficiency: the same 4-chip campaign (virtual dies, units of real chip operations)
   on a local Ray cluster with 1 worker, then with 2 workers; efficiency = throughput
   of 2 workers / (2 x throughput of 1 worker) = wall(1) / (2 x wall(2)). Ray is
   started once beforehand; each run's wall time includes starting its workers,
   handing them the die image, every unit, checkpoint and commit on the head. On a
   2-core machine the head's commits share the cores with the workers. Goal >= 0.8.
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


def efficiency(tmp: Path) -> None:
    import ray
    from nandlab.campaign.ray_runner import RayUnits

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        blocks = "300, 301, 302"
        wall1, one = _run(tmp, "w1", blocks, RayUnits(workers=1))
        wall2, two = _run(tmp, "w2", blocks, RayUnits(workers=2))
    finally:
        ray.shutdown()
    print(f"# 4 chips x 3 blocks: 1 worker {wall1:.1f} s, 2 workers {wall2:.1f} s wall")
    print(f"ray_rows_equal_1_vs_2_workers: {_rows(one) == _rows(two)}")
    print(f"ray_efficiency_2_workers: {wall1 / (2 * wall2):.2f}")


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
