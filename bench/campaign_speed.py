"""Campaign speed on virtual chips: simulated chip time over wall time, one core.

For each campaign in characterization/campaigns/, runs it from scratch in a
temporary data folder and prints `name: value` with value = chip time /
wall time of the whole run (bench opening, die checkpoints, commits
included). Chip time is the die clock's advance: bus cycles and busy times
of every operation, and for fast-forwarded P/E cycling the time those cycles
take on the chip (the die clock advances by it); oven and wait hours are not
counted. The chip time of the operations run one by one (fast-forward
excluded) is printed on a comment line beside it. Higher is better, goal >= 10.

Then the cost of a unit's die checkpoint against the die's size: a campaign programs
8, then 128 blocks (2 WLs each), then reads each block once; the checkpoints after those
read units are timed (`BenchSession.checkpoint`: save of the changed blocks, links,
manifest, fsyncs, reopen). A checkpoint writes what the unit changed, so the ratio
128 / 8 blocks should stay near 1 (it grew with the die before: the whole image each
unit).

    .venv/bin/python bench/campaign_speed.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    import pyarrow.parquet as pq
    from nandlab.campaign.runner import start_run

    campaigns = sorted((ROOT / "characterization" / "campaigns").glob("*.yaml"))
    print(
        "# simulated chip time / wall time per campaign (higher is better, goal >= 10)"
    )
    worst = float("inf")
    for path in campaigns:
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["NANDLAB_DATA_DIR"] = str(Path(tmp) / "data")
            t0 = time.perf_counter()
            result = start_run(path, Path(tmp) / "runs")
            wall = time.perf_counter() - t0
            rows = pq.read_table(result.run_dir / "measurements.parquet").to_pylist()
        ff_s = sum(r.get("fast_forward_chip_s") or 0.0 for r in rows)
        ratio = result.chip_time_ns / 1e9 / wall
        worst = min(worst, ratio)
        print(f"{path.stem}: {ratio:.1f}")
        print(
            f"# {path.stem}: chip time {result.chip_time_ns / 1e9:.4g} s, wall {wall:.2f} s, "
            f"{result.units} units; operations run one by one: "
            f"{(result.chip_time_ns / 1e9 - ff_s) / wall:.2f} x wall"
        )
    print(f"worst: {worst:.1f}")
    checkpoint_cost()
    return 0


CHECKPOINT_CAMPAIGN = """\
name: checkpoint-cost
bench: sim://mlc-64l?seed=41
fresh: true
seed: 1
blocks: {{random: {{count: {count}, from: 100, to: 1000, seed: 3}}}}
steps:
  - erase: {{}}
  - program: {{wls: 0-1, pattern: random}}
  - measure: {{what: [latency], wls: [0]}}
"""


def checkpoint_cost() -> None:
    """Print the mean checkpoint time of the read units for 8 and 128 programmed blocks."""
    from nandlab.campaign import bench_session
    from nandlab.campaign.runner import start_run

    real = bench_session.BenchSession.checkpoint
    costs: list[tuple[str, float]] = []

    def timed(self: bench_session.BenchSession, tag: str) -> str | None:
        t0 = time.perf_counter()
        try:
            return real(self, tag)
        finally:
            costs.append((tag, time.perf_counter() - t0))

    bench_session.BenchSession.checkpoint = timed  # type: ignore[method-assign]
    print("# die checkpoint per unit vs die size (read units of a die holding N blocks)")
    per: dict[int, float] = {}
    for blocks in (8, 128):
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["NANDLAB_DATA_DIR"] = str(Path(tmp) / "data")
            path = Path(tmp) / "c.yaml"
            path.write_text(CHECKPOINT_CAMPAIGN.format(count=blocks))
            costs.clear()
            start_run(path, Path(tmp) / "runs")
            reads = [c for _, c in costs[1 + 2 * blocks :]]  # after init, erases, programs
            per[blocks] = sum(reads) / len(reads)
            print(f"checkpoint_ms_per_unit_{blocks}_blocks: {per[blocks] * 1e3:.2f}")
    bench_session.BenchSession.checkpoint = real  # type: ignore[method-assign]
    print(f"checkpoint_cost_ratio_128_over_8_blocks: {per[128] / per[8]:.2f}")


if __name__ == "__main__":
    sys.exit(main())
