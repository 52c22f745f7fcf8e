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
Ks*Kd*N^0.5*D*(x-x0) and variance Ks*Km*N^0.6*D*(x-x0), with the dose
D = ln(1+t_slow/t0) + w_fast*(1-exp(-t_fast/tau)): a slow component (Dong's) and an
optional fast one (shallow-trap de-trapping of charge-trap cells). The per-cell
deviation is static: it is the cell's stored personality, so a leaky cell stays leaky
across reads; a small outlier population (tail bits) has a wider one. A cell's loss is
clamped at zero: retention removes charge, it never adds any. The erased-state shift
(physics.erased_shift) lets cells below a neutral Vth climb toward it.

Each thermally activated mechanism keeps its own clock (`Clock`): a bake at T adds
hours x exp(Ea/k (1/T_ref - 1/T)) with the mechanism's own Ea, so a bake planned with
one activation energy ages the others more or less than the retention it stands for.

Distributions have no hard bounds: the inverse-CDF tables resolve the normal's tails to
2^-56 (8.2 sigma), the personality keeps 3 sigma exactly and compresses beyond (to 12.7
sigma), the SLC verify shortfall rolls off as a Gaussian past its knee, and the read
noise's Laplacian tail is drawn cell by cell (kernel._rtn_tail) out to 44 scale units.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import IntEnum
from functools import cache
from statistics import NormalDist

import numpy as np
from numpy.typing import DTypeLike

from nandlab.profiles.physics_model import Ispp, Physics
from nandlab.vchip.cells import Ages

BOLTZMANN_EV_PER_K = 8.617333262e-5  # CODATA 2018 (exact SI k / e)
KELVIN_OFFSET = 273.15

# Personality int8 = round(u * PERSONALITY_SCALE), u = z within PERSONALITY_KNEE sigmas
# of a (standard normal, or outlier-wide) z, compressed PERSONALITY_STRETCH times beyond:
# the core is exact, the tails reach 3 + 0.97 x 10 = 12.7 sigma (kernel._personality_z).
PERSONALITY_SCALE = 32.0
PERSONALITY_KNEE = 3.0
PERSONALITY_STRETCH = 10.0
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
# RTN beyond RTN_TAIL_UNITS Laplacian units (a cell in e^-7 = 9.1e-4 per sensing) is not in
# the table: the kernels draw those cells and their values exactly (kernel._rtn_tail), from
# 53-bit uniforms, so |RTN| reaches RTN_MAX_UNITS (probability 2^-53 past the tail's start).
RTN_TAIL_UNITS = 7.0
RTN_MAX_UNITS = RTN_TAIL_UNITS + 53.0 * math.log(2.0)
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
    VARIATION = 10


class Clock(IntEnum):
    """The thermally activated mechanisms, each with its own effective age (cells.Ages)."""

    CHARGE_LOSS = 0  # slow charge loss (Dong et al.), physics.activation_energy_eV
    FAST_DETRAP = 1  # physics.fast_charge_loss
    ERASED_SHIFT = 2  # physics.erased_shift


def clock_energies(phys: Physics) -> tuple[float, float, float]:
    """Activation energy (eV) of each clock; a mechanism the profile lacks takes the slow
    charge loss's (its clock is then never read)."""
    ea = phys.activation_energy_eV
    fast, er = phys.fast_charge_loss, phys.erased_shift
    return (
        ea,
        fast.activation_energy_eV if fast is not None else ea,
        er.activation_energy_eV if er is not None else ea,
    )


def acceleration(ea_eV: float, ref_C: float, temp_C: float) -> float:
    """Hours at ref_C equivalent to one hour at temp_C for a mechanism of energy ea_eV."""
    t = temp_C + KELVIN_OFFSET
    t_ref = ref_C + KELVIN_OFFSET
    return math.exp(ea_eV / BOLTZMANN_EV_PER_K * (1.0 / t_ref - 1.0 / t))


def advance(phys: Physics, ages: Ages, temp_C: float, hours: float) -> Ages:
    """`ages` after `hours` at temp_C: every clock by its own Arrhenius factor."""
    ref = phys.reference_temp_C
    return tuple(
        a + hours * acceleration(ea, ref, temp_C)
        for a, ea in zip(ages, clock_energies(phys), strict=True)
    )


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
def normal_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Inverse normal CDF tables of kernel._normal: body at k/2^16, lower tail at k/2^32,
    far tail at k/2^48 (its first entry at 2^-56: 8.2 sigma)."""
    inv = NormalDist().inv_cdf
    body = [inv(min(max(k / 65536.0, 2.0**-34), 1.0 - 2.0**-34)) for k in range(65537)]
    tail = [inv(max(k / 2.0**32, 2.0**-50)) for k in range(65537)]
    far = [inv(max(k / 2.0**48, 2.0**-56)) for k in range(65537)]
    return (
        np.array(body, dtype=np.float32),
        np.array(tail, dtype=np.float32),
        np.array(far, dtype=np.float32),
    )


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
    """Hours at the reference temperature equivalent to one hour at temp_C, for the slow
    charge loss (physics.activation_energy_eV)."""
    return acceleration(phys.activation_energy_eV, phys.reference_temp_C, temp_C)


def personality(
    phys: Physics, seed: int, chip: int, block: int, wl: int, cells: int
) -> np.ndarray:
    """The cells' personality (int8, companded: kernel._personality_z): their static
    leakiness, fixed for life (keyed without the erase count, so it survives erases); a
    fraction physics.outlier_rate of the cells draws it physics.outlier_spread x wider."""
    from nandlab.vchip.kernel import personality_fill

    out = np.empty(cells, dtype=np.int8)
    personality_fill(
        out,
        stream_key(seed, chip, Stream.STATIC, block, wl, 0),
        *normal_tables(),
        phys.outlier_rate,
        phys.outlier_spread,
    )
    return out


def personality_z(code: float) -> float:
    """The personality in sigmas that an int8 code stands for (kernel._personality_z)."""
    u = code / PERSONALITY_SCALE
    return u + math.copysign(max(abs(u) - PERSONALITY_KNEE, 0.0), u) * (PERSONALITY_STRETCH - 1)


class SpatialVariation:
    """Chip-to-chip, block-to-block and layer variation of one die (physics.variation),
    from (seed, chip): the retention rate's factor per (block, WL) and the erased mean's
    offset per block."""

    def __init__(self, phys: Physics, seed: int, chip: int, wls: int, sub_blocks: int) -> None:
        self._v = phys.variation
        self._seed, self._chip = seed, chip
        z = keyed_rng(seed, chip, Stream.VARIATION).standard_normal(2)
        self.chip_retention = math.exp(self._v.chip_retention_sigma * float(z[0]))
        self.chip_erased_mV = self._v.chip_erased_sigma_mV * float(z[1])
        self._sub_blocks = sub_blocks
        self._layers = max(wls // sub_blocks, 1)
        self._blocks: dict[int, tuple[float, float]] = {}

    def _block(self, block: int) -> tuple[float, float]:
        hit = self._blocks.get(block)
        if hit is None:
            z = keyed_rng(self._seed, self._chip, Stream.VARIATION, block).standard_normal(2)
            hit = self._blocks[block] = (
                math.exp(self._v.block_retention_sigma * float(z[0])),
                self._v.block_erased_sigma_mV * float(z[1]),
            )
        return hit

    def layer_retention(self, wl: int) -> float:
        """Relative retention rate of the WL's layer (WL 0 at the bottom layer)."""
        layer = wl // self._sub_blocks
        top = self._layers - 1
        pos = layer / top if top > 0 else 0.5
        edge = self._v.edge_layer_retention if top > 0 and layer in (0, top) else 0.0
        return 1.0 + self._v.layer_retention_slope * (0.5 - pos) + edge

    def retention(self, block: int, wl: int) -> float:
        """Factor on the retention (charge loss, erased shift) rate of cell WL (block, wl)."""
        return self.chip_retention * self._block(block)[0] * self.layer_retention(wl)

    def erased_offset_mV(self, block: int) -> float:
        """Offset of the block's erased mean (mV) from the profile's."""
        return self.chip_erased_mV + self._block(block)[1]


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
    phys: Physics,
    seed: int,
    chip: int,
    block: int,
    wl: int,
    erase_count: int,
    cells: int,
    offset_mV: float = 0.0,
) -> np.ndarray:
    """Erased Vth (int16 mV) of one WL after erase number `erase_count` (wear-shifted;
    `offset_mV`: the block's spatial variation)."""
    key = stream_key(seed, chip, Stream.ERASED, block, wl, erase_count)
    wf = wear_factor(phys, erase_count)
    mean = phys.erased_mean_mV + phys.wear_erased_shift_mV_at_10k * wf + offset_mV
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


