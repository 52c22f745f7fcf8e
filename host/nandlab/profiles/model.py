"""Chip profile schema (contract 3).

A profile describes one NAND part: identity, geometry, Gray code, timing,
latencies, read-reference offsets (feature addresses, DAC range and step),
vendor / test-mode operations, and, for virtual chips, the physics that the
virtual die simulates. Voltages are in millivolts, times in microseconds unless
a field name says otherwise.
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from nandlab.profiles.coxpm_model import CoxPm
from nandlab.profiles.interfaces_model import Interfaces
from nandlab.profiles.search_model import Search

CellType = Literal["slc", "mlc", "tlc"]
BITS_PER_CELL: dict[str, int] = {"slc": 1, "mlc": 2, "tlc": 3}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Identity(_Strict):
    """What READ ID, the parameter page and READ UNIQUE ID report."""

    manufacturer: str = Field(max_length=12, description="ONFI manufacturer name, <= 12 ASCII")
    model: str = Field(max_length=20, description="ONFI device model, <= 20 ASCII")
    jedec_id: int = Field(ge=0, le=0xFF, description="JEDEC manufacturer ID byte")
    id_bytes: list[int] = Field(
        min_length=3, max_length=8, description="READ ID 00h bytes (byte 2 bits 3:2: cell type)"
    )
    onfi_version: Literal["4.0", "4.1", "4.2", "5.0"] = Field(
        default="4.0", description="newest ONFI revision; the page sets it and every earlier one"
    )
    ecc_bits: int = Field(
        default=0, ge=0, le=0xFE, description="ECC bits the part needs per codeword"
    )
    ecc_codeword_bytes: Literal[512, 1024, 2048, 4096] = Field(
        default=512, description="data bytes per ECC codeword (not 512: extended parameter page)"
    )


class Geometry(_Strict):
    """Array organisation of one LUN (die)."""

    cell: CellType
    page_bytes: int = Field(gt=0, le=65536)
    spare_bytes: int = Field(ge=0, le=8192)
    planes: int = Field(ge=1, le=8)
    blocks_per_plane: int = Field(ge=1, le=65536)
    wls_per_string: int = Field(ge=1, le=512, description="WL layers in one NAND string")
    sub_blocks: int = Field(ge=1, le=16, description="strings (sub-blocks) per block")
    column_cycles: int = Field(default=2, ge=1, le=4)
    row_cycles: int = Field(default=3, ge=1, le=4)
    gray_code: list[list[int]] = Field(
        description="per state L0..L(2^b-1): bit of each page type (index 0 = lower/LSB page)"
    )

    @property
    def bits_per_cell(self) -> int:
        return BITS_PER_CELL[self.cell]

    @property
    def states(self) -> int:
        return 1 << self.bits_per_cell

    @property
    def blocks(self) -> int:
        """Blocks in the LUN (all planes)."""
        return self.planes * self.blocks_per_plane

    @property
    def wls_per_block(self) -> int:
        return self.wls_per_string * self.sub_blocks

    @property
    def pages_per_block(self) -> int:
        """Pages per block in the die's native mode (page = wl * bits + page type)."""
        return self.wls_per_block * self.bits_per_cell

    @property
    def cells_per_wl(self) -> int:
        return (self.page_bytes + self.spare_bytes) * 8

    @property
    def page_address_bits(self) -> int:
        return max(1, (self.pages_per_block - 1).bit_length())

    @property
    def block_address_bits(self) -> int:
        return max(1, (self.blocks - 1).bit_length())

    @model_validator(mode="after")
    def _check_gray(self) -> Geometry:
        b = self.bits_per_cell
        codes = self.gray_code
        if len(codes) != 1 << b or any(len(c) != b for c in codes):
            raise ValueError(
                f"gray_code must list {1 << b} states of {b} bits each for {self.cell}"
            )
        if any(bit not in (0, 1) for c in codes for bit in c):
            raise ValueError("gray_code bits must be 0 or 1")
        if len({tuple(c) for c in codes}) != len(codes):
            raise ValueError("gray_code states must be distinct")
        if codes[0] != [1] * b:
            raise ValueError("gray_code state L0 (erased) must be all ones")
        for lo, hi in zip(codes, codes[1:], strict=False):
            if sum(x != y for x, y in zip(lo, hi, strict=True)) != 1:
                raise ValueError("gray_code: neighbouring states must differ in exactly one bit")
        if self.row_cycles * 8 < self.page_address_bits + self.block_address_bits:
            raise ValueError("row_cycles too small for the page and block address bits")
        return self


