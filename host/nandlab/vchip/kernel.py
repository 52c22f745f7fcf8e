"""Numba kernels of the virtual die's hot paths.

`sense_kernel` is one sensing of one WL: every cell's effective Vth with the
full physics, compared with the read reference. The per-WL physics arrives as
scalars (see physics.sense_coefficients) so the loop is one fused pass over
contiguous arrays, free of gathers and branches, which LLVM vectorises.

Read noise: a slice of the RTN body table, and for the few cells of each sensing in the
Laplacian's tail a counter-based draw from the sensing's key (`_rtn_tail`), which replaces
the table's value (`rtn_tail_fold` does the same for a row MWS sensing sums).

`program_kernel` is one program operation of one WL (Gray-code targets, ISPP
landing, charge only added, interference on the string neighbour below), and
`normal_fill_int` draws a WL's erased Vth or personality. Their random draws
are counter-based (SplitMix64 of stream key + cell index), so a cell's draw
does not depend on which other cells were drawn.
"""

from __future__ import annotations

import logging
import math
from pathlib import Path

import numpy as np
from numba import config, njit

logger = logging.getLogger(__name__)


def _compiled_before() -> bool:
    """Whether numba's on-disk cache holds kernels of this module (beside it, or under
    NUMBA_CACHE_DIR)."""
    here = Path(__file__)
    cache_dir = str(getattr(config, "CACHE_DIR", "") or "")  # NUMBA_CACHE_DIR
    folders = [Path(cache_dir)] if cache_dir else [here.parent / "__pycache__"]
    return any(any(f.rglob(f"{here.stem}.*.nbi")) for f in folders if f.is_dir())


if not _compiled_before():
    # the first sensing / program of this install compiles the kernels below
    logger.info(
        "compiling the virtual die's numba kernels (first use on this install: a few "
        "seconds; cached on disk for every later run)"
    )

# Drift terms (one WL's sense coefficients, physics.SenseCoefficients.drift), in mV:
# (x0, retention mean per mV above x0, retention deviation per sqrt(mV) per personality
# unit, erased-state rise per mV below its neutral Vth, that neutral Vth, read-disturb gain
# per mV below vpass, vpass).
DriftTerms = tuple[float, float, float, float, float, float, float]

# physics.PERSONALITY_SCALE / _KNEE / _STRETCH: the personality's int8 companding
_P_KNEE = np.float32(3.0 * 32.0)
_P_STRETCH_LESS_1 = np.float32(10.0 - 1.0)


@njit(cache=True, fastmath=True, inline="always")
def _personality_units(p: np.float32) -> np.float32:
    """A personality code in units of 1/32 sigma: exact within the knee (3 sigma), the
    compressed tail beyond it stretched back (physics.personality_z x 32)."""
    excess = max(abs(p) - _P_KNEE, np.float32(0.0))
    return p + np.float32(np.copysign(excess, p)) * _P_STRETCH_LESS_1


@njit(cache=True, fastmath=True, inline="always")
def _drifted(x: np.float32, personality: np.float32, drift: DriftTerms) -> np.float32:
    """x - retention + rise + read_disturb of one cell (float32): the deterministic part
    of its effective Vth (see sense_kernel). Inlined: the scalar conversions are loop
    invariants of the caller."""
    x0_mV, ret_mean, ret_dev, ret_rise, rise_to_mV, rd_per_mV, vpass_mV = drift
    zero = np.float32(0.0)
    x0 = np.float32(x0_mV)
    d = max(x - x0, zero)
    dev = np.float32(ret_dev) * _personality_units(personality)
    loss = max(np.float32(ret_mean) * d + dev * np.sqrt(d), zero)
    rise = np.float32(ret_rise) * max(np.float32(rise_to_mV) - x, zero)
    return x - loss + rise + np.float32(rd_per_mV) * max(np.float32(vpass_mV) - x, zero)


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S48 = np.uint64(48)
_S32 = np.uint64(32)
_S40 = np.uint64(40)
_S16 = np.uint64(16)
_LOW16 = np.uint64(0xFFFF)
_LOW32 = np.uint64(0xFFFFFFFF)


