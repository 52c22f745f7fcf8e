"""Firmware overhead of on-board P/E cycling, from simulated time (not asserted).

Runs the firmware-in-the-loop harness (firmware/sim: the cross-built ELF on
PicoRV32 beside nandlab_core, a virtual slc-tb-tiny die on the pins, Icarus)
and prints, per P/E cycle of its on-board loop (2 pages erased, programmed and
verified per cycle):

- fw_pe_cycle_us: the loop's simulated time per cycle (CPU, bus and die);
- fw_pe_busy_us: the die's busy time per cycle (R/B# low);
- fw_pe_not_busy_pct: the rest over the busy time, in percent: firmware
  overhead plus the bus transfers of the pages (SDR mode 0). The test die's busy
  times are microseconds, so this is far above what a real part (tBERS in ms)
  shows; the absolute figure, fw_pe_not_busy_us, is the one to carry over.
- fw_pe_host_commands: mailbox commands the host posted for the whole loop
  (RUN_LOOP itself; the ring is read while it runs).

Run: .venv/bin/python bench/firmware_overhead.py (about 100 s).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--basetemp={tmp}",
             str(REPO / "firmware" / "sim" / "test_fw_soc.py")],
            check=False, capture_output=True, text=True)
        logs = list(Path(tmp).rglob("sim.log"))
        text = logs[0].read_text() if logs else ""
    if run.returncode != 0 or not text:
        print(run.stdout[-2000:], file=sys.stderr)
        return 1
    values = {k: int(v) for k, v in re.findall(r"(fw_pe_\w+): (\d+)", text)}
    cycles = values["fw_pe_cycles"]
    loop, busy = values["fw_pe_loop_ns"] / cycles, values["fw_pe_busy_ns"] / cycles
    print(f"fw_pe_cycle_us: {loop / 1000:.1f}")
    print(f"fw_pe_busy_us: {busy / 1000:.1f}")
    print(f"fw_pe_not_busy_us: {(loop - busy) / 1000:.1f}")
    print(f"fw_pe_not_busy_pct: {100 * (loop - busy) / busy:.0f}")
    print(f"fw_pe_host_commands: {values['fw_pe_host_commands']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
