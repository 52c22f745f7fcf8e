"""Speed of the demo campaign: simulated chip time over wall time, one run on one core.

Runs `nandlab demo --json` (the Click command itself, through click.testing.CliRunner)
into a temporary folder with a fresh virtual die, and prints the command's own figures:
simulated chip time (the die clock's advance, bus transfers at SDR mode 0 included, the
virtual bake not counted; fast-forwarded P/E cycling advances the die clock by the time
those cycles take, and is also reported apart) over wall time (opening the bench, the campaign, writing the
dataset and plots). Also prints the process wall time of the invocation (imports are
outside both).

    python bench/demo_speed.py
"""

from __future__ import annotations

import os

os.environ["NUMBA_NUM_THREADS"] = "1"
os.environ["OMP_NUM_THREADS"] = "1"

import json
import tempfile
import time

from click.testing import CliRunner
from nandlab.cli.campaign_cmds import demo


def main() -> None:
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        res = CliRunner().invoke(demo, ["--out", out, "--json"], catch_exceptions=False)
        invoke_s = time.perf_counter() - t0
        if res.exit_code != 0:
            raise SystemExit(f"nandlab demo failed (exit {res.exit_code}):\n{res.output}")
        doc = json.loads(res.output)
    print(
        f"demo_sim_over_wall: {doc['simulated_over_wall']:.2f} (higher is better, goal >= 10)"
    )
    print(f"demo_wall_s: {doc['wall_time_s']:.3f}")
    print(f"demo_sim_s: {doc['simulated_chip_time_s']:.3f}")
    print(f"demo_fast_forward_sim_s: {doc['fast_forward_chip_time_s']:.3f}")
    print(
        f"demo_operations_over_wall: {doc['operations_over_wall']:.2f} "
        "(higher is better; chip time of the operations run one by one, fast-forward excluded)"
    )
    print(f"demo_invoke_wall_s: {invoke_s:.3f}")


if __name__ == "__main__":
    main()
