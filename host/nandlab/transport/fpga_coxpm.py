"""CoX-PM on an ordinary chip: the HLS kernel on the bench's read stream (capability
`fpga_coxpm`, role `matcher`).

As the PiF paper did on OpenSSD: the board reads a plain page (00h-30h, data + spare)
into its buffer and runs the CoX-PM die's logic on it, sub-page by sub-page: the
bit-flipping decode of each 1 KiB codeword, de-randomisation, the multi-pattern
matcher. Only a matched page's plain data (or, on a decoding failure, the page as
read) goes on to the host. The logic is the one source `hw/hls/coxpm` (C simulation
in host/tests/test_hls_coxpm.py), compiled natively with g++ into
`hw/hls/build/libcoxpm.so` (`make hls-lib`, or here on first use when stale) and
called through ctypes: the bench runs the kernel source itself, not a Python copy.

Time: the kernel works at the board clock; per sub-page it streams the codeword in
from the page buffer (1152 clocks), computes the syndrome (72), runs its passes (72
each) and matches the payload (1024). `MatchedRead.kernel_ns` is the page's sum: the
parity sits at the page's end, so nothing is decoded before the whole page is in.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import numpy as np

from nandlab.errors import TransportError
from nandlab.onfi_spec.coxpm import (
    MAX_PATTERN_BYTES,
    MAX_PATTERNS,
    PARITY_BYTES,
    SUBPAGE_BYTES,
    Outcome,
    page_stream,
    pattern_bytes,
)
from nandlab.ops import DataRecord, Program, Results
from nandlab.transport.base import Transport
from nandlab.transport.roles import MatchedRead

REPO = Path(__file__).resolve().parents[3]
HLS_DIR = REPO / "hw" / "hls"
SOURCES = ("coxpm/coxpm.cpp", "coxpm/coxpm_page.cpp")
HEADERS = ("coxpm/coxpm.h", "coxpm/coxpm_base.h", "include/nandlab_hls.h")
LIBRARY = HLS_DIR / "build" / "libcoxpm.so"
CXXFLAGS = (
    "-std=c++17", "-O2", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror",
    "-Wno-unknown-pragmas",  # HLS pragmas mean nothing to g++
    "-Wno-unused-label",  # HLS loop labels name loops in synthesis reports
)  # fmt: skip
DIE_PASSES = 17
"""Decoder passes per sub-page: the virtual CoX-PM die's cap (docs/cox-pm.md), so the board
decides as the in-chip decoder would."""
STREAM_IN_CLOCKS = SUBPAGE_BYTES + PARITY_BYTES
SYNDROME_CLOCKS = PASS_CLOCKS = 72  # block columns of the code, one per clock
MATCH_CLOCKS = SUBPAGE_BYTES


def build_library(out: Path = LIBRARY) -> Path:
    """Compile the kernel into `out` unless it is newer than every source; its path.

    TransportError when the sources (a repository checkout) or g++ are missing."""
    files = [HLS_DIR / f for f in (*SOURCES, *HEADERS)]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise TransportError(f"the CoX-PM kernel needs a nandlab checkout: missing {missing}")
    if out.is_file() and out.stat().st_mtime >= max(f.stat().st_mtime for f in files):
        return out
    cxx = shutil.which("g++")
    if cxx is None:
        raise TransportError("the CoX-PM kernel needs g++ (apt-get install g++, or make setup)")
    out.parent.mkdir(parents=True, exist_ok=True)
    # built aside and renamed: parallel test workers never load a half-written library
    fd, tmp = tempfile.mkstemp(prefix=out.name + ".", suffix=".tmp", dir=out.parent)
    os.close(fd)
    cmd = [cxx, *CXXFLAGS, f"-I{HLS_DIR / 'include'}", "-o", tmp,
           *(str(HLS_DIR / s) for s in SOURCES)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        os.unlink(tmp)
        raise TransportError(f"building the CoX-PM kernel failed:\n{done.stderr.strip()}")
    os.replace(tmp, out)
    return out


@cache
def _library() -> ctypes.CDLL:
    lib = ctypes.CDLL(str(build_library()))
    u8p, u32p = ctypes.POINTER(ctypes.c_uint8), ctypes.POINTER(ctypes.c_uint32)
    u32 = ctypes.c_uint32
    lib.coxpm_page.argtypes = [u8p, u32, u8p, u8p, u8p, u32, u32, u8p, u32p, u32p]
    lib.coxpm_page.restype = u32
    return lib


def _u8(a: np.ndarray) -> ctypes._Pointer[ctypes.c_uint8]:
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8))


def kernel_page(
    raw: bytes, page_bytes: int, key: np.ndarray, patterns: Sequence[bytes], max_passes: int
) -> tuple[Outcome, int, bytes, tuple[int, ...]]:
    """Run the kernel over one page as read (data + at least the parity of the spare):
    (outcome, pattern bitmap, decoded plain data area, passes per sub-page)."""
    subpages = page_bytes // SUBPAGE_BYTES
    page = np.frombuffer(raw, dtype=np.uint8)
    pats = np.zeros((MAX_PATTERNS, MAX_PATTERN_BYTES), dtype=np.uint8)
    lens = np.zeros(MAX_PATTERNS, dtype=np.uint8)
    for i, p in enumerate(patterns):
        pats[i, : len(p)] = np.frombuffer(p, dtype=np.uint8)
        lens[i] = len(p)
    key = np.ascontiguousarray(key, dtype=np.uint8)
    plain = np.zeros(page_bytes, dtype=np.uint8)
    passes = np.zeros(subpages, dtype=np.uint32)
    match = ctypes.c_uint32(0)
    outcome = _library().coxpm_page(
        _u8(page), page_bytes, _u8(key), _u8(pats), _u8(lens), len(patterns), max_passes,
        _u8(plain), passes.ctypes.data_as(ctypes.POINTER(ctypes.c_uint32)), ctypes.byref(match),
    )  # fmt: skip
    if outcome > Outcome.DECODING_FAILURE:
        raise TransportError(f"the CoX-PM kernel cannot take a {page_bytes}-byte page")
    return Outcome(outcome), match.value, plain.tobytes(), tuple(int(p) for p in passes)


class FpgaCoxPm:
    """The `matcher` role of a bench whose controller runs the CoX-PM kernel on its read
    stream (the rtl:// bench). `clock_ns`: the kernel's clock period."""

    def __init__(self, transport: Transport, clock_ns: float, max_passes: int = DIE_PASSES):
        self._transport = transport
        self.clock_ns = clock_ns
        self.max_passes = max_passes
        self.patterns: list[bytes] = []

    def set_patterns(self, patterns: Sequence[bytes]) -> None:
        pats = [bytes(p) for p in patterns]
        pattern_bytes(pats)  # RangeError for what the matcher cannot hold
        _library()  # build now: a missing g++ shows before any page is read
        self.patterns = pats

    def run_matched(self, program: Program, block: int, page: int, page_bytes: int) -> MatchedRead:
        if not self.patterns:
            raise TransportError("the read-stream matcher holds no pattern: set_patterns first")
        results = self._transport.run(program)
        pages = results.data
        if results.errors:
            return MatchedRead(results, int(Outcome.NOT_MATCHED), 0, b"", 0, ())
        if len(pages) != 1 or len(pages[0]) < page_bytes // SUBPAGE_BYTES * PARITY_BYTES:
            raise TransportError("run_matched needs a program with one DOUT of the whole page")
        raw = pages[0]
        outcome, match, plain, passes = kernel_page(
            raw, page_bytes, page_stream(block, page, page_bytes), self.patterns, self.max_passes
        )
        clocks = sum(
            STREAM_IN_CLOCKS + SYNDROME_CLOCKS + PASS_CLOCKS * p + MATCH_CLOCKS for p in passes
        )
        out = {Outcome.MATCHED: plain, Outcome.NOT_MATCHED: b"", Outcome.DECODING_FAILURE: raw}
        kept = Results(r for r in results if not isinstance(r, DataRecord))
        return MatchedRead(
            kept, int(outcome), match, out[outcome], round(clocks * self.clock_ns), passes
        )
