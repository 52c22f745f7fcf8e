"""The virtual die's first step on a new install (numba compiling its kernels) says so;
once numba's on-disk cache holds them, nothing is said."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

NOTICE = "compiling the virtual die's numba kernels"
IMPORT = "import logging; logging.basicConfig(level=logging.INFO); import nandlab.vchip.kernel"


def _stderr(cache: Path) -> str:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", IMPORT], env=env, capture_output=True, text=True, check=True
    )
    return done.stderr


def test_notice_until_numba_has_cached_the_kernels(tmp_path: Path) -> None:
    cache = tmp_path / "numba"
    assert NOTICE in _stderr(cache)  # no cache folder yet
    compiled = cache / "vchip_0123" / "kernel.sense_kernel-40.py311.nbi"
    compiled.parent.mkdir(parents=True)
    compiled.write_bytes(b"index")  # what numba leaves once a kernel is compiled
    assert NOTICE not in _stderr(cache)
