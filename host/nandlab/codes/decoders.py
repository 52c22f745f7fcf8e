"""Decoders of the QC-LDPC code: the chip's bit-flipping and the controller's min-sum.

Both decode a batch of frames (one row each) and return (bits, ok, iterations):
ok is True where the result satisfies every parity check. Kernels are Numba,
one frame at a time, so throughput is per core.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from nandlab.codes.qc_ldpc import QCLDPCCode
from nandlab.errors import RangeError

BITFLIP_MAX_ITERATIONS = 50
"""Passes over the codeword before the chip reports a decoding failure."""
MIN_SUM_MAX_ITERATIONS = 30
"""Min-sum iterations before the controller gives up on a frame."""
MIN_SUM_SCALE = 0.75
"""Normalisation of min-sum's check messages, which overestimate belief propagation's."""


@njit(cache=True)
def _bitflip_kernel(hard, check_ptr, edge_bit, bit_ptr, bit_check, z, keep_drop, back_drop,
                    max_iter, out, ok, iters):
    n = hard.shape[1]
    m = check_ptr.shape[0] - 1
    nblk = n // z
    syn = np.zeros(m, dtype=np.uint8)
    for f in range(hard.shape[0]):
        x = out[f]
        y = hard[f]
        for b in range(n):
            x[b] = y[b]
        for c in range(m):
            s = 0
            for e in range(check_ptr[c], check_ptr[c + 1]):
                s ^= x[edge_bit[e]]
            syn[c] = s
        unsat = 0
        for c in range(m):
            unsat += syn[c]
        it = 0
        level = 0
        while unsat > 0 and it < max_iter:
            flips = 0
            # Column-layered: one block column at a time, its Z bits in parallel (they
            # share no check), syndromes updated before the next block column.
            for blk in range(nblk):
                for b in range(blk * z, (blk + 1) * z):
                    u = 0
                    dv = bit_ptr[b + 1] - bit_ptr[b]
                    for k in range(bit_ptr[b], bit_ptr[b + 1]):
                        u += syn[bit_check[k]]
                    drop = keep_drop[level] if x[b] == y[b] else back_drop[level]
                    if u >= dv - drop:
                        flips += 1
                        x[b] ^= 1
                        for k in range(bit_ptr[b], bit_ptr[b + 1]):
                            c = bit_check[k]
                            unsat += 1 - 2 * syn[c]
                            syn[c] ^= 1
            # Strict threshold while it makes progress; loosen one step only when stuck.
            level = min(level + 1, keep_drop.shape[0] - 1) if flips == 0 else 0
            it += 1
        ok[f] = unsat == 0
        iters[f] = it


@njit(cache=True)
def _min_sum_kernel(llr, check_ptr, edge_bit, bit_ptr, bit_edge, scale, max_iter, out, ok,
                    iters):
    n = llr.shape[1]
    m = check_ptr.shape[0] - 1
    n_edges = edge_bit.shape[0]
    q = np.empty(n_edges)
    r = np.empty(n_edges)
    prior = np.empty(n)
    post = np.empty(n)
    y = np.empty(n, dtype=np.uint8)
    err = np.empty(n, dtype=np.uint8)
    syn = np.empty(m, dtype=np.uint8)
    for f in range(llr.shape[0]):
        # Decode the error pattern against the syndrome of the hard decision, as the
        # `ldpc` package does: same signs, same ties (a message <= 0 counts as "flip").
        for b in range(n):
            y[b] = 1 if llr[f, b] < 0.0 else 0
            prior[b] = abs(llr[f, b])
            for k in range(bit_ptr[b], bit_ptr[b + 1]):
                q[bit_edge[k]] = prior[b]
        for c in range(m):
            s = 0
            for e in range(check_ptr[c], check_ptr[c + 1]):
                s ^= y[edge_bit[e]]
            syn[c] = s
        converged = False
        it = 0
        while it < max_iter and not converged:
            it += 1
            for c in range(m):
                neg = syn[c]
                min1 = np.inf
                min2 = np.inf
                arg = -1
                for e in range(check_ptr[c], check_ptr[c + 1]):
                    if q[e] <= 0.0:
                        neg += 1
                    a = abs(q[e])
                    if a < min1:
                        min2 = min1
                        min1 = a
                        arg = e
                    elif a < min2:
                        min2 = a
                for e in range(check_ptr[c], check_ptr[c + 1]):
                    sgn = neg + (1 if q[e] <= 0.0 else 0)
                    mag = min2 if e == arg else min1
                    r[e] = scale * mag if sgn % 2 == 0 else -scale * mag
            for b in range(n):
                total = prior[b]
                for k in range(bit_ptr[b], bit_ptr[b + 1]):
                    total += r[bit_edge[k]]
                post[b] = total
                err[b] = 1 if total <= 0.0 else 0
            converged = True
            for c in range(m):
                s = 0
                for e in range(check_ptr[c], check_ptr[c + 1]):
                    s ^= err[edge_bit[e]]
                if s != syn[c]:
                    converged = False
                    break
            if not converged:
                for b in range(n):
                    for k in range(bit_ptr[b], bit_ptr[b + 1]):
                        e = bit_edge[k]
                        q[e] = post[b] - r[e]
        for b in range(n):
            out[f, b] = y[b] ^ err[b]
        ok[f] = converged
        iters[f] = it


def bitflip_decode(
    code: QCLDPCCode,
    hard: np.ndarray,
    max_iterations: int = BITFLIP_MAX_ITERATIONS,
    keep_drop: tuple[int, ...] = (0, 1, 2),
    back_drop: tuple[int, ...] = (1, 2, 3),
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hard-decision bit-flipping decode (the in-chip weak decoder).

    `hard` (frames x n, 0/1): the bits as read. Column-layered, as a chip would
    run it: one block column (Z bits, no shared check) at a time, the syndrome
    updated before the next. A bit with u unsatisfied checks out of its dv
    flips when u >= dv - keep_drop[level] while it still equals the read bit,
    or u >= dv - back_drop[level] once flipped (going back is easier). Level 0
    is the strictest; a pass that flips nothing moves one level looser, any
    flip returns to level 0. No state besides the bits, the syndrome and a
    2-bit level; stops when the syndrome is zero or after `max_iterations`
    passes.
    """
    words = _bits(hard, code.n)
    if max_iterations < 1:
        raise RangeError(f"max_iterations must be >= 1, got {max_iterations}")
    out = np.empty_like(words)
    ok = np.zeros(words.shape[0], dtype=np.bool_)
    iters = np.zeros(words.shape[0], dtype=np.int64)
    _bitflip_kernel(words, code.check_ptr, code.edge_bit, code.bit_ptr, code.bit_check,
                    code.z, np.asarray(keep_drop, dtype=np.int64),
                    np.asarray(back_drop, dtype=np.int64),
                    max_iterations, out, ok, iters)
    return out, ok, iters


