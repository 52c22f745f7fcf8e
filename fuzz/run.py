"""Run one fuzz target under atheris (libFuzzer), coverage-guided over nandlab's code:

    .venv/bin/python fuzz/run.py TARGET [libFuzzer options and corpus folders]
    .venv/bin/python fuzz/run.py campaign -max_total_time=60 /tmp/work fuzz/corpus/campaign

libFuzzer adds the inputs it finds to the first corpus folder (give a scratch folder there,
so the committed seeds under fuzz/corpus/ stay as they are) and writes an input that makes
the target raise as crash-<sha1> in the working folder. `make fuzz` runs every target.
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports(include=["nandlab"]):
    from targets import TARGETS  # fuzz/ is the script's folder, first on sys.path


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        sys.exit(
            f"usage: fuzz/run.py {{{','.join(TARGETS)}}} [libFuzzer options] [corpus...]"
        )
    target = TARGETS[sys.argv[1]]
    # a deep parse or a slow check is a finding too, not a reason to wait forever
    atheris.Setup(
        [sys.argv[0], "-timeout=10", "-rss_limit_mb=2048", *sys.argv[2:]], target
    )
    atheris.Fuzz()


if __name__ == "__main__":
    main()