class Timing(_Strict):
    """Interface timing modes and array latencies (µs)."""

    sdr_modes: list[int] = Field(default=[0, 1, 2, 3, 4, 5], description="supported SDR modes")
    t_read_base_us: float = Field(gt=0, description="tR overhead besides sensing")
    t_sense_us: float = Field(gt=0, description="one sensing (one read reference)")
    t_prog_base_us: float = Field(gt=0, description="tPROG overhead besides ISPP loops")
    t_erase_pulse_us: float = Field(gt=0, description="one erase pulse + verify")
    t_erase_base_us: float = Field(gt=0)
    t_feat_us: float = Field(default=1.0, gt=0)
    t_rst_us: float = Field(default=5.0, gt=0)
    t_ccs_ns: int = Field(default=500, gt=0)
    t_cache_xfer_us: float = Field(default=3.0, gt=0, description="page register to cache copy")
    t_sense_soft_us: float | None = Field(
        default=None,
        gt=0,
        description="second sensing of each -/+ delta pair of a soft-bit read (the bitlines "
        "stay precharged, the WL moves by 2 delta); None = t_sense_us",
    )


class ReadReference(_Strict):
    name: str
    default_mV: float
    feature: int = Field(ge=0, le=0xFF, description="SET FEATURES address holding its offset")
    param: int = Field(default=0, ge=0, le=3, description="which of P1..P4 (0..3)")


class ReadOffsets(_Strict):
    """Read-reference offsets through SET FEATURES: signed DAC codes, two's complement."""

    step_mV: float = Field(gt=0)
    code_min: int = Field(ge=-128, le=0)
    code_max: int = Field(ge=0, le=127)
    references: list[ReadReference]
    slc_reference: ReadReference
    sense_floor_mV: float | None = Field(
        default=None,
        description="lowest WL voltage (mV) a sensing can apply: a reference or soft-bit "
        "edge (ref - delta) below it senses at the floor (virtual dies; None = no floor)",
    )


class SoftBitRead(_Strict):
    """00h-addr-<confirm>: senses one reference at +-delta and outputs the XNOR of the two."""

    confirm_cmd: int = Field(ge=0, le=0xFF)
    delta_feature: int = Field(ge=0, le=0xFF, description="P1 = delta code (DAC steps, > 0)")


class SlcMode(_Strict):
    """Vendor prefix commands that switch the following operations to SLC mode."""

    enter_cmd: int = Field(ge=0, le=0xFF)
    exit_cmd: int = Field(ge=0, le=0xFF)


class TestMode(_Strict):
    """Test-mode entry: CMD enter_cmd, ADDR key. exit_cmd or RESET leaves it.

    Every other test-mode operation (and every test-mode SET FEATURES address) is
    ignored by the die unless the test mode was entered with the right key."""

    enter_cmd: int = Field(ge=0, le=0xFF)
    key: int = Field(ge=0, le=0xFF, description="address byte that unlocks the test mode")
    exit_cmd: int = Field(ge=0, le=0xFF)


class InverseRead(_Strict):
    """One-shot prefix command: the next sensing operation (READ 30h, soft-bit read,
    cache read, MWS) latches the inverse of its result (S-latch initialised to 0 and
    evaluated through M1 instead of M2)."""

    prefix_cmd: int = Field(ge=0, le=0xFF)


class LatchOps(_Strict):
    """ParaBit latch micro-operations: CMD cmd, ADDR op, ADDR arg, ADDR row..., CMD confirm.

    Nodes: SO (sense node, 1 = the cell did not conduct), L1 = A / C (C = not A, the
    sensing / data latch), L2 = B / OUT (B = not OUT, the cache latch). See docs/schemes.md."""

    cmd: int = Field(ge=0, le=0xFF)
    confirm_cmd: int = Field(ge=0, le=0xFF)
    vread0_mV: float = Field(description="VREAD0: a reference below every erased cell")
    t_step_us: float = Field(default=0.5, gt=0, description="busy of one transistor / init step")