def slc_shortfall(phys: Physics, pec: int) -> tuple[float, float, float]:
    """(exponential scale, knee, tail width) in mV of the SLC verify shortfall at `pec`
    P/E cycles (physics.slc_verify_shortfall; zeros = none)."""
    s = phys.slc_verify_shortfall
    if s is None:
        return 0.0, 0.0, 0.0
    return s.scale(wear_factor(phys, pec)), s.max_mV, s.tail_mV


def program_disturb(phys: Physics, pec: int) -> int:
    """Rise (mV) of each inhibited erased cell of a WL per program operation."""
    return round(phys.program_disturb_mV * (1.0 + 2.0 * wear_factor(phys, pec)) / 3.0)


def wear_sigma(phys: Physics, pec: int) -> float:
    """Programmed-state spread (mV) that P/E wear adds, redrawn by every program."""
    return phys.wear_sigma_mV_at_10k * wear_factor(phys, pec)


def erased_eff_bounds(
    phys: Physics, erase_count: int, c: SenseCoefficients, offset_mV: float = 0.0
) -> tuple[float, float]:
    """Bounds (mV) on every Vth_eff that sensing an unprogrammed WL can produce.

    The draws' extremes are finite (the far-tail table's 8.2 sigma, the personality's
    12.7 sigma, RTN_MAX_UNITS), so a reference outside these bounds gives a
    known answer; the bounds are wide enough that no finite sample gets near them.
    """
    z_max = -float(normal_tables()[2][0])
    wf = wear_factor(phys, erase_count)
    mean = phys.erased_mean_mV + phys.wear_erased_shift_mV_at_10k * wf + offset_mV
    sigma = math.hypot(phys.erased_sigma_mV, phys.wear_erased_sigma_mV_at_10k * wf)
    x_lo, x_hi = math.floor(mean - z_max * sigma), math.ceil(mean + z_max * sigma)
    d_hi = max(x_hi - c.x0_mV, 0.0)
    dev = c.ret_dev * personality_z(127) * PERSONALITY_SCALE * math.sqrt(d_hi)
    rtn = c.rtn_per_unit * RTN_TABLE_ONE * RTN_MAX_UNITS
    hi = (x_hi + dev + c.ret_rise * max(c.rise_to_mV - x_lo, 0.0)
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


def laplace_body_table(seed: int, chip: int, size: int) -> np.ndarray:
    """The body of the standard Laplacian, |L| <= RTN_TAIL_UNITS, in fixed point (int16,
    RTN_TABLE_ONE = 1.0): its quantiles at (k + 1/2) / (size / 2) on each side, shuffled by
    (seed, chip), so every slice is a sample and the whole table has the exact body."""
    half = size // 2
    q = (np.arange(half) + 0.5) / half
    body = -np.log1p(-q * -math.expm1(-RTN_TAIL_UNITS))  # |L| given |L| <= tail start
    v = np.rint(np.concatenate([body, -body]) * RTN_TABLE_ONE).astype(np.int16)
    keyed_rng(seed, chip, Stream.RTN_TABLE).shuffle(v)
    return v


@dataclass(frozen=True)
class SenseCoefficients:
    """Per-WL scalars of one sensing (see kernel.sense_kernel)."""

    x0_mV: float  # retention: no loss below this Vth
    ret_mean: float  # retention mean loss per mV above x0
    ret_dev: float  # retention deviation per sqrt(mV above x0) per personality unit
    ret_rise: float  # erased-state shift: gain per mV below rise_to_mV
    rise_to_mV: float  # the neutral Vth that the erased-state shift approaches
    rd_per_mV: float  # read-disturb gain per mV below vpass
    vpass_mV: float
    rtn_per_unit: float  # RTN mV per Laplace table unit

    @property
    def drift(self) -> tuple[float, float, float, float, float, float, float]:
        """The terms of the deterministic Vth shift, in kernel.DriftTerms order."""
        return (self.x0_mV, self.ret_mean, self.ret_dev, self.ret_rise, self.rise_to_mV,
                self.rd_per_mV, self.vpass_mV)


def retention_dose(phys: Physics, ages: Ages) -> float:
    """D of the retention mean and variance: ln(1 + t/t0) on the slow clock plus the fast
    component's w (1 - exp(-t/tau)) on its own."""
    dose = math.log1p(max(ages[Clock.CHARGE_LOSS], 0.0) / phys.retention_t0_h)
    fast = phys.fast_charge_loss
    if fast is not None:
        dose += fast.weight * -math.expm1(-max(ages[Clock.FAST_DETRAP], 0.0) / fast.tau_h)
    return dose


def sense_coefficients(
    phys: Physics, pec: int, ages: Ages, other_reads: int, retention_factor: float = 1.0
) -> SenseCoefficients:
    """Scalars for sensing a WL with `pec` cycles, programmed `ages` (effective hours per
    Clock) ago, after `other_reads` reads of the block's other WLs since then;
    `retention_factor`: the WL's spatial variation of the retention rate."""
    n = max(float(pec), phys.retention_pec_floor)
    rate = phys.retention_ks * math.sqrt(n) * retention_factor
    dose = retention_dose(phys, ages)
    ret_mean = rate * phys.retention_kd * dose
    ret_var_per_V = phys.retention_ks * phys.retention_km * n**0.6 * dose * retention_factor
    # std_V = sqrt(k * d_V) -> std_mV = sqrt(1000 k) * sqrt(d_mV)
    ret_dev = math.sqrt(1000.0 * ret_var_per_V) / PERSONALITY_SCALE
    er = phys.erased_shift
    rise, rise_to = 0.0, phys.retention_x0_mV
    if er is not None:
        er_dose = math.log1p(max(ages[Clock.ERASED_SHIFT], 0.0) / phys.retention_t0_h)
        # a rising cell approaches the neutral Vth, it never passes it
        rise, rise_to = min(er.ratio * rate * phys.retention_kd * er_dose, 1.0), er.neutral_mV
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
        ret_rise=rise,
        rise_to_mV=rise_to,
        rd_per_mV=rd_mV / phys.vpass_mV,
        vpass_mV=phys.vpass_mV,
        rtn_per_unit=rtn_mV / RTN_TABLE_ONE,
    )
