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
from nandlab.profiles.physics_model import Physics
from nandlab.profiles.search_model import Search

CellType = Literal["slc", "mlc", "tlc"]
BITS_PER_CELL: dict[str, int] = {"slc": 1, "mlc": 2, "tlc": 3}


class _Strict(BaseModel):
    # defer_build: a section's own validator is built on its first direct use; loading a
    # profile builds Profile's alone (the sections inline), not ~30 at import (cold start)
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Identity(_Strict):
    """What READ ID, the parameter page and READ UNIQUE ID report."""

    manufacturer: str = Field(max_length=12, description="ONFI manufacturer name, <= 12 ASCII")
    model: str = Field(max_length=20, description="ONFI device model, <= 20 ASCII")
    jedec_id: int = Field(ge=0, le=0xFF, description="JEDEC manufacturer ID byte")
    id_bytes: list[int] = Field(
        min_length=3, max_length=8, description="READ ID 00h bytes (byte 2 bits 3:2: cell type)"
    )
    standard: Literal["onfi", "jedec"] = Field(
        default="onfi",
        description="parameter page the part reports: ONFI (READ ID 20h 'ONFI') or JEDEC "
        "(JESD230, READ ID 40h 'JEDEC', as Toggle DDR parts do)",
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


class Power(_Strict):
    """Supply current per operation phase (mA) at vcc_V."""

    vcc_V: float = Field(gt=0)
    vccq_V: float = Field(gt=0)
    idle_mA: float = Field(ge=0)
    io_mA: float = Field(ge=0)
    io_load_pF: float = Field(
        default=0.0,
        ge=0,
        description="load (pF) each line the die drives in data out carries (its pin, the "
        "package, the channel); data out then draws io_mA plus C x VccQ per rising edge. "
        "0 = every I/O phase draws io_mA",
    )
    io_rises_per_byte: float = Field(
        default=2.5,
        ge=0,
        description="rising edges per byte out on the lines the die drives: 8 DQ x 1/4 for "
        "randomised data (a toggle half the time, half of them rising) + 1/2 for DQS",
    )
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
    interfaces: Interfaces = Field(default_factory=Interfaces)
    read_offsets: ReadOffsets
    vendor: Vendor = Field(default_factory=Vendor)
    physics: Physics
    power: Power
    environment: Environment = Field(default_factory=Environment)

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