class Mws(_Strict):
    """Flash-Cosmos multi-wordline sensing: CMD cmd, ADDR flags, ADDR row, ADDR page bitmap,
    [CMD cont_cmd, ADDR row, ADDR page bitmap]..., CMD confirm_cmd. SLC reference."""

    cmd: int = Field(ge=0, le=0xFF)
    cont_cmd: int = Field(ge=0, le=0xFF)
    confirm_cmd: int = Field(ge=0, le=0xFF)
    max_blocks: int = Field(default=4, ge=1, le=64, description="blocks at once (power budget)")
    override_feature: int = Field(
        ge=0, le=0xFF, description="test-mode feature: P1 = 1 lifts max_blocks"
    )
    t_sense_us: float = Field(gt=0, description="default MWS sensing (strobe) time")


class LatchXor(_Strict):
    """CMD cmd: C-latch = S-latch XOR C-latch (no address)."""

    cmd: int = Field(ge=0, le=0xFF)


class Esp(_Strict):
    """Enhanced SLC programming through a test-mode feature address (applies to SLC programs
    while the test mode is on): P1 ISPP start offset (signed, 20 mV units), P2 ESP step
    (10 mV units, 0 = no ESP phase), P3 verify raise over the SLC verify (20 mV units),
    P4 extra verify-pulse steps."""

    feature: int = Field(ge=0, le=0xFF)


class SenseTime(_Strict):
    """Test-mode feature: P1..P2 little-endian sensing (strobe) time in 10 ns units; 0 = default.
    Applies to every sensing (reads, latch sensing, MWS) while the test mode is on."""

    feature: int = Field(ge=0, le=0xFF)


class Vendor(_Strict):
    slc_mode: SlcMode | None = None
    mlc_mode: SlcMode | None = Field(
        default=None,
        description="prefix commands of the MLC mode of a TLC die (sticky like slc_mode; "
        "needs physics.mlc)",
    )
    soft_bit_read: SoftBitRead | None = None
    test_mode: TestMode | None = None
    inverse_read: InverseRead | None = None
    latch_ops: LatchOps | None = None
    mws: Mws | None = None
    latch_xor: LatchXor | None = None
    esp: Esp | None = None
    sense_time: SenseTime | None = None
    search: Search | None = None
    coxpm: CoxPm | None = None


class Ispp(_Strict):
    start_mV: float = Field(description="Vth the median cell reaches after the first pulse")
    step_mV: float = Field(gt=0, description="ISPP step (final spread is uniform of this width)")
    t_loop_us: float = Field(gt=0, description="one program pulse + verify of one level")
    t_verify_us: float = Field(ge=0, description="extra verify time per additional level")
    speed_sigma_mV: float = Field(ge=0, description="cell-to-cell programming speed spread")


class VerifyShortfall(_Strict):
    """SLC-mode verify shortfall (virtual dies): the fast SLC verify strobe is noisy, so a
    cell whose verify sensing catches a favourable read-noise (RTN) fluctuation is inhibited
    below its verify level. The shortfall follows the noise's exponential tail and is
    bounded by the largest trap amplitude: each SLC-programmed cell lands
    min(scale * Exp(1), max_mV) below where the ISPP put it, redrawn by every program.
    Regular and enhanced (ESP) SLC programs alike, relative to their own verify level."""

    scale_mV: float = Field(gt=0, description="exponential scale (mV) of a fresh block")
    wear_scale_mV_at_10k: float = Field(
        default=0.0, ge=0, description="scale added at 10K P/E (mV), x physics.wear_factor"
    )
    max_mV: float = Field(gt=0, description="largest shortfall (mV): no cell lands lower")

    def scale(self, wear_factor: float) -> float:
        """Exponential scale (mV) at a block wear of `wear_factor` (1 at 10K P/E)."""
        return self.scale_mV + self.wear_scale_mV_at_10k * wear_factor


class Sensing(_Strict):
    """Bitline sensing time physics (virtual dies): a string discharges its bitline after
    precharge + evaluation, evaluation = tau * string resistance. Resistances per cell are
    k / overdrive (V): k_sel at the read reference (selected WLs), k_pass at VPASS."""

    t_bl_precharge_us: float = Field(default=2.7, ge=0)
    t_wl_precharge_us_per_block: float = Field(
        default=0.34, ge=0, description="WL charging per activated block (one pump)"
    )
    t_discharge_us: float = Field(default=3.0, ge=0, description="latch strobe + discharge")
    t_fixed_us: float = Field(default=13.0, ge=0, description="evaluation of the string ends")
    k_sel_us_V: float = Field(default=0.066, ge=0)
    k_pass_us_V: float = Field(default=0.02, ge=0)
    charge_sharing_per_block: float = Field(default=0.002, ge=0)
    min_overdrive_mV: float = Field(default=20.0, gt=0)


