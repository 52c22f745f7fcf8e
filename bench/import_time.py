"""Cold start of the console script: import time of `nandlab --help` and of
`nandlab info sim://slc-search`, as `python -X importtime` reports it.

Each command runs in a fresh interpreter `--repeats` times (in a temporary data
folder); printed per command: the best total import time (the sum of the top-level
imports' cumulative times), the whole process's best wall time and CPU time (the
CPU time, startup included, moves least when other processes share the cores),
and the heavy libraries it loaded. Bytecode is written and used as an installed
package does (PYTHONDONTWRITEBYTECODE is cleared; the first, untimed run compiles).
Goal: import under 0.3 s.

    .venv/bin/python bench/import_time.py [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

COMMANDS = {
    "nandlab --help": ["--help"],
    "nandlab info sim://slc-search": ["info", "sim://slc-search", "--fresh"],
}
HEAVY = ("numba", "pyarrow", "pandas", "duckdb", "matplotlib", "scipy", "rich", "pydantic")
GOAL_S = 0.3


def run_once(args: list[str], env: dict[str, str]) -> tuple[float, float, float, list[str]]:
    """(import seconds, process wall seconds, process CPU seconds, heavy modules loaded) of
    one run."""
    code = (
        "import sys\nfrom nandlab.cli.main import main\n"
        f"sys.argv = ['nandlab', *{args!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        f"print('HEAVY', *[m for m in {HEAVY!r} if m in sys.modules], file=sys.stderr)\n"
        "import time\nprint('CPU', time.process_time(), file=sys.stderr)"
    )
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True, text=True, env=env, check=True,
    )
    wall = time.perf_counter() - t0
    total_us = 0
    cpu = 0.0
    heavy: list[str] = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = line.split("|", 2)
            if cumulative.strip().isdigit() and not name[1:].startswith(" "):
                total_us += int(cumulative)  # a top-level import: its subtree included
        elif line.startswith("HEAVY"):
            heavy = line.split()[1:]
        elif line.startswith("CPU"):
            cpu = float(line.split()[1])
    return total_us * 1e-6, wall, cpu, heavy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "NANDLAB_DATA_DIR": tmp}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        print(f"# best of {args.repeats} fresh interpreters (goal: import < {GOAL_S} s)")
        for label, argv in COMMANDS.items():
            run_once(argv, env)  # writes the bytecode of what this command imports
            runs = [run_once(argv, env) for _ in range(args.repeats)]
            imp = min(r[0] for r in runs)
            wall = min(r[1] for r in runs)
            cpu = min(r[2] for r in runs)
            verdict = "ok" if imp < GOAL_S else f">= {GOAL_S}"
            print(
                f"{label:<32} import {imp:6.3f} s  process {wall:6.3f} s  cpu {cpu:6.3f} s  "
                f"{verdict}  heavy: {' '.join(runs[-1][3]) or '-'}"
            )


if __name__ == "__main__":
    main()