def min_sum_decode(
    code: QCLDPCCode,
    llr: np.ndarray,
    max_iterations: int = MIN_SUM_MAX_ITERATIONS,
    scale: float = MIN_SUM_SCALE,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Normalised min-sum decode (the controller's strong decoder), flooding schedule.

    `llr` (frames x n): log(P(bit=0) / P(bit=1)) per bit, e.g. from
    `soft_read_llrs`. Check-to-bit messages are `scale` x the smallest other
    input magnitude.
    """
    arr = np.asarray(llr, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != code.n:
        raise RangeError(f"LLRs come {code.n} per frame, got shape {np.shape(llr)}")
    if max_iterations < 1 or not 0.0 < scale <= 1.0:
        raise RangeError("max_iterations must be >= 1 and scale in (0, 1]")
    out = np.empty(arr.shape, dtype=np.uint8)
    ok = np.zeros(arr.shape[0], dtype=np.bool_)
    iters = np.zeros(arr.shape[0], dtype=np.int64)
    _min_sum_kernel(arr, code.check_ptr, code.edge_bit, code.bit_ptr, code.bit_edge, scale,
                    max_iterations, out, ok, iters)
    return out, ok, iters


def soft_read_llrs(
    hard: np.ndarray, weak: np.ndarray, strong_llr: float, weak_llr: float
) -> np.ndarray:
    """LLRs from a soft-bit read: the hard bit and a reliability bit per cell.

    A cell read strong gets magnitude `strong_llr`, one read weak (its
    threshold voltage inside the soft-read window) `weak_llr`; the sign says the
    hard bit (positive = 0).
    """
    h = np.asarray(hard)
    w = np.asarray(weak)
    if h.shape != w.shape:
        raise RangeError(f"hard bits {h.shape} and reliability bits {w.shape} differ in shape")
    if not 0.0 < weak_llr <= strong_llr:
        raise RangeError("LLR magnitudes need 0 < weak_llr <= strong_llr")
    mag = np.where(w != 0, weak_llr, strong_llr)
    return np.where(h != 0, -mag, mag)


def _bits(words: np.ndarray, n: int) -> np.ndarray:
    arr = np.asarray(words)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != n:
        raise RangeError(f"a frame is {n} bits, got shape {np.shape(words)}")
    return np.ascontiguousarray(arr, dtype=np.uint8)