@njit(cache=True, inline="always")
def _mix64(z: np.uint64) -> np.uint64:
    """SplitMix64 finaliser: a counter-based hash, so cell i's draw needs no state."""
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True, inline="always")
def _normal(h: np.uint64, body: np.ndarray, tail: np.ndarray, far: np.ndarray) -> np.float32:
    """Standard normal from 64 hash bits by inverse-CDF table.

    The top 16 bits pick one of 65536 equal-probability buckets (`body`,
    quantiles at k/2^16), the next 16 interpolate inside it. The two end buckets
    (`_normal_tail`, out of line: 1 draw in 2^15) resolve more bits, so every bucket
    carries its exact probability and the tails stay Gaussian out to 8.2 sigma (2^-56).
    """
    last = np.int64(65535)
    idx = np.int64(h >> _S48)
    sub = np.int64((h >> _S32) & _LOW16)
    if idx == 0 or idx == last:
        return _normal_tail(h, idx, sub, tail, far)
    frac = np.float32(sub) * np.float32(1.0 / 65536.0)
    lo = body[idx]
    return lo + frac * (body[idx + 1] - lo)


@njit(cache=True, inline="never")
def _normal_tail(
    h: np.uint64, idx: np.int64, sub: np.int64, tail: np.ndarray, far: np.ndarray
) -> np.float32:
    """An end bucket of _normal: `sub` (16 more bits) in `tail` (lower-tail quantiles at
    k/2^32), and in its own end sub-bucket the last 16 bits in `far` (k/2^48); mirrored
    for the upper end. Out of line, with `sub` computed by the caller: so arranged, the
    common path measured ~2-6 ns a draw, other arrangements 25-40 ns."""
    last = np.int64(65535)
    fine = np.float32((h >> _S16) & _LOW16) * np.float32(1.0 / 65536.0)
    if idx == last:
        sub = last - sub
        fine = np.float32(1.0) - fine
    if sub == 0:
        k = np.int64(h & _LOW16)
        if idx == last:
            k = last - k
        lo = far[k]
        z = lo + fine * (far[k + 1] - lo)
    else:
        lo = tail[sub]
        z = lo + fine * (tail[sub + 1] - lo)
    return z if idx == 0 else -z


@njit(cache=True, fastmath=True)
def normal_fill_int(
    out: np.ndarray,
    key: np.uint64,
    body: np.ndarray,
    tail: np.ndarray,
    far: np.ndarray,
    mean: float,
    scale: float,
    lo: float,
    hi: float,
) -> None:
    """out[i] = clip(round(mean + scale * z_i), lo, hi) for an integer array `out`,
    z_i the standard normal draws of stream `key`."""
    m = np.float32(mean)
    sc = np.float32(scale)
    vlo = np.float32(lo)
    vhi = np.float32(hi)
    for i in range(out.shape[0]):
        z = _normal(_mix64(key + np.uint64(i) * _GOLDEN), body, tail, far)
        out[i] = np.int32(np.rint(min(max(m + sc * z, vlo), vhi)))


@njit(cache=True, inline="always")
def _uniform53(h: np.uint64) -> np.float64:
    """Uniform [0, 1) from the top 53 hash bits: resolves probabilities down to 2^-53."""
    # through int64: x86 converts a signed integer in one instruction, an unsigned one not
    return np.float64(np.int64(h >> np.uint64(11))) * (1.0 / 9007199254740992.0)


# The read noise's tail (sensing.ReadNoise): physics.RTN_TAIL_UNITS / RTN_TABLE_ONE (the
# kernels do not import physics: it loads them); a cell is in the tail with p = e^-start
_TAIL_START = 7.0
_TAIL_LOG_KEEP = math.log1p(-math.exp(-_TAIL_START))  # ln(1 - p)
_TAIL_ONE = 1024.0