class MlcMode(_Strict):
    """MLC mode of a TLC die (2 bits a cell in the same Vth window): its Gray code, program
    verify levels of L1..L3 (mV), read references between states (mV) and ISPP."""

    gray_code: list[list[int]] = Field(
        default=[[1, 1], [1, 0], [0, 0], [0, 1]],
        description="per state L0..L3: bit of page type 0 (lower) and 1 (upper)",
    )
    verify_mV: list[float] = Field(min_length=3, max_length=3)
    read_mV: list[float] = Field(min_length=3, max_length=3, description="references L0|L1..")
    ispp: Ispp


class Physics(_Strict):
    """Virtual-die cell physics (Dong-Li-Zhang channel model in millivolts)."""

    erased_mean_mV: float
    erased_sigma_mV: float = Field(gt=0)
    verify_mV: list[float] = Field(description="program-verify level of states L1.. in native mode")
    slc_verify_mV: float
    ispp: Ispp
    slc_ispp: Ispp | None = Field(default=None, description="SLC-mode ISPP (default: ispp)")
    slc_verify_shortfall: VerifyShortfall | None = Field(
        default=None,
        description="bounded exponential shortfall below verify of SLC-programmed cells "
        "(noisy fast SLC verify); None = none",
    )
    prog_sigma_mV: float = Field(ge=0, description="static per-cell spread added to programmed Vth")
    wear_sigma_mV_at_10k: float = Field(ge=0, description="extra programmed spread at 10K P/E")
    wear_erased_shift_mV_at_10k: float = Field(ge=0)
    wear_erased_sigma_mV_at_10k: float = Field(
        default=0.0, ge=0, description="extra erased-state spread at 10K P/E (adds in quadrature)"
    )
    wear_exponent: float = Field(default=0.6, gt=0)
    wear_saturation_pec: float | None = Field(
        default=None,
        gt=0,
        description="P/E scale (cycles) of saturating wear: the wear terms quoted at 10K follow "
        "(1 - exp(-N / this)) / (1 - exp(-10K / this)), so a fresh block (N = 1) is unworn and "
        "trap generation levels off after a few times this; None = (N / 10K) ** wear_exponent",
    )
    endurance_pec: int = Field(gt=0, description="rated P/E cycles")
    coupling: float = Field(ge=0, le=0.5, description="program interference ratio from next WL")
    one_pass_coupling: float | None = Field(
        default=None,
        ge=0,
        le=0.5,
        description="program interference ratio from the next WL when that WL is programmed "
        "in one pass (SLC / MLC mode: its whole Vth rise couples; native multi-pass programming "
        "leaves only `coupling`). Dimensionless; None = coupling",
    )
    one_pass_coupling_diagonal: float = Field(
        default=0.0,
        ge=0,
        le=0.1,
        description="the same from the next WL's cells on the two adjacent bitlines (Dong et "
        "al.'s diagonal term); dimensionless",
    )
    mlc: MlcMode | None = Field(default=None, description="MLC mode of a TLC die")
    retention_ks: float = 0.38
    retention_kd: float = 4e-4
    retention_km: float = 4e-6
    retention_t0_h: float = 1.0
    retention_x0_mV: float = Field(description="Vth below which no retention loss")
    retention_rise_ratio: float = Field(
        default=0.0,
        ge=0,
        description="cells below x0 gain ratio x Kd's mean rate per mV below it "
        "(x0 as a neutral Vth the erased state drifts up to); 0 = no gain",
    )
    retention_pec_floor: float = Field(default=100.0, ge=0, description="N used when N is small")
    rtn_kr_mV: float = Field(ge=0, description="RTN Laplacian scale = kr * sqrt(N)")
    rtn_floor_mV: float = Field(ge=0, description="RTN scale of a fresh cell")
    read_disturb_mV: float = Field(ge=0, description="shift of a 0 V cell per ln(1+reads/1000)")
    vpass_mV: float
    stuck_cell_rate: float = Field(ge=0, le=1e-3)
    bad_block_rate: float = Field(ge=0, le=0.1)
    activation_energy_eV: float = 1.1
    reference_temp_C: float = 30.0
    sensing: Sensing = Sensing()

    def wear_factor(self, pec: int) -> float:
        """Fraction of the 10K-P/E wear terms reached after `pec` P/E cycles (1 at 10K)."""
        n = max(float(pec), 0.0)
        if self.wear_saturation_pec is None:
            return (n / 10000.0) ** self.wear_exponent
        s = self.wear_saturation_pec
        return -math.expm1(-n / s) / -math.expm1(-10000.0 / s)


