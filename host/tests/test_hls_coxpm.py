"""HLS kernel hw/hls/coxpm: the CoX-PM die's decode + de-randomise + match per sub-page.

The testbench (plain g++) must give, on every frame, the outcome, the match
bitmap and the decoded plain payload that nandlab.codes.bitflip_decode, the
randomiser (onfi_spec.coxpm.page_stream) and a Python `bytes.find` give.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from nandlab.codes import bitflip_decode, pif_code
from nandlab.codes.decoders import BITFLIP_MAX_ITERATIONS
from nandlab.onfi_spec.coxpm import SUBPAGE_BYTES, Outcome, page_stream

REPO = Path(__file__).resolve().parents[2]
HLS = REPO / "hw" / "hls"
KERNEL = HLS / "coxpm"
CXXFLAGS = [
    "-std=c++17",
    "-O2",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unknown-pragmas",  # HLS pragmas mean nothing to g++
    "-Wno-unused-label",  # HLS loop labels name loops in synthesis reports
    f"-I{HLS / 'include'}",
]
DIE_PASSES = 17
"""The virtual die's cap (docs/cox-pm.md: 2.5 µs per sub-page at 500 MHz, 72 clocks a pass)."""
PATTERNS = [
    b"needle",
    b"\x00\x00n",  # NULs are outside the payload alphabet: only where planted
    b"the quick brown fox jumps over t",  # 32 bytes, the longest a pattern can be
    b"zq",
    b"\xff\xfe\xfd",
    b"abc abc",
    b"\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c",
    b"x",  # near certain in letters: matched frames without planting
]
ERROR_COUNTS = [0, 1, 8, 25, 40, 48, 56, 90, 200]
"""Raw bit errors per frame: decoded at the low end, beyond the decoder's reach at the top."""


@pytest.fixture(scope="module")
def tb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cxx = shutil.which("g++")
    assert cxx, "g++ is missing: apt-get install g++"
    exe = tmp_path_factory.mktemp("hls_coxpm") / "tb_coxpm"
    sources = [KERNEL / "coxpm.cpp", KERNEL / "tb_coxpm.cpp"]
    subprocess.run([cxx, *CXXFLAGS, "-o", str(exe), *map(str, sources)], check=True)
    return exe


def payloads(rng: np.random.Generator, frames: int) -> list[bytes]:
    """Letter text with patterns planted at the start, the end and inside some frames."""
    letters = np.frombuffer(b"abcdefghijklmnopqrstuvwy ", dtype=np.uint8)  # no 'x', no 'z'
    out = []
    for f in range(frames):
        data = bytearray(letters[rng.integers(0, letters.size, SUBPAGE_BYTES)].tobytes())
        if f % 3 == 0:
            data[rng.integers(0, SUBPAGE_BYTES) :][:1] = b"x"
        pat = PATTERNS[f % len(PATTERNS)]
        where = (0, SUBPAGE_BYTES - len(pat), int(rng.integers(0, SUBPAGE_BYTES - len(pat))), -1)[
            f % 4
        ]
        if where >= 0:
            data[where : where + len(pat)] = pat
        else:  # "\x00\x00n" must not match before the data starts
            data[0:1] = b"n"
        out.append(bytes(data))
    return out


@pytest.mark.parametrize("max_passes", [DIE_PASSES, BITFLIP_MAX_ITERATIONS])
def test_coxpm_kernel_matches_python(tb: Path, max_passes: int) -> None:
    rng = np.random.default_rng(14 + max_passes)
    code = pif_code()
    counts = np.repeat(ERROR_COUNTS, 4)
    plain = payloads(rng, counts.size)
    # frame f is sub-page f % 16 of a 16 KiB page: its slice of the page's stream
    keys = [
        page_stream(7, f, SUBPAGE_BYTES * (f % 16 + 1))[-SUBPAGE_BYTES:] for f in range(counts.size)
    ]
    stored = np.stack(
        [np.frombuffer(p, dtype=np.uint8) ^ k for p, k in zip(plain, keys, strict=True)]
    )
    words = code.encode(np.unpackbits(stored, axis=1))
    read = words.copy()
    for f, n_err in enumerate(counts):
        read[f, rng.choice(code.n, int(n_err), replace=False)] ^= 1
    bits, ok, iters = bitflip_decode(code, read, max_iterations=max_passes)

    lines = [f"{len(PATTERNS)} {max_passes}", *(p.hex() for p in PATTERNS)]
    for f in range(counts.size):
        lines.append(f"{np.packbits(read[f]).tobytes().hex()} {keys[f].tobytes().hex()}")
    out = subprocess.run(
        [str(tb)], input="\n".join(lines) + "\n", capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert len(out) == counts.size

    seen = set()
    for f, line in enumerate(out):
        outcome, match, passes, data_hex = line.split()
        decoded = (np.packbits(bits[f, : code.k]) ^ keys[f]).tobytes()
        bitmap = sum(1 << p for p, pat in enumerate(PATTERNS) if decoded.find(pat) >= 0)
        if not ok[f]:
            want = (Outcome.DECODING_FAILURE, 0)
        else:
            want = (Outcome.MATCHED if bitmap else Outcome.NOT_MATCHED, bitmap)
            assert decoded == plain[f]  # a zero syndrome here is the sent word
        assert (int(outcome), int(match)) == (int(want[0]), want[1]), f"frame {f}"
        assert bytes.fromhex(data_hex) == decoded, f"frame {f}"
        assert int(passes) == iters[f], f"frame {f}"
        seen.add(want[0])
    # the frames exercise every outcome, so the comparison covers them all
    assert seen == set(Outcome)


def test_base_matrix_header_is_current() -> None:
    gen = subprocess.run(
        [sys.executable, str(KERNEL / "gen_base_matrix.py")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert gen == (KERNEL / "coxpm_base.h").read_text(), (
        "hw/hls/coxpm/coxpm_base.h is stale: run gen_base_matrix.py > coxpm_base.h"
    )
