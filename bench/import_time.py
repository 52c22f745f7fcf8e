"""Cold start of the console script: `nandlab --help` and `nandlab info sim://<profile>`
for every built-in profile.

Each command runs in a fresh interpreter `--repeats` times (in a temporary data folder);
printed per command, best of the repeats:
- import: the sum of the top-level imports' cumulative times `python -X importtime` reports;
- import + run: from before `from nandlab.cli.main import main` until the command returns,
  measured in the process (a run without -X importtime, whose bookkeeping costs time), wall
  and main-thread CPU (the latter barely moves when other jobs share the cores);
- process wall and CPU time (startup included; CPU moves least when other jobs share the
  cores; numpy's BLAS threads make CPU exceed wall);
- the heavy libraries it loaded.
Bytecode is written and used as an installed package does (PYTHONDONTWRITEBYTECODE is
cleared) and the first, untimed run of each command also fills the validated-profile cache,
as a user's first command does. Goal (issue 16 item 4): import and import + run under 0.3 s.

    .venv/bin/python bench/import_time.py [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

from nandlab.profiles import builtin_names

HEAVY = ("numba", "pyarrow", "pandas", "duckdb", "matplotlib", "scipy", "rich", "pydantic", "yaml")
GOAL_S = 0.3


def commands() -> dict[str, list[str]]:
    out = {"nandlab --help": ["--help"]}
    for name in builtin_names():
        out[f"nandlab info sim://{name}"] = ["info", f"sim://{name}", "--fresh"]
    return out


def _code(args: list[str]) -> str:
    return (
        "import sys, time\nt0, c0 = time.perf_counter(), time.thread_time()\n"
        "from nandlab.cli.main import main\n"
        f"sys.argv = ['nandlab', *{args!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('ELAPSED', time.perf_counter() - t0, file=sys.stderr)\n"
        "print('THREAD', time.thread_time() - c0, file=sys.stderr)\n"
        f"print('HEAVY', *[m for m in {HEAVY!r} if m in sys.modules], file=sys.stderr)\n"
        "print('CPU', time.process_time(), file=sys.stderr)"
    )


def run_once(
    args: list[str], env: dict[str, str]
) -> tuple[float, float, float, float, float, list[str]]:
    """(import s, import + run s, its main-thread CPU s, process wall s, process CPU s, heavy
    modules) of one run with -X importtime and one without."""
    traced = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", _code(args)],
        capture_output=True, text=True, env=env, check=True,
    )
    total_us = 0
    heavy: list[str] = []
    for line in traced.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = line.split("|", 2)
            if cumulative.strip().isdigit() and not name[1:].startswith(" "):
                total_us += int(cumulative)  # a top-level import: its subtree included
        elif line.startswith("HEAVY"):
            heavy = line.split()[1:]
    t0 = time.perf_counter()
    plain = subprocess.run(
        [sys.executable, "-c", _code(args)], capture_output=True, text=True, env=env, check=True
    )
    wall = time.perf_counter() - t0
    figures = dict(line.split()[:2] for line in plain.stderr.splitlines()
                   if line.startswith(("ELAPSED", "THREAD", "CPU")))
    return (total_us * 1e-6, float(figures["ELAPSED"]), float(figures["THREAD"]), wall,
            float(figures["CPU"]), heavy)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "NANDLAB_DATA_DIR": tmp}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        print(f"# best of {args.repeats} fresh interpreters (goal: import and import + run "
              f"< {GOAL_S} s); load average {os.getloadavg()[0]:.1f}")
        for label, argv in commands().items():
            run_once(argv, env)  # bytecode and the profile cache, as after a first command
            runs = [run_once(argv, env) for _ in range(args.repeats)]
            imp, both, both_cpu, wall, cpu = (min(r[i] for r in runs) for i in range(5))
            verdict = "ok" if max(imp, both) < GOAL_S else f">= {GOAL_S}"
            print(
                f"{label:<30} import {imp:5.3f}  import+run {both:5.3f} (its CPU {both_cpu:5.3f})"
                f"  process {wall:5.3f} cpu {cpu:5.3f} s  {verdict}  "
                f"loaded: {' '.join(runs[-1][5]) or '-'}"
            )


if __name__ == "__main__":
    main()
