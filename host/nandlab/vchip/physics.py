"""Cell physics of the virtual die (contract 5), in millivolts and hours.

Pure functions of the profile's `physics` section: deterministic per-cell draws
keyed by (seed, chip, block, wl, ...), wear scaling, ISPP loop counts, the
Arrhenius acceleration of retention, and the per-WL scalar coefficients that the
kernels (`nandlab.vchip.kernel`) apply to every cell.

Per-cell draws are counter-based: a numpy SeedSequence of (seed, chip, purpose,
block, wl, ...) gives a 64-bit stream key, and cell i's draw is a hash of
(key, i) turned into a normal by an exact-probability inverse-CDF table. So
any cell's draw is reproducible alone (the program kernel draws only for the
cells it programs), and a WL costs a fraction of numpy's generators.

Retention follows Dong, Li and Zhang's MLC channel model: for a cell at Vth x
(volts) the loss after t hours at the reference temperature has mean
Ks*Kd*N^0.5*ln(1+t/t0)*(x-x0) and variance Ks*Km*N^0.6*ln(1+t/t0)*(x-x0).
The per-cell deviation is static: it is the cell's stored personality, so a
leaky cell stays leaky across reads. A cell's loss is clamped at zero: retention
removes charge, it never adds any. A profile may also let cells below x0 drift up
toward it (physics.retention_rise_ratio, default 0): x0 then acts as the neutral
Vth that erased cells approach (hole de-trapping, charge spreading from programmed
neighbours) while programmed cells leave it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import IntEnum
from functools import cache
from statistics import NormalDist

import numpy as np
from numpy.typing import DTypeLike

from nandlab.profiles.model import Ispp, Physics

BOLTZMANN_EV_PER_K = 8.617333e-5
KELVIN_OFFSET = 273.15

# Personality int8 = round(z * PERSONALITY_SCALE) of a standard normal z,
# clipped to int8: +-127/32 keeps the tails out to ~4 sigma.
PERSONALITY_SCALE = 32.0
# Stuck cells sit far outside any reference the DAC can reach, so no shift
# (retention, read disturb, RTN, interference) can move them across one.
STUCK_HIGH_MV = 30000
STUCK_LOW_MV = -30000
VTH_MIN_MV = -32000
VTH_MAX_MV = 32000
# Slowest cell that ISPP must still bring to verify, in speed sigmas.
SLOWEST_CELL_SIGMAS = 3.5
# Fixed point of the RTN table: one standard Laplacian unit.
RTN_TABLE_ONE = 1024.0
ERASE_PULSES_FRESH = 3
ERASE_PULSES_AT_ENDURANCE = 5
# Erase wear-out life, in multiples of endurance_pec: lognormal, median 3x.
WEAROUT_MEDIAN_X = 3.0
WEAROUT_LOG_SIGMA = 0.25


class Stream(IntEnum):
    """Purpose tag of a deterministic random stream (part of its key)."""

    STATIC = 1  # personality (0) + static program offset (1): fixed for the cell's life
    STUCK = 2  # stuck-cell positions and values: fixed for the cell's life
    ERASED = 3  # erased Vth: redrawn by every erase
    PROGRAM = 4  # ISPP landing + wear spread of one program operation
    BAD_BLOCKS = 5
    WEAROUT = 6
    RTN_TABLE = 7
    READ_NOISE = 8
    BAD_BLOCK_DATA = 9


def keyed_rng(seed: int, chip: int, stream: Stream, *key: int) -> np.random.Generator:
    """A Philox generator fully determined by (seed, chip, stream, *key)."""
    return np.random.Generator(np.random.Philox(_seed_sequence(seed, chip, stream, key)))


def _seed_sequence(
    seed: int, chip: int, stream: Stream, key: tuple[int, ...]
) -> np.random.SeedSequence:
    entropy = [int(seed) & 0xFFFFFFFFFFFFFFFF, int(chip), int(stream), *(int(k) for k in key)]
    return np.random.SeedSequence(entropy)


def stream_key(seed: int, chip: int, stream: Stream, *key: int) -> np.uint64:
    """64-bit key of a counter-based stream (kernel._normal / _uniform), from the
    SeedSequence of (seed, chip, stream, *key)."""
    return np.uint64(_seed_sequence(seed, chip, stream, key).generate_state(1, np.uint64)[0])


@cache
def normal_tables() -> tuple[np.ndarray, np.ndarray]:
    """Inverse normal CDF tables of kernel._normal: body at k/2^16, lower tail at k/2^32."""
    inv = NormalDist().inv_cdf
    smallest = 2.0**-34
    body = [inv(min(max(k / 65536.0, smallest), 1.0 - smallest)) for k in range(65537)]
    tail = [inv(max(k / 2.0**32, smallest)) for k in range(65537)]
    return np.array(body, dtype=np.float32), np.array(tail, dtype=np.float32)


def normals_int(
    key: np.uint64, cells: int, dtype: DTypeLike, mean: float, scale: float, lo: float, hi: float
) -> np.ndarray:
    """clip(round(mean + scale * z), lo, hi) as `dtype`, z the normal draws of stream `key`."""
    # numba loads with the kernels, on the first draw: a die that is only identified
    # (`nandlab info`) never pays for it
    from nandlab.vchip.kernel import normal_fill_int

    out: np.ndarray = np.empty(cells, dtype=dtype)
    normal_fill_int(out, key, *normal_tables(), mean, scale, lo, hi)
    return out


def wear_factor(phys: Physics, pec: int) -> float:
    """Scale of the wear terms quoted at 10K P/E cycles (`Physics.wear_factor`: power law
    (pec / 10K) ** wear_exponent, or saturating with physics.wear_saturation_pec)."""
    return phys.wear_factor(pec)


def arrhenius_factor(phys: Physics, temp_C: float) -> float:
    """Hours at the reference temperature equivalent to one hour at temp_C."""
    t = temp_C + KELVIN_OFFSET
    t_ref = phys.reference_temp_C + KELVIN_OFFSET
    return math.exp(phys.activation_energy_eV / BOLTZMANN_EV_PER_K * (1.0 / t_ref - 1.0 / t))


def personality(seed: int, chip: int, block: int, wl: int, cells: int) -> np.ndarray:
    """The cells' personality (int8): their static leakiness, fixed for life
    (keyed without the erase count, so it survives erases)."""
    key = stream_key(seed, chip, Stream.STATIC, block, wl, 0)
    return normals_int(key, cells, np.int8, 0.0, PERSONALITY_SCALE, -127, 127)


def stuck_cells(
    phys: Physics, seed: int, chip: int, block: int, wl: int, cells: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """(indices, stuck_high bool) of the WL's stuck cells, or None if it has none."""
    if phys.stuck_cell_rate <= 0.0:
        return None
    rng = keyed_rng(seed, chip, Stream.STUCK, block, wl)
    count = int(rng.binomial(cells, phys.stuck_cell_rate))
    if count == 0:
        return None
    idx = rng.choice(cells, size=count, replace=False)
    return idx, rng.random(count) < 0.5


