"""CLI: `python -m nandlab.hwgen [regs|timing|xdc|all] [--check]`."""

from __future__ import annotations

import argparse
import sys

from nandlab.hwgen import REPO, Output, regs, timing, xdc

GENERATORS = {"regs": regs.outputs, "timing": timing.outputs, "xdc": xdc.outputs}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nandlab.hwgen", description=__doc__)
    parser.add_argument("what", nargs="?", default="all", choices=[*GENERATORS, "all"])
    parser.add_argument("--check", action="store_true", help="fail if a generated file is stale")
    args = parser.parse_args(argv)
    names = list(GENERATORS) if args.what == "all" else [args.what]
    outputs: list[Output] = [o for name in names for o in GENERATORS[name]()]
    stale = [o for o in outputs if o.stale]
    if args.check:
        for o in stale:
            print(f"stale: {o.path.relative_to(REPO)} (run python -m nandlab.hwgen {args.what})",
                  file=sys.stderr)
        return 1 if stale else 0
    for o in stale:
        o.write()
        print(f"wrote {o.path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
