"""HLS kernels (hw/hls/): C-simulation testbenches built with g++, checked against Python.

err_count must give DOUT_CMP's per-chunk counts (nandlab.analysis.chunk_error_counts
against nandlab.ops.pattern_bytes); vth_hist must give, per state and offset
step, the cells reading "below" that the Vth sweep (nandlab.characterize.vth)
counts.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from nandlab.analysis import chunk_error_counts, unpack_cells
from nandlab.ops import Pattern, pattern_bytes

REPO = Path(__file__).resolve().parents[2]
HLS = REPO / "hw" / "hls"
CXXFLAGS = [
    "-std=c++17",
    "-O2",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unknown-pragmas",  # HLS pragmas mean nothing to g++
    "-Wno-unused-label",  # HLS loop labels name loops in synthesis reports
    f"-I{HLS / 'include'}",
    f"-I{REPO / 'firmware' / 'include'}",
]


def build(kernel: str, tmp: Path) -> Path:
    cxx = shutil.which("g++")
    assert cxx, "g++ is missing: apt-get install g++"
    exe = tmp / f"tb_{kernel}"
    sources = [HLS / kernel / f"{kernel}.cpp", HLS / kernel / f"tb_{kernel}.cpp"]
    subprocess.run([cxx, *CXXFLAGS, "-o", str(exe), *map(str, sources)], check=True)
    return exe


@pytest.fixture(scope="module")
def tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hls")


CASES = [
    (Pattern.prbs(), 0, 1000, 128),
    (Pattern.prbs(invert=True), 0xDEADBEEF, 18336, 1024),
    (Pattern.checker(1), 0, 77, 10),
    (Pattern.constant(0xA5), 0, 5, 1),
    (Pattern.constant(0x00, invert=True), 0, 9, 100),
]


def test_err_count_matches_dout_cmp(tmp: Path) -> None:
    exe = build("err_count", tmp)
    rng = np.random.default_rng(1)
    lines, want = [], []
    for pattern, seed, n, chunk in CASES:
        expected = np.frombuffer(pattern_bytes(pattern, seed, n), dtype=np.uint8)
        flips = rng.integers(0, 256, n, dtype=np.uint8) & rng.integers(0, 256, n, dtype=np.uint8)
        flips &= rng.integers(0, 256, n, dtype=np.uint8)
        read = (expected ^ flips).tobytes()
        lines.append(f"{n} {pattern.word:x} {seed:x} {chunk} {read.hex()}")
        want.append(chunk_error_counts(expected.tobytes(), read, chunk).tolist())
    out = subprocess.run(
        [str(exe)], input="\n".join(lines) + "\n", capture_output=True, text=True, check=True
    ).stdout.splitlines()
    got = [[[int(v) for v in pair.split(",")] for pair in line.split()] for line in out]
    assert got == want


@pytest.mark.parametrize("below_bit", [0, 1])
def test_vth_hist_matches_sweep_counts(tmp: Path, below_bit: int) -> None:
    exe = build("vth_hist", tmp)
    rng = np.random.default_rng(2 + below_bit)
    cells, steps, n_states = 4096, 24, 4
    state = rng.integers(0, n_states, cells)
    state[rng.random(cells) < 0.1] = 255  # cells left out (not next to the reference)
    vth = rng.normal(state * 1000.0, 300.0)
    refs = np.linspace(-500, 3500, steps)
    pages = []
    for ref in refs:  # bit == below_bit when the cell's Vth is below the reference
        below = vth < ref
        bits = np.where(below, below_bit, 1 - below_bit).astype(np.uint8)
        pages.append(np.packbits(bits, bitorder="little").tobytes())
    text = f"{cells} {steps} {below_bit}\n" + " ".join(map(str, state)) + "\n"
    text += "\n".join(p.hex() for p in pages) + "\n"
    out = subprocess.run(
        [str(exe)], input=text, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    got = np.array([[int(v) for v in line.split()] for line in out[:8]])
    want = np.zeros((8, steps), dtype=np.int64)
    for s, page in enumerate(pages):
        reads_below = unpack_cells(page) == below_bit
        for t in range(n_states):
            want[t, s] = np.count_nonzero(reads_below & (state == t))
    assert (got == want).all()
    assert want[:n_states, -1].sum() > 0 and out[8] == "accumulates ok"