def apply_stuck(vth: np.ndarray, stuck: tuple[np.ndarray, np.ndarray] | None) -> None:
    """Pin stuck cells: high ones never conduct (read 0), low ones always do (read 1)."""
    if stuck is not None:
        idx, high = stuck
        vth[idx] = np.where(high, STUCK_HIGH_MV, STUCK_LOW_MV)


def erased_vth(
    phys: Physics, seed: int, chip: int, block: int, wl: int, erase_count: int, cells: int
) -> np.ndarray:
    """Erased Vth (int16 mV) of one WL after erase number `erase_count` (wear-shifted)."""
    key = stream_key(seed, chip, Stream.ERASED, block, wl, erase_count)
    wf = wear_factor(phys, erase_count)
    mean = phys.erased_mean_mV + phys.wear_erased_shift_mV_at_10k * wf
    sigma = math.hypot(phys.erased_sigma_mV, phys.wear_erased_sigma_mV_at_10k * wf)
    out = normals_int(key, cells, np.int16, mean, sigma, VTH_MIN_MV, VTH_MAX_MV)
    apply_stuck(out, stuck_cells(phys, seed, chip, block, wl, cells))
    return out


def program_keys(
    seed: int, chip: int, block: int, wl: int, erase_count: int, programs: int
) -> np.ndarray:
    """Stream keys of kernel.program_kernel: static offset (lifelong), ISPP landing,
    wear spread and SLC verify shortfall (the last three redrawn by every program)."""
    return np.array(
        [
            stream_key(seed, chip, Stream.STATIC, block, wl, 1),
            stream_key(seed, chip, Stream.PROGRAM, block, wl, erase_count, programs, 0),
            stream_key(seed, chip, Stream.PROGRAM, block, wl, erase_count, programs, 1),
            stream_key(seed, chip, Stream.PROGRAM, block, wl, erase_count, programs, 2),
        ],
        dtype=np.uint64,
    )


