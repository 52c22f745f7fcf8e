"""Campaign speed on virtual chips: simulated chip time over wall time, one core.

For each campaign in characterization/campaigns/, runs it from scratch in a
temporary data folder and prints `name: value` with value = chip time /
wall time of the whole run (bench opening, die checkpoints, commits
included). Chip time is the die clock's advance: bus cycles and busy times
of every operation, and for fast-forwarded P/E cycling the time those cycles
take on the chip (the die clock advances by it); oven and wait hours are not
counted. The chip time of the operations run one by one (fast-forward
excluded) is printed on a comment line beside it. Higher is better, goal >= 10.

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
    return 0


if __name__ == "__main__":
    sys.exit(main())
