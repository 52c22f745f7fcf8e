"""Firmware overhead of on-board P/E cycling, from simulated time (not asserted).

Runs the firmware-in-the-loop harness (firmware/sim: the cross-built ELF on
PicoRV32 beside nandlab_core, a virtual slc-tb-tiny die on the pins, Verilator;
Icarus counts the same clocks).
The harness counts, while the on-board P/E loop runs (2 cycles of 2 pages:
erase, program, verify), the clocks the sequencer sat idle with no op program
queued: the time the firmware costs the chip. It prints:

- fw_pe_starved_ns_per_op: those idle clocks between ops, per op (erase,
  page program or page verify);
- fw_loop_start_us: from RUN_LOOP to the first op on the sequencer (the
  firmware builds and checks its op templates once per loop);
- fw_pe_tiny_overhead_pct: idle time per cycle over the die's busy time per
  cycle, on the test die (microsecond busy times: the hardest case);
- fw_pe_<profile>_overhead_pct: the same per-op idle time over the busy time
  of a cycle of a whole block on a realistic part, tBERS + n * (tPROG + tR),
  measured on sim://<profile>, with the loop start spread over 1000 cycles;
  the firmware's work per op does not depend on the page size (the pattern
  generator and comparator move the data), and longer busy times only give
  the pipeline more slack;
- fw_pe_host_commands: mailbox commands the host posted for the whole loop.

With --profile, the CPU's clocks per firmware function during the loop.

Run: .venv/bin/python bench/firmware_overhead.py [--profile] (about 1 minute, plus the
Verilator build the first time).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from nandlab.onfi import Chip
from nandlab.transport import open_bench

REPO = Path(__file__).resolve().parents[1]
REALISTIC = "mlc-176l"
LOOP_CYCLES = 1000


def busy_per_block(profile: str) -> tuple[int, float]:
    """Pages per block and the busy time (ns) of erasing, programming and reading it all."""
    with open_bench(f"sim://{profile}?seed=1&fresh=1") as bench:
        chip = Chip(bench)
        chip.identify()
        geo = chip.geometry
        pages = geo.pages_per_block
        block = next(b for b in range(geo.blocks) if not chip.is_bad_block(b))
        busy = chip.erase_block(block).busy_ns
        data = bytes(range(256)) * (geo.total_bytes // 256 + 1)
        for p in range(pages):
            busy += chip.program_page(block, p, data[: geo.total_bytes]).busy_ns
        for p in range(pages):
            busy += chip.read_page(block, p).busy_ns
    return pages, busy


def function_clocks(profile_hex: Path, elf: Path) -> list[tuple[str, int]]:
    """Clocks per function of `elf` from the harness's per-word counts ($writememh)."""
    counts: dict[int, int] = {}
    addr = 0
    lines = profile_hex.read_text().splitlines()
    for word in (w for line in lines if not line.startswith("//") for w in line.split()):
        if word.startswith("@"):
            addr = int(word[1:], 16)
            continue
        if "x" not in word.lower() and int(word, 16):
            counts[4 * addr] = int(word, 16)
        addr += 1
    nm = subprocess.run(["riscv64-unknown-elf-nm", "-S", "--defined-only", str(elf)],
                        check=True, capture_output=True, text=True).stdout
    syms = [(int(f[0], 16), int(f[1], 16), f[3]) for f in (line.split() for line in nm.splitlines())
            if len(f) == 4 and f[2] in "tTwW"]
    per: dict[str, int] = {}
    for a, n in counts.items():
        name = next((s for lo, size, s in syms if lo <= a < lo + size), hex(a))
        per[name] = per.get(name, 0) + n
    return sorted(per.items(), key=lambda kv: -kv[1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", action="store_true", help="print clocks per firmware function")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "NANDLAB_FW_PROFILE": str(Path(tmp) / "prof.hex")}
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--basetemp={tmp}",
             str(REPO / "firmware" / "sim" / "test_fw_soc.py"), "-k", "verilator"],
            check=False, capture_output=True, text=True, env=env)
        logs = list(Path(tmp).rglob("sim.log"))
        text = logs[0].read_text() if logs else ""
        if run.returncode != 0 or not text:
            print(run.stdout[-2000:], file=sys.stderr)
            return 1
        if args.profile:
            elf = next(Path(tmp).rglob("nandlab.elf"))
            rows = function_clocks(Path(tmp) / "prof.hex", elf)
            total = sum(n for _, n in rows)
            for name, n in rows[:20]:
                print(f"  {n:8d} clocks {100 * n / total:5.1f} %  {name}")
    v = {k: int(x) for k, x in re.findall(r"(fw_pe_\w+): (\d+)", text)}
    cycles, pages = v["fw_pe_cycles"], 2
    ops = cycles * (1 + 2 * pages)
    per_op = v["fw_pe_starved_ns"] / ops
    print(f"fw_pe_starved_ns_per_op: {per_op:.0f}")
    print(f"fw_loop_start_us: {v['fw_pe_lead_ns'] / 1000:.1f}")
    tiny_busy = v["fw_pe_busy_ns"] / cycles
    print(f"fw_pe_tiny_busy_us: {tiny_busy / 1000:.1f}")
    print(f"fw_pe_tiny_overhead_pct: {100 * per_op * (1 + 2 * pages) / tiny_busy:.2f}")
    n, busy = busy_per_block(REALISTIC)
    over = per_op * (1 + 2 * n) + v["fw_pe_lead_ns"] / LOOP_CYCLES
    print(f"fw_pe_{REALISTIC}_block_busy_ms: {busy / 1e6:.1f} ({n} pages)")
    print(f"fw_pe_{REALISTIC}_overhead_pct: {100 * over / busy:.3f}")
    print(f"fw_pe_host_commands: {v['fw_pe_host_commands']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