def slc_shortfall(phys: Physics, pec: int) -> tuple[float, float]:
    """(exponential scale, max) in mV of the SLC verify shortfall at `pec` P/E cycles
    (physics.slc_verify_shortfall; (0, 0) = none)."""
    s = phys.slc_verify_shortfall
    if s is None:
        return 0.0, 0.0
    return s.scale(wear_factor(phys, pec)), s.max_mV


def wear_sigma(phys: Physics, pec: int) -> float:
    """Programmed-state spread (mV) that P/E wear adds, redrawn by every program."""
    return phys.wear_sigma_mV_at_10k * wear_factor(phys, pec)


def erased_eff_bounds(phys: Physics, erase_count: int, c: SenseCoefficients) -> tuple[float, float]:
    """Bounds (mV) on every Vth_eff that sensing an unprogrammed WL can produce.

    The draws are bounded by construction (inverse-CDF table, int8 personality,
    int16 RTN table), so a reference outside these bounds gives a known answer.
    """
    z_max = -float(normal_tables()[1][0])
    wf = wear_factor(phys, erase_count)
    mean = phys.erased_mean_mV + phys.wear_erased_shift_mV_at_10k * wf
    sigma = math.hypot(phys.erased_sigma_mV, phys.wear_erased_sigma_mV_at_10k * wf)
    x_lo, x_hi = math.floor(mean - z_max * sigma), math.ceil(mean + z_max * sigma)
    d_hi = max(x_hi - c.x0_mV, 0.0)
    dev = c.ret_dev * 127 * math.sqrt(d_hi)
    rtn = c.rtn_per_unit * 32767
    hi = (x_hi + dev + c.ret_rise * max(c.x0_mV - x_lo, 0.0)
          + c.rd_per_mV * max(c.vpass_mV - x_lo, 0.0) + rtn)
    lo = x_lo - c.ret_mean * d_hi - dev + c.rd_per_mV * max(c.vpass_mV - x_hi, 0.0) - rtn
    return lo - 1.0, hi + 1.0  # margin for float32 rounding in the kernel


def ispp_loops(phys: Physics, top_verify_mV: float, ispp: Ispp | None = None) -> int:
    """Program pulses until the slowest cell passes the highest verify level, + 1 verify."""
    ispp = ispp or phys.ispp
    span = top_verify_mV - ispp.start_mV + SLOWEST_CELL_SIGMAS * ispp.speed_sigma_mV
    return max(1, math.ceil(span / ispp.step_mV)) + 1


@dataclass(frozen=True)
class IsppTune:
    """Tuned SLC ISPP (ESP). A regular SLC ISPP phase from start_mV to the SLC verify, then,
    if esp_step_mV > 0, an ESP phase from there to verify_mV in steps of esp_step_mV, then
    extra_steps verify-pulse loops that tighten the static program spread."""

    start_mV: float
    esp_step_mV: float
    verify_mV: float
    extra_steps: int


def esp_loops(phys: Physics, ispp: Ispp, tune: IsppTune) -> int:
    """Loops of a tuned (enhanced) SLC program: the regular phase from the tuned start to
    the SLC verify, the ESP phase from there to the raised verify in ESP steps, and the
    extra verify-pulse steps."""
    span = phys.slc_verify_mV - tune.start_mV + SLOWEST_CELL_SIGMAS * ispp.speed_sigma_mV
    loops = max(1, math.ceil(span / ispp.step_mV)) + 1
    if tune.esp_step_mV > 0:
        raise_mV = max(tune.verify_mV - phys.slc_verify_mV, 0.0)
        loops += math.ceil(raise_mV / tune.esp_step_mV) + 1
    return loops + tune.extra_steps


def erase_pulses(phys: Physics, pec: int) -> int:
    """Erase pulses (each with its verify): 3 fresh, rising to 5 at rated endurance."""
    extra = ERASE_PULSES_AT_ENDURANCE - ERASE_PULSES_FRESH
    return ERASE_PULSES_FRESH + round(extra * min(pec / phys.endurance_pec, 1.0))


