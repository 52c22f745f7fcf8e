"""The full Flash-Cosmos characterization on virtual chips, run scaled, extrapolated.

Full scale (issue 16 item 7): 160 chips x 120 blocks, every one of a block's 192 WLs
programmed with random data (SLC with ESP, as Flash-Cosmos stores operands), read back,
and MWS-sensed across the paper's conditions. This script runs the same work on a
few blocks of one virtual tlc-48l die, as a campaign through the public API (`nandlab
run`'s runner, sim transport, die checkpoints and commits included), and extrapolates:

    per block      = wall time of the scaled run's units / blocks run
    full scale     = per block x 160 x 120 / (cores x Ray efficiency)

and the same from the CPU time of the whole scaled run (this process), which is what
the work costs when other jobs share the machine's cores.

Per block the campaign runs: 1 erase; ESP programming of all 192 WLs; a read of every
WL with bit-error counts (`measure: rber`); and the MWS conditions of Sec. 5.2: AND
and NAND over 2, 8, 16, 32 and 48 operand WLs of one string, each once (10 MWS
sensings). Only operations actually run count: no P/E cycling is fast-forwarded, no
bake is simulated (they take no CPU on a virtual die and would only flatter the
ratio). The wall time of a unit includes its die checkpoint and its commit.

    .venv/bin/python bench/moonshot.py [BLOCKS] [RAY_EFFICIENCY]

RAY_EFFICIENCY (default 1.0: perfect scaling over the cores) is what
bench/ray_scale.py measures on this machine.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CHIPS, BLOCKS_PER_CHIP, WLS = 160, 120, 192

CAMPAIGN = """\
name: moonshot
bench: sim://tlc-48l?seed=70
fresh: true
allow_test_mode: true
seed: 7
blocks: {{random: {{count: {blocks}, from: 10, to: 1000, seed: 4}}}}
steps:
  - erase: {{}}
  - esp_program: {{wls: 0-191, pattern: random, verify_raise_mV: 1000, allow_test_mode: true}}
  - measure: {{what: [rber], wls: 0-191}}
  - mws_ops: {{ops: [AND, NAND], operands: [2, 8, 16, 32, 48], bits: {bits},
               allow_test_mode: true}}
"""


def cpu_by_step() -> dict[str, float]:
    """Count the CPU time of each unit's operations (the step's `execute`, checkpoint and
    commit left out) by step, in the runner of this process."""
    from nandlab.campaign import runner

    spent: dict[str, float] = {}
    execute = runner.execute

    def timed(unit: Any, *args: Any, **kwargs: Any) -> Any:
        c0 = time.process_time()
        try:
            return execute(unit, *args, **kwargs)
        finally:
            step = unit.key.split("/", 1)[0]
            spent[step] = spent.get(step, 0.0) + time.process_time() - c0

    runner.execute = timed  # type: ignore[assignment]
    return spent


def main() -> int:
    from nandlab.campaign.runner import start_run

    blocks = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    efficiency = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    cores = os.cpu_count() or 1
    page_bits = 16384 * 8
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["NANDLAB_DATA_DIR"] = str(Path(tmp) / "data")
        path = Path(tmp) / "moonshot.yaml"
        # bits: one pass over the 5 operand counts per operation
        path.write_text(CAMPAIGN.format(blocks=blocks, bits=5 * page_bits))
        spent = cpu_by_step()
        t0, cpu0 = time.perf_counter(), time.process_time()
        result = start_run(path, Path(tmp) / "runs")
        total, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        db = sqlite3.connect(result.run_dir / "run.sqlite")
        per_step = db.execute(
            "SELECT substr(key, 1, instr(key, '/') - 1), SUM(wall_s), SUM(chip_time_ns), COUNT(*)"
            " FROM units GROUP BY 1 ORDER BY 1"
        ).fetchall()
        sensings = db.execute(
            "SELECT SUM(json_extract(data, '$.sensings')) FROM rows "
            "WHERE json_extract(data, '$.operation') LIKE 'mws%'"
        ).fetchone()[0]
        db.close()
    units_wall = sum(w for _, w, _, _ in per_step)
    chip_s = sum(c for _, _, c, _ in per_step) / 1e9
    print(f"# scaled run: 1 tlc-48l die, {blocks} blocks x {WLS} WLs; wall {total:.1f} s "
          f"(units {units_wall:.1f} s, the rest opening the bench and finishing the dataset)")
    for step, wall, chip_ns, n in per_step:
        print(f"#   {step}: {n} units, wall {wall:.2f} s, CPU of its operations "
              f"{spent.get(step, 0.0):.2f} s, chip time {chip_ns / 1e9:.3f} s")
    print(f"#   CPU outside the operations (checkpoints, commits, bench, dataset): "
          f"{cpu - sum(spent.values()):.2f} s")
    print(f"# MWS sensings run: {sensings}; chip time / wall of the units: "
          f"{chip_s / units_wall:.3f}")
    per_block = units_wall / blocks
    full_blocks = CHIPS * BLOCKS_PER_CHIP
    hours = per_block * full_blocks / (cores * efficiency) / 3600
    print(f"# method: per block {per_block:.2f} s (units' wall incl. checkpoints and commits) "
          f"x {CHIPS} x {BLOCKS_PER_CHIP} blocks / ({cores} cores x Ray efficiency "
          f"{efficiency:.2f}); bench opening and dataset writing per chip not included")
    cpu_hours = cpu / blocks * full_blocks / (cores * efficiency) / 3600
    print(f"# CPU time of the scaled run {cpu:.1f} s (whole run, one process) against wall "
          f"{total:.1f} s: on a machine shared with other jobs, the CPU time is what the "
          f"work costs; load average now {os.getloadavg()[0]:.1f}")
    print(f"moonshot_per_block_s: {per_block:.2f}")
    print(f"moonshot_full_scale_hours: {hours:.1f}")
    print(f"moonshot_full_scale_hours_from_cpu_time: {cpu_hours:.1f}")
    print(f"moonshot_goal_1h_met: {min(hours, cpu_hours) <= 1.0}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