@njit(cache=True, inline="always")
def _rtn_tail(key: np.uint64, t: np.uint64) -> tuple[np.int64, np.float32]:
    """(gap, rtn) of the t-th tail cell of a sensing whose tail key is `key`.

    Every cell is in the tail independently with p = e^-RTN_TAIL_UNITS: the gaps between
    tail cells are geometric, P(gap > k) = (1 - p)^k (the first cell is at gap - 1). A tail
    cell's RTN (table units) is +-(RTN_TAIL_UNITS + Exp(1)): the Laplacian beyond the tail's
    start exactly (it is memoryless), from 53-bit uniforms, so up to 36.7 units past it.
    """
    h = _mix64(key + t * _GOLDEN)
    gap = np.int64(np.log(1.0 - _uniform53(h)) / _TAIL_LOG_KEEP) + 1
    h2 = _mix64(h)
    mag = _TAIL_START - np.log(1.0 - _uniform53(h2))
    sign = 1.0 - 2.0 * np.float64(h2 & np.uint64(1))
    return gap, np.float32(sign * mag * _TAIL_ONE)


@njit(cache=True, fastmath=True)
def sense_kernel(
    vth: np.ndarray,
    personality: np.ndarray,
    rtn: np.ndarray,
    out: np.ndarray,
    ref_mV: float,
    drift: DriftTerms,
    rtn_per_unit: float,
    tail_key: np.uint64,
) -> None:
    """out[i] = Vth_eff[i] < ref_mV (the cell conducts).

    Vth_eff = x - retention + rise + read_disturb + rtn, with x the stored Vth (mV):
    retention = max(ret_mean * d + ret_dev * personality * sqrt(d), 0), d = max(x - x0, 0)
    (charge only leaves a programmed cell: a tight cell loses nothing, it never gains; the
    personality decoded from its int8 code);
    rise = ret_rise * max(rise_to - x, 0) (a cell below the erased-state shift's neutral
    Vth drifts up toward it);
    read_disturb = rd_per_mV * max(vpass - x, 0); rtn = rtn_per_unit * the body table's
    slice, or for the sensing's tail cells (`tail_key`, _rtn_tail) their tail value.
    """
    ref = np.float32(ref_mV)
    rs = np.float32(rtn_per_unit)
    n = vth.shape[0]
    for i in range(n):
        eff = _drifted(np.float32(vth[i]), np.float32(personality[i]), drift)
        out[i] = eff + rs * np.float32(rtn[i]) < ref
    pos, t = np.int64(-1), np.uint64(0)
    while True:
        gap, units = _rtn_tail(tail_key, t)
        pos += gap
        if pos >= n:
            break
        eff = _drifted(np.float32(vth[pos]), np.float32(personality[pos]), drift)
        out[pos] = eff + rs * units < ref
        t += np.uint64(1)


@njit(cache=True, fastmath=True)
def drift_kernel(
    vth: np.ndarray, personality: np.ndarray, out: np.ndarray, drift: DriftTerms
) -> None:
    """out[i] = x - retention + rise + read_disturb (float32): the deterministic part of
    sense_kernel's Vth_eff, the same terms in the same order."""
    for i in range(vth.shape[0]):
        out[i] = _drifted(np.float32(vth[i]), np.float32(personality[i]), drift)


@njit(cache=True, fastmath=True)
def sense_drifted_kernel(
    drifted: np.ndarray,
    rtn: np.ndarray,
    out: np.ndarray,
    ref_mV: float,
    rtn_per_unit: float,
    tail_key: np.uint64,
) -> None:
    """out[i] = drifted[i] + rtn < ref_mV: sense_kernel with its deterministic part
    precomputed by drift_kernel (fresh RTN every call, the same body and tail)."""
    ref = np.float32(ref_mV)
    rs = np.float32(rtn_per_unit)
    n = drifted.shape[0]
    for i in range(n):
        out[i] = drifted[i] + rs * np.float32(rtn[i]) < ref
    pos, t = np.int64(-1), np.uint64(0)
    while True:
        gap, units = _rtn_tail(tail_key, t)
        pos += gap
        if pos >= n:
            break
        out[pos] = drifted[pos] + rs * units < ref
        t += np.uint64(1)


