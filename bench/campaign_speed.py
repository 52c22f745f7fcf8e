"""Campaign speed on virtual chips: simulated chip time over wall time, one core.

For each campaign in characterization/campaigns/, runs it from scratch in a
temporary data folder and prints `name: value` with value = chip time /
wall time of the whole run (bench opening, die checkpoints, commits
included). Chip time is what a real bench would spend: the virtual clock
(bus cycles and busy times), oven and wait time, and for fast-forwarded
P/E cycles the measured erase time plus tPROG (parameter page) per page.
Higher is better, goal >= 10.

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
        ratio = result.chip_time_ns / 1e9 / wall
        worst = min(worst, ratio)
        print(f"{path.stem}: {ratio:.1f}")
        print(
            f"# {path.stem}: chip time {result.chip_time_ns / 1e9:.4g} s, wall {wall:.2f} s, "
            f"{result.units} units"
        )
    print(f"worst: {worst:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
