"""Decode throughput of the PiF / CoX-PM QC-LDPC decoders on the host, one core.

Prints, per decoder and raw bit-error count per 1 KiB codeword, the payload
decoded per second as `ldpc_<decoder>_<errors>err_MBps: value` (MB/s of the
8192 message bits, 1 MB = 1e6 bytes), the mean iterations on a comment line. Times only the decoder call on a batch (encoding and error
injection excluded), after a warm-up that compiles the Numba kernels, in CPU
time of this process (so other load on a shared machine does not count). The
in-chip decoder's 40 us budget per 16 KiB page is a property of the chip's
logic (the virtual CoX-PM die models it), not of a host CPU: not printed here.

    .venv/bin/python bench/ldpc_decode.py
"""

from __future__ import annotations

import os

os.environ["NUMBA_NUM_THREADS"] = "1"

import time

import numpy as np
from nandlab.codes import bitflip_decode, min_sum_decode, pif_code, soft_read_llrs

FRAMES = 200
POINTS = [
    ("bitflip", 0),
    ("bitflip", 20),
    ("bitflip", 40),
    ("min-sum-hard", 20),
    ("min-sum-hard", 40),
    ("min-sum-hard", 60),
    ("min-sum-soft", 72),
    ("min-sum-soft", 100),
]


def _received(errors: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    code = pif_code()
    words = code.encode(rng.integers(0, 2, (FRAMES, code.k), dtype=np.uint8))
    is_error = np.zeros(words.shape, dtype=bool)
    for f in range(FRAMES):
        is_error[f, rng.choice(code.n, errors, replace=False)] = True
    return words ^ is_error.astype(np.uint8), is_error


def _decode(decoder: str, received: np.ndarray, is_error: np.ndarray, rng: np.random.Generator):
    code = pif_code()
    if decoder == "bitflip":
        return lambda: bitflip_decode(code, received)
    if decoder == "min-sum-hard":
        llr = np.where(received == 1, -1.0, 1.0)
    else:
        # Soft-bit read: most errors (85 %) and a few right bits (3 %) read weak.
        draw = rng.random(received.shape)
        weak = np.where(is_error, draw < 0.85, draw < 0.03)
        llr = soft_read_llrs(received, weak, 6.5, 1.4)
    return lambda: min_sum_decode(code, llr)


def main() -> None:
    code = pif_code()
    rng = np.random.default_rng(14)
    warm, _ = _received(1, rng)
    bitflip_decode(code, warm[:1])
    min_sum_decode(code, np.where(warm[:1] == 1, -1.0, 1.0))
    print(f"# LDPC decode: payload {code.k // 8} B per codeword, {FRAMES} codewords per point")
    for decoder, errors in POINTS:
        received, is_error = _received(errors, rng)
        run = _decode(decoder, received, is_error, rng)
        t0 = time.process_time()
        _, ok, iters = run()
        cpu = time.process_time() - t0
        mbps = FRAMES * code.k / 8 / cpu / 1e6
        name = decoder.replace("-", "_")
        print(f"ldpc_{name}_{errors}err_MBps: {mbps:.2f}")
        print(f"#   mean iterations {iters.mean():.1f}, {int((~ok).sum())} of {FRAMES} not decoded")


if __name__ == "__main__":
    main()