class Power(_Strict):
    """Supply current per operation phase (mA) at vcc_V."""

    vcc_V: float = Field(gt=0)
    vccq_V: float = Field(gt=0)
    idle_mA: float = Field(ge=0)
    io_mA: float = Field(ge=0)
    read_mA: float = Field(ge=0)
    program_mA: float = Field(ge=0)
    erase_mA: float = Field(ge=0)
    mws_block_mA: float = Field(
        default=0.0, ge=0, description="extra read current per further block an MWS activates"
    )
    mws_pump_limit_mA: float = Field(
        default=0.0, ge=0, description="saturation of that extra current (0 = linear)"
    )
    max_mA: float = Field(gt=0, description="limit above which operations are refused")
    read_setup_mA: float | None = Field(
        default=None,
        ge=0,
        description="current (mA) in the setup of a read (t_read_base_us: pump ramp, WL and "
        "bitline precharge); the sensings then draw read_mA. None = read_mA throughout",
    )

    def read_current(self, busy_ns: int, setup_ns: int) -> list[tuple[int, float]]:
        """Supply current of one array read over its R/B# low time, as (duration ns, mA).

        With `read_setup_mA` set, the first `setup_ns` (charge-pump ramp, WL and bitline
        precharge) draw that current and the sensings after it `read_mA`; else the whole
        read draws `read_mA`.
        """
        busy_ns = max(int(busy_ns), 0)
        if self.read_setup_mA is None:
            return [(busy_ns, self.read_mA)]
        split = min(max(int(setup_ns), 0), busy_ns)
        return [(split, self.read_setup_mA), (busy_ns - split, self.read_mA)]

    def mws_read_mA(self, blocks: int) -> float:
        """Read current of a multi-WL sensing over `blocks` blocks: each further block charges
        its WLs from the same pump, whose output saturates at mws_pump_limit_mA above a read."""
        extra_demand = self.mws_block_mA * max(blocks - 1, 0)
        limit = self.mws_pump_limit_mA
        extra = limit * (1.0 - math.exp(-extra_demand / limit)) if limit > 0 else extra_demand
        return self.read_mA + extra


class Environment(_Strict):
    """Qualification-level figures a controller plans retention bakes with."""

    bake_temp_C: float = Field(default=85.0, description="temperature of a retention bake")
    ambient_temp_C: float = 30.0
    activation_energy_eV: float = Field(
        default=1.1,
        gt=0,
        description="Arrhenius activation energy (eV) of data-retention loss that the part's "
        "qualification states (JESD22-A117 / JEP122 style), used to turn a retention time at "
        "use temperature into a bake time; the virtual die's own value is physics'",
    )


class Profile(_Strict):
    schema_version: Literal[1] = 1
    name: str
    virtual: bool
    description: str
    identity: Identity
    geometry: Geometry
    timing: Timing
    interfaces: Interfaces = Interfaces()
    read_offsets: ReadOffsets
    vendor: Vendor = Vendor()
    physics: Physics
    power: Power
    environment: Environment = Environment()

    @model_validator(mode="after")
    def _check_refs(self) -> Profile:
        g = self.geometry
        if len(self.read_offsets.references) != g.states - 1:
            raise ValueError(
                f"read_offsets.references must list {g.states - 1} references for {g.cell}"
            )
        if len(self.physics.verify_mV) != g.states - 1:
            raise ValueError(f"physics.verify_mV must list {g.states - 1} levels for {g.cell}")
        if self.virtual and not self.name.startswith(("slc-", "mlc-", "tlc-")):
            raise ValueError("a virtual profile's name starts with its cell type (slc-/mlc-/tlc-)")
        return self

    @cached_property
    def page_refs(self) -> list[list[int]]:
        """For each page type, the indices of the read references that separate its bits."""
        codes = self.geometry.gray_code
        out: list[list[int]] = [[] for _ in range(self.geometry.bits_per_cell)]
        for r in range(len(codes) - 1):
            for p in range(self.geometry.bits_per_cell):
                if codes[r][p] != codes[r + 1][p]:
                    out[p].append(r)
        return out