def wearout_pec(phys: Physics, seed: int, chip: int, block: int) -> float:
    """P/E count at which this block's erase starts to fail (well past endurance)."""
    z = float(keyed_rng(seed, chip, Stream.WEAROUT, block).standard_normal())
    return phys.endurance_pec * WEAROUT_MEDIAN_X * math.exp(WEAROUT_LOG_SIGMA * z)


def factory_bad_blocks(phys: Physics, seed: int, chip: int, blocks: int) -> np.ndarray:
    """Bool per block: factory bad (never block 0)."""
    bad = keyed_rng(seed, chip, Stream.BAD_BLOCKS).random(blocks) < phys.bad_block_rate
    bad[0] = False
    return bad


def bad_block_data(seed: int, chip: int, block: int, wl: int, nbytes: int) -> np.ndarray:
    """What sensing a factory bad block returns: deterministic bytes, mostly zero bits."""
    rng = keyed_rng(seed, chip, Stream.BAD_BLOCK_DATA, block, wl)
    a = rng.integers(0, 256, nbytes, dtype=np.uint8)
    b = rng.integers(0, 256, nbytes, dtype=np.uint8)
    return a & b


def laplace_table(seed: int, chip: int, size: int) -> np.ndarray:
    """Standard Laplacian samples in fixed point (int16, RTN_TABLE_ONE = 1.0)."""
    rng = keyed_rng(seed, chip, Stream.RTN_TABLE)
    v = rng.laplace(0.0, RTN_TABLE_ONE, size)
    return np.clip(np.rint(v), -32767, 32767).astype(np.int16)


@dataclass(frozen=True)
class SenseCoefficients:
    """Per-WL scalars of one sensing (see kernel.sense_kernel)."""

    x0_mV: float  # retention: no loss below this Vth
    ret_mean: float  # retention mean loss per mV above x0
    ret_dev: float  # retention deviation per sqrt(mV above x0) per personality unit
    ret_rise: float  # retention gain per mV below x0 (physics.retention_rise_ratio x ret_mean)
    rd_per_mV: float  # read-disturb gain per mV below vpass
    vpass_mV: float
    rtn_per_unit: float  # RTN mV per Laplace table unit

    @property
    def drift(self) -> tuple[float, float, float, float, float, float]:
        """The terms of the deterministic Vth shift, in kernel.DriftTerms order."""
        return (self.x0_mV, self.ret_mean, self.ret_dev, self.ret_rise, self.rd_per_mV,
                self.vpass_mV)


def sense_coefficients(
    phys: Physics, pec: int, age_h: float, other_reads: int
) -> SenseCoefficients:
    """Scalars for sensing a WL with `pec` cycles, programmed `age_h` equivalent hours ago,
    after `other_reads` reads of the block's other WLs since then."""
    n = max(float(pec), phys.retention_pec_floor)
    log_t = math.log1p(max(age_h, 0.0) / phys.retention_t0_h)
    ret_mean = phys.retention_ks * phys.retention_kd * math.sqrt(n) * log_t
    ret_var_per_V = phys.retention_ks * phys.retention_km * n**0.6 * log_t
    # std_V = sqrt(k * d_V) -> std_mV = sqrt(1000 k) * sqrt(d_mV)
    ret_dev = math.sqrt(1000.0 * ret_var_per_V) / PERSONALITY_SCALE
    rd_mV = (
        phys.read_disturb_mV
        * math.sqrt(1.0 + pec / 1000.0)
        * math.log1p(max(other_reads, 0) / 1000.0)
    )
    rtn_mV = phys.rtn_floor_mV + phys.rtn_kr_mV * math.sqrt(max(pec, 0))
    return SenseCoefficients(
        x0_mV=phys.retention_x0_mV,
        ret_mean=ret_mean,
        ret_dev=ret_dev,
        # a rising cell approaches x0, it never passes it
        ret_rise=min(ret_mean * phys.retention_rise_ratio, 1.0),
        rd_per_mV=rd_mV / phys.vpass_mV,
        vpass_mV=phys.vpass_mV,
        rtn_per_unit=rtn_mV / RTN_TABLE_ONE,
    )
