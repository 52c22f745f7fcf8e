"""`make demo` installs only the base dependencies: the demo runs with every package of the
hw, rtl and dev extras unimportable."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# top-level modules of the extras' packages (hw: pyftdi, pyusb, pyvisa, ppk2-api and pyserial
# under it; rtl: peakrdl, systemrdl, cocotb; dev: the test tools)
EXTRAS_MODULES = (
    "pyftdi", "usb", "pyvisa", "pyvisa_sim", "ppk2_api", "serial",
    "peakrdl", "peakrdl_regblock", "peakrdl_cheader", "systemrdl", "cocotb", "cocotb_tools",
    "cocotbext", "pytest", "hypothesis",
)  # fmt: skip

RUN_WITHOUT_EXTRAS = """
import importlib.abc, sys
BLOCKED = set(sys.argv[1].split(","))
class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.partition(".")[0] in BLOCKED:
            # what Python raises for a package that is not installed
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Blocked())
from nandlab.cli.main import main
sys.argv = ["nandlab", *sys.argv[2:]]
main()
"""


def test_demo_runs_without_any_extra(tmp_path: Path, data_dir: Path) -> None:
    args = ["demo", "--wl-count", "1", "--code-step", "16", "--json", "--out", str(tmp_path)]
    blocked = ",".join(EXTRAS_MODULES)
    done = subprocess.run(
        [sys.executable, "-c", RUN_WITHOUT_EXTRAS, blocked, *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert Path(doc["run_dir"], "measurements.parquet").is_file()
    assert doc["rber"], "the demo measured nothing"


def test_a_hardware_bench_without_its_extra_says_what_to_install(
    data_dir: Path,
) -> None:
    url = "ftdi://ftdi:2232h/1?board=ft2232h-bga&profile=mlc-64l"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            RUN_WITHOUT_EXTRAS,
            ",".join(EXTRAS_MODULES),
            "info",
            url,
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 2, done.stderr
    assert "need the 'hw' extra" in done.stderr and "host[hw]" in done.stderr
    assert "Traceback" not in done.stderr