@njit(cache=True, fastmath=True)
def rtn_tail_fold(
    row: np.ndarray, table: np.ndarray, offset: int, tail_key: np.uint64, rtn_per_unit: float
) -> None:
    """row[i] (drifted Vth, float32) += rtn_per_unit * (tail value - table[offset + i]) for
    the sensing's tail cells: a kernel that adds the body table's slice to `row` (MWS)
    then applies their tail value instead."""
    rs = np.float32(rtn_per_unit)
    n = row.shape[0]
    pos, t = np.int64(-1), np.uint64(0)
    while True:
        gap, units = _rtn_tail(tail_key, t)
        pos += gap
        if pos >= n:
            break
        row[pos] += rs * (units - np.float32(table[offset + pos]))
        t += np.uint64(1)


@njit(cache=True, inline="always")
def shortfall_mV(u: float, scale: float, knee: float, tail: float) -> float:
    """SLC verify shortfall of a uniform u in [0, 1): E = scale * Exp(1) up to the knee,
    knee + tail * sqrt(2 (E - knee) / scale) beyond, so that
    P(drop > knee + y) = exp(-knee / scale) * exp(-y^2 / (2 tail^2))."""
    e = -scale * np.log(1.0 - u)
    if e > knee:
        e = knee + tail * np.sqrt(2.0 * (e - knee) / scale)
    return e


@njit(cache=True, fastmath=True)
def personality_fill(
    out: np.ndarray,
    key: np.uint64,
    body: np.ndarray,
    tail: np.ndarray,
    far: np.ndarray,
    outlier_rate: float,
    outlier_spread: float,
) -> None:
    """out[i] (int8): the companded personality of cell i (see _personality_units): z_i
    of stream `key`, times outlier_spread for a fraction outlier_rate of the cells."""
    # an outlier: the low 32 bits of the cell's hash below rate x 2^32. _normal reads only
    # the top 32 bits but in its end buckets (1 draw in 2^15), so the two are independent
    # but for those
    below = np.int64(outlier_rate * 4294967296.0)
    spread = np.float32(outlier_spread)
    knee = _P_KNEE
    for i in range(out.shape[0]):
        h = _mix64(key + np.uint64(i) * _GOLDEN)
        z = _normal(h, body, tail, far) * np.float32(32.0)
        outlier = np.int64(h & _LOW32) < below
        z *= np.float32(1.0) + (spread - np.float32(1.0)) * np.float32(outlier)
        excess = max(abs(z) - knee, np.float32(0.0))
        u = z - np.float32(np.copysign(excess, z)) * (np.float32(1.0) - np.float32(1.0) / (
            _P_STRETCH_LESS_1 + np.float32(1.0)))
        out[i] = np.int32(np.rint(min(max(u, np.float32(-127.0)), np.float32(127.0))))


@njit(cache=True, inline="always")
def _uniform(h: np.uint64) -> np.float32:
    """Uniform [0, 1) from the top 24 hash bits."""
    return np.float32(h >> _S40) * np.float32(1.0 / 16777216.0)


