"""Frame-error rate of the PiF / CoX-PM QC-LDPC decoders vs raw bit errors per codeword.

For each error count k, random codewords (seeded) get exactly k bit errors at
random positions; a frame fails unless the decoder returns the sent codeword.
Three curves: the in-chip bit-flipping decoder (hard bits), the controller's
min-sum on hard bits only, and min-sum on soft-bit reads. Each point runs up to
`--frames` frames (default 3000, enough to tell FER 1e-3: at most 3 failures)
and stops early after 40 failures. Prints one line per point and, per curve,
the largest k below which every point has FER <= 1e-3 (the paper's target for the bit-flipping
decoder is 72).

Soft reads: the cell's sensed value is v = +-1 + N(0, sigma) with sigma set so
that P(v on the wrong side of 0) = k / 9216; the reliability bit says "weak"
when |v| < 0.25 (the two extra soft-read references at +-0.25). Given a bit
is in error it is weak with P(-0.25 < v < 0 | v < 0), given it is right with
P(0 < v < 0.25 | v > 0); the LLR magnitudes are the log ratio of right to
wrong within each zone (a controller calibrated to the page).

    .venv/bin/python bench/ldpc_fer.py [--frames N] [--curve bitflip|min-sum-hard|min-sum-soft]
                                       [--errors K ...] [--seed S]
"""

from __future__ import annotations

import os

os.environ["NUMBA_NUM_THREADS"] = "1"

import argparse
import math
import time
from statistics import NormalDist

import numpy as np
from nandlab.codes import bitflip_decode, min_sum_decode, pif_code, soft_read_llrs

WINDOW = 0.25
BATCH = 100
MAX_FAILURES = 40
CURVES = {
    "bitflip": [30, 34, 36, 38, 40, 42, 44, 46, 48, 50, 55, 60],
    "min-sum-hard": [50, 54, 56, 58, 60, 62, 64, 66, 68, 72, 80],
    "min-sum-soft": [80, 90, 100, 110, 115, 120, 125, 130, 140, 150],
}


def soft_channel(errors: int, n: int) -> tuple[float, float, float, float]:
    """(P(weak | error), P(weak | right), strong LLR, weak LLR) at `errors` per n bits."""
    nd = NormalDist()
    sigma = -1.0 / nd.inv_cdf(errors / n)
    wrong_strong = nd.cdf((-WINDOW - 1) / sigma)
    wrong_weak = nd.cdf(-1 / sigma) - wrong_strong
    right_weak = nd.cdf((WINDOW - 1) / sigma) - nd.cdf(-1 / sigma)
    right_strong = 1 - nd.cdf((WINDOW - 1) / sigma)
    return (
        wrong_weak / (wrong_weak + wrong_strong),
        right_weak / (right_weak + right_strong),
        math.log(right_strong / wrong_strong),
        math.log(right_weak / wrong_weak),
    )


def run_point(curve: str, errors: int, frames: int, rng: np.random.Generator) -> tuple[int, int]:
    code = pif_code()
    done = failed = 0
    while done < frames and failed < MAX_FAILURES:
        batch = min(BATCH, frames - done)
        words = code.encode(rng.integers(0, 2, (batch, code.k), dtype=np.uint8))
        received = words.copy()
        is_error = np.zeros_like(words, dtype=bool)
        for f in range(batch):
            is_error[f, rng.choice(code.n, errors, replace=False)] = True
        received ^= is_error.astype(np.uint8)
        if curve == "bitflip":
            out, _, _ = bitflip_decode(code, received)
        elif curve == "min-sum-hard":
            out, _, _ = min_sum_decode(code, np.where(received == 1, -1.0, 1.0))
        else:
            p_weak_err, p_weak_ok, strong, weak_llr = soft_channel(errors, code.n)
            draw = rng.random(received.shape)
            weak = np.where(is_error, draw < p_weak_err, draw < p_weak_ok)
            out, _, _ = min_sum_decode(code, soft_read_llrs(received, weak, strong, weak_llr))
        failed += int((out != words).any(axis=1).sum())
        done += batch
    return done, failed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=3000)
    parser.add_argument("--curve", choices=sorted(CURVES), action="append")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--errors", type=int, nargs="+", help="error counts (default: the curve's)")
    args = parser.parse_args()
    for curve in args.curve or list(CURVES):
        rng = np.random.default_rng(args.seed)
        best = None
        clean = True
        print(f"# {curve}: raw bit errors per 1 KiB codeword, frames, failures, FER")
        for errors in args.errors or CURVES[curve]:
            t0 = time.perf_counter()
            done, failed = run_point(curve, errors, args.frames, rng)
            fer = failed / done
            # The figure is where the curve first crosses 1e-3: a later point that
            # lands below it by chance does not count.
            clean = clean and fer <= 1e-3 and done >= args.frames
            if clean:
                best = errors
            print(f"{curve} {errors:4d} {done:6d} {failed:4d} {fer:.2e}  "
                  f"({time.perf_counter() - t0:.0f} s)", flush=True)
        print(f"{curve}: largest error count with FER <= 1e-3: {best}")


if __name__ == "__main__":
    main()