@njit(cache=True, fastmath=True)
def program_kernel(
    vth: np.ndarray,
    level: np.ndarray,
    pages: np.ndarray,
    present: int,
    known: int,
    codes: np.ndarray,
    lowest: np.ndarray,
    verify: np.ndarray,
    keys: np.ndarray,
    body: np.ndarray,
    tail: np.ndarray,
    far: np.ndarray,
    step_mV: float,
    prog_sigma_mV: float,
    wear_sigma_mV: float,
    below: np.ndarray,
    coupling: float,
    vth_min: int,
    vth_max: int,
    coupling_diag: float = 0.0,
    short_scale_mV: float = 0.0,
    short_max_mV: float = 0.0,
    short_tail_mV: float = 0.0,
    disturb_mV: int = 0,
) -> int:
    """One program operation on one WL, in place; returns the bit set of states verified.

    Per cell j: the page bits of `known` (bit p = page type p written so far or
    now) come from `pages[p]` (packed, little bit order) when bit p of `present`
    (a subset of `known`) is set, else from the cell's stored `level` through
    `codes`; the target is `lowest[key]`. A cell whose target differs from its level and is
    programmed lands at verify[target] + uniform(0, step) + prog_sigma * z_static
    + wear_sigma * z_wear and never loses charge (Vth = max(old, landing)).
    Draws are counter-based: keys[0] static offset (lifelong), keys[1] landing,
    keys[2] wear. `below` (empty if none) is the string neighbour programmed
    earlier: it gains coupling * (new - old) Vth of this cell, and its cells on the two
    adjacent bitlines (j - 1, j + 1) gain coupling_diag * (new - old) each.
    short_scale_mV > 0 (SLC verify shortfall): the landing drops by E = short_scale_mV *
    Exp(1) (53-bit uniform of keys[3]) up to the knee short_max_mV, and by
    knee + short_tail_mV * sqrt(2 (E - knee) / short_scale_mV) beyond it, so
    P(drop > knee + y) = exp(-knee / scale) exp(-y^2 / (2 tail^2)): no hard bound.
    disturb_mV (program disturb): every cell that stays erased (inhibited) rises by it.
    """
    bits = pages.shape[0]
    step = np.float32(step_mV)
    ps = np.float32(prog_sigma_mV)
    ws = np.float32(wear_sigma_mV)
    cpl = np.float32(coupling)
    cpd = np.float32(coupling_diag)
    has_below = below.shape[0] == vth.shape[0]
    has_diag = has_below and coupling_diag > 0.0
    has_short = short_scale_mV > 0.0
    ss = np.float64(short_scale_mV)
    smax = np.float64(short_max_mV)
    stail = np.float64(short_tail_mV)
    pd = np.int32(disturb_mV)
    n = vth.shape[0]
    # pass 1, free of data-dependent branches: every cell's target; the cells that
    # move listed in order (the landing pass below then mispredicts nothing per cell)
    moved = np.empty(n, dtype=np.int32)
    m = 0
    from_code = known & ~present
    for j in range(n):
        lvl = level[j]
        byte, shift = j >> 3, j & 7
        from_pages = 0
        for p in range(bits):
            from_pages |= ((pages[p, byte] >> shift) & 1) << p
        target = lowest[(codes[lvl] & from_code) | (from_pages & present)]
        level[j] = target
        vth[j] = min(vth[j] + pd * np.int32(target == 0), vth_max)
        moved[m] = j
        m += (target != lvl) & (target != 0)
    verified = 0
    for t in range(m):
        j = moved[t]
        target = level[j]
        verified |= 1 << target
        c = np.uint64(j) * _GOLDEN
        landing = (
            verify[target]
            + _uniform(_mix64(keys[1] + c)) * step
            + _normal(_mix64(keys[0] + c), body, tail, far) * ps
            + _normal(_mix64(keys[2] + c), body, tail, far) * ws
        )
        if has_short:
            u = _uniform53(_mix64(keys[3] + c))
            landing -= np.float32(shortfall_mV(u, ss, smax, stail))
        old = vth[j]
        new = np.int32(np.rint(min(max(landing, np.float32(old)), np.float32(vth_max))))
        vth[j] = new
        if has_below:
            shifted = below[j] + np.int32(np.rint(cpl * np.float32(new - old)))
            below[j] = min(max(shifted, vth_min), vth_max)
        if has_diag:
            dd = np.int32(np.rint(cpd * np.float32(new - old)))
            if j > 0:
                below[j - 1] = min(max(below[j - 1] + dd, vth_min), vth_max)
            if j + 1 < n:
                below[j + 1] = min(max(below[j + 1] + dd, vth_min), vth_max)
    return verified

