"""The analog state of one virtual die: its cell array (contract 5).

Only touched blocks hold anything. A programmed WL holds, per cell, its Vth
(int16 mV), its personality (int8, static leakiness) and its target state
(uint8): 4 bytes a cell. An erased WL that was never programmed since its
block's last erase holds nothing; sensing it draws its erased Vth from
(seed, chip, block, wl, erase count). Timing is virtual: operations return the
busy time the die should report; `bake` and `elapse` move retention age only.

The numba kernels (`vchip.kernel`) are imported by the operations that run them, so a
die that is only identified or erased (`nandlab info`) starts without numba.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

from nandlab.errors import AddressError, ProfileError, RangeError
from nandlab.profiles.model import Profile
from nandlab.vchip import physics as ph
from nandlab.vchip.array_image import DieImage
from nandlab.vchip.cells import NO_AGE, Ages, Block, StateMap, WordLine, age_since, page_data
from nandlab.vchip.physics import IsppTune
from nandlab.vchip.sensing import DriftCache, ReadNoise

if TYPE_CHECKING:
    from nandlab.vchip.mws import MwsSensing

_NO_CELLS = np.empty(0, dtype=np.int16)


@dataclass(frozen=True)
class ArrayResult:
    """Outcome of an array operation: pass/fail status, busy time (µs), ISPP loops
    (program) or erase pulses (erase)."""

    ok: bool
    busy_us: float
    loops: int = 0


class CellArray:
    """Cell array of one die: program / erase / sense with the profile's physics.

    Deterministic from (seed, chip) apart from the per-read noise, which comes
    from a generator that is itself seeded and saved with the die image.
    """

    sense_cache: bool = True
    """Keep the deterministic part of recently sensed WLs' Vth_eff (retention and read
    disturb, see `sense`); False computes every sensing from scratch."""

    def __init__(self, profile: Profile, seed: int, chip: int = 0) -> None:
        g = profile.geometry
        self.profile = profile
        self.seed = int(seed)
        self.chip = int(chip)
        self._phys = profile.physics
        self._blocks_n = g.blocks
        self._wls_n = g.wls_per_block
        self._sub_blocks = g.sub_blocks
        self._cells = g.cells_per_wl
        self._nbytes = g.page_bytes + g.spare_bytes
        self._bits = g.bits_per_cell
        self._ages: Ages = NO_AGE
        self._blocks: dict[int, Block] = {}
        self._bad = ph.factory_bad_blocks(self._phys, self.seed, self.chip, g.blocks)
        self._var = ph.SpatialVariation(
            self._phys, self.seed, self.chip, g.wls_per_block, g.sub_blocks
        )
        self._noise = ReadNoise(self.seed, self.chip, self._cells)
        self._buf = np.empty(0, dtype=np.bool_)  # sense buffer: made on first sense
        self._drift = DriftCache(self._cells)
        # the last sensing's coefficients and what they are a pure function of: the 2-7
        # sensings of one TLC / soft-bit page read share them
        self._coeffs: tuple[tuple[object, ...], ph.SenseCoefficients] | None = None
        self._mws: MwsSensing | None = None
        self._native = StateMap.gray(g.gray_code, self._phys.verify_mV)
        self._slc_map = StateMap([1, 0], 1, [self._phys.slc_verify_mV])
        mlc = self._phys.mlc
        self._mlc_map = StateMap.gray(mlc.gray_code, mlc.verify_mV) if mlc is not None else None

    # -- geometry --------------------------------------------------------------

    def _check_block(self, block: int) -> None:
        if not 0 <= block < self._blocks_n:
            raise AddressError(f"block {block} out of range 0..{self._blocks_n - 1}")

    def _check_wl(self, block: int, wl: int) -> None:
        self._check_block(block)
        if not 0 <= wl < self._wls_n:
            raise AddressError(f"word line {wl} out of range 0..{self._wls_n - 1}")

    def _block(self, block: int) -> Block:
        blk = self._blocks.get(block)
        if blk is None:
            blk = self._blocks[block] = Block()
        return blk

    # -- status ---------------------------------------------------------------

    @property
    def retention_age_h(self) -> float:
        """Retention age of the die: equivalent hours at physics.reference_temp_C of its
        slow charge loss (physics.activation_energy_eV)."""
        return self._ages[ph.Clock.CHARGE_LOSS]

    @property
    def retention_ages(self) -> dict[str, float]:
        """Effective age (h at physics.reference_temp_C) of every thermal mechanism."""
        return {clock.name.lower(): self._ages[clock] for clock in ph.Clock}

    def is_factory_bad(self, block: int) -> bool:
        self._check_block(block)
        return bool(self._bad[block])

    def pec(self, block: int) -> int:
        """P/E cycles the block has seen."""
        self._check_block(block)
        blk = self._blocks.get(block)
        return blk.pec if blk else 0

    def wl_programmed(self, block: int, wl: int) -> set[int]:
        """Page types written on the WL since the block's last erase ({0} in SLC mode)."""
        self._check_wl(block, wl)
        blk = self._blocks.get(block)
        w = blk.wls.get(wl) if blk else None
        return set(w.pages) if w else set()

    def block_is_slc(self, block: int) -> bool | None:
        """True / False for SLC / native data in the block, None if it is erased."""
        self._check_block(block)
        blk = self._blocks.get(block)
        return blk.slc if blk else None

    # -- operations -----------------------------------------------------------

    def erase(self, block: int) -> ArrayResult:
        """Erase a block: all WLs back to erased, P/E count + 1.

        Fails on a factory bad block (no change) and, past the block's wear-out
        life (well beyond endurance_pec), fails its verify after erasing.
        """
        self._check_block(block)
        t = self.profile.timing
        if self._bad[block]:
            pulses = ph.ERASE_PULSES_AT_ENDURANCE
            return ArrayResult(False, t.t_erase_base_us + pulses * t.t_erase_pulse_us, pulses)
        blk = self._block(block)
        worn = blk.pec >= ph.wearout_pec(self._phys, self.seed, self.chip, block)
        pulses = ph.erase_pulses(self._phys, blk.pec)
        self._reset_block(blk, blk.pec + 1)
        return ArrayResult(not worn, t.t_erase_base_us + pulses * t.t_erase_pulse_us, pulses)

    def add_wear(self, block: int, cycles: int) -> None:
        """Fast-forward `cycles` P/E cycles; the block ends erased."""
        self._check_block(block)
        if cycles < 0:
            raise RangeError(f"wear cycles {cycles} must be >= 0")
        blk = self._block(block)
        self._reset_block(blk, blk.pec + cycles)

    def cycle_time_us(self, block: int, cycles: int, slc: bool = False) -> float:
        """Array time (µs) of `cycles` full P/E cycles of `block` from its present wear.

        Each cycle is an erase and a program of every page in order with random
        data, the work that `add_wear` stands for; bus transfers are not included.
        """
        self._check_block(block)
        t, phys = self.profile.timing, self._phys
        smap = self._slc_map if slc else self._native
        isp = (phys.slc_ispp or phys.ispp) if slc else phys.ispp
        per_wl = 0.0
        for p in range(smap.bits):
            known = (1 << (p + 1)) - 1  # pages 0..p are written, in order
            states = sorted({int(smap.lowest[known, key]) for key in range(known + 1)} - {0})
            loops = ph.ispp_loops(phys, float(smap.verify[states[-1]]), isp) if states else 1
            levels = max(len(states), 1)
            per_wl += t.t_prog_base_us + loops * (isp.t_loop_us + (levels - 1) * isp.t_verify_us)
        blk = self._blocks.get(block)
        pec0 = blk.pec if blk is not None else 0
        erase_us = sum(
            t.t_erase_base_us + ph.erase_pulses(phys, pec0 + k) * t.t_erase_pulse_us
            for k in range(cycles)
        )
        return cycles * per_wl * self.profile.geometry.wls_per_block + erase_us

    def _reset_block(self, blk: Block, pec: int) -> None:
        blk.version += 1
        blk.pec = pec
        blk.slc = None
        blk.mlc = False
        blk.reads = 0
        blk.erase_age_h = self._ages
        blk.own_reads.clear()
        blk.wls.clear()

    def program(
        self,
        block: int,
        wl: int,
        pages: dict[int, np.ndarray],
        slc: bool,
        ispp: IsppTune | None = None,
        mlc: bool = False,
    ) -> ArrayResult:
        """Program pages of one WL (page type -> packed page + spare bytes).

        Each cell goes to the lowest state consistent with every page written on
        the WL so far; ISPP only adds charge. SLC mode takes page type 0 only
        (bit 0 programs the cell). FAIL, without change, on a factory bad block or
        when the block already holds data of the other mode. `ispp` (SLC only) tunes
        the ISPP (enhanced SLC programming): see `IsppTune`; the loop count, and so
        tPROG, follows it. mlc=True (native mode, profile physics.mlc) programs 2 bits a
        cell with the MLC verify levels and ISPP.
        """
        self._check_wl(block, wl)
        mlc = mlc and not slc
        if mlc and self._mlc_map is None:
            raise ProfileError(f"profile {self.profile.name} has no physics.mlc (MLC mode)")
        smap = self._slc_map if slc else (self._mlc_map if mlc else self._native)
        assert smap is not None
        data = page_data(pages, smap.bits, self._nbytes)
        t = self.profile.timing
        blk = self._blocks.get(block)
        if self._bad[block] or (
            blk is not None
            and (blk.slc not in (None, slc) or (blk.slc is False and blk.mlc != mlc))
        ):
            return ArrayResult(False, t.t_prog_base_us, 0)
        blk = self._block(block)
        phys = self._phys
        cells = self._cells
        w = blk.wls.get(wl)
        if w is None:
            old_vth, pers = self._wl_cells(block, wl, blk, None)
            w = WordLine(old_vth, pers, np.zeros(cells, np.uint8), set(), 0, NO_AGE, 0)
        below = blk.wls.get(wl - self._sub_blocks) if wl >= self._sub_blocks else None
        packed = np.zeros((smap.bits, self._nbytes), dtype=np.uint8)
        for ptype, buf in data.items():
            packed[ptype] = buf
        known = sum(1 << p for p in w.pages | set(data))
        vth, level = w.vth, w.level  # updated in place: the kernel cannot fail
        isp = (phys.slc_ispp or phys.ispp) if slc else phys.ispp
        if mlc and phys.mlc is not None:
            isp = phys.mlc.ispp
        verify, step, sigma = smap.verify, isp.step_mV, phys.prog_sigma_mV
        if slc and ispp is not None:
            top = ispp.verify_mV if ispp.esp_step_mV > 0 else phys.slc_verify_mV
            verify = np.array([0.0, max(top, ispp.start_mV)], dtype=np.float32)
            step = ispp.esp_step_mV if ispp.esp_step_mV > 0 else step
            sigma = phys.prog_sigma_mV / np.sqrt(1.0 + ispp.extra_steps)
        short = ph.slc_shortfall(phys, blk.pec) if slc else (0.0, 0.0, 0.0)
        cpl, cpl_diag = phys.coupling, 0.0
        if (slc or mlc) and phys.one_pass_coupling is not None:
            cpl, cpl_diag = phys.one_pass_coupling, phys.one_pass_coupling_diagonal
        from nandlab.vchip.kernel import program_kernel

        verified = program_kernel(
            vth,
            level,
            packed,
            sum(1 << p for p in data),
            known,
            smap.codes,
            smap.lowest[known],
            verify,
            ph.program_keys(self.seed, self.chip, block, wl, blk.pec, w.programs),
            *ph.normal_tables(),
            step,
            sigma,
            ph.wear_sigma(phys, blk.pec),
            below.vth if below is not None else _NO_CELLS,
            cpl,
            ph.VTH_MIN_MV,
            ph.VTH_MAX_MV,
            cpl_diag,
            *short,
            ph.program_disturb(phys, blk.pec),
        )
        ph.apply_stuck(vth, ph.stuck_cells(phys, self.seed, self.chip, block, wl, cells))
        states = [s for s in range(1, len(smap.verify)) if (verified >> s) & 1]
        loops = ph.ispp_loops(phys, float(smap.verify[states[-1]]), isp) if states else 1
        if slc and ispp is not None and states:
            loops = ph.esp_loops(phys, isp, ispp)
        levels = max(len(states), 1)
        busy = t.t_prog_base_us + loops * (isp.t_loop_us + (levels - 1) * isp.t_verify_us)
        blk.version += 1  # this WL and, by coupling, the one below changed
        w.pages |= set(data)
        w.programs += 1
        w.age_h = self._ages
        w.reads_base = blk.reads
        blk.wls[wl] = w
        blk.own_reads[wl] = 0
        blk.slc = slc
        blk.mlc = mlc
        return ArrayResult(True, busy, loops)

    def sense(
        self, block: int, wl: int, ref_mV: float, slc: bool, strobe_us: float | None = None
    ) -> np.ndarray:
        """One sensing of a WL at ref_mV: packed bits (little bit order), 1 = conducts.

        Applies retention loss, read disturb and fresh RTN to every cell, and
        counts one read-disturb event on the block. `slc` does not change the
        physics: the die picks the reference for the mode. A `strobe_us` (a test-mode
        sensing time) senses the WL as a one-WL `sense_mws` with that strobe.
        """
        if strobe_us is not None:
            return self.sense_mws([(block, [wl])], ref_mV, strobe_us)
        self._check_wl(block, wl)
        if self._bad[block]:
            return ph.bad_block_data(self.seed, self.chip, block, wl, self._nbytes)
        blk = self._block(block)
        w, c = self._history(block, blk, wl)
        blk.reads += 1
        # the RTN is drawn even when unused, so the noise stream does not depend on which
        # shortcut a read took
        noise = self._noise.draw()
        if w is None and self._phys.stuck_cell_rate == 0.0:
            lo, hi = ph.erased_eff_bounds(
                self._phys, blk.pec, c, self._var.erased_offset_mV(block)
            )
            if ref_mV > hi or ref_mV < lo:  # every cell answers the same
                return np.full(self._nbytes, 0xFF if ref_mV > hi else 0, dtype=np.uint8)

        kernel = _kernel()
        table = self._noise.table
        if self._buf.shape[0] != self._cells:
            self._buf = np.empty(self._cells, dtype=np.bool_)
        rtn = table[noise.offset : noise.offset + self._cells]
        if self.sense_cache:
            drifted = self._drifted(block, wl, blk, w, c)
            kernel.sense_drifted_kernel(
                drifted, rtn, self._buf, float(ref_mV), c.rtn_per_unit, noise.key
            )
            return np.packbits(self._buf, bitorder="little")
        vth, pers = self._wl_cells(block, wl, blk, w)
        kernel.sense_kernel(
            vth, pers, rtn, self._buf, float(ref_mV), c.drift, c.rtn_per_unit, noise.key
        )
        return np.packbits(self._buf, bitorder="little")

    def _history(
        self, block: int, blk: Block, wl: int
    ) -> tuple[WordLine | None, ph.SenseCoefficients]:
        """The WL's stored state (None if erased) and the sense coefficients of its history
        (retention age, reads of the block's other WLs); counts this sensing on the WL."""
        own = blk.own_reads.get(wl, 0)
        w = blk.wls.get(wl)
        if w is not None:
            age, others = age_since(self._ages, w.age_h), blk.reads - w.reads_base - own
        else:
            age, others = age_since(self._ages, blk.erase_age_h), blk.reads - own
        blk.own_reads[wl] = own + 1
        key = (block, wl, blk.pec, age, others)
        last = self._coeffs
        if last is not None and last[0] == key:
            return w, last[1]
        factor = self._var.retention(block, wl)
        c = ph.sense_coefficients(self._phys, blk.pec, age, others, factor)
        self._coeffs = (key, c)
        return w, c

    def _wl_cells(
        self, block: int, wl: int, blk: Block, w: WordLine | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Stored Vth and personality of the WL (an erased WL's drawn on demand)."""
        if w is not None:
            return w.vth, w.personality
        return (
            ph.erased_vth(
                self._phys, self.seed, self.chip, block, wl, blk.pec, self._cells,
                self._var.erased_offset_mV(block),
            ),
            ph.personality(self._phys, self.seed, self.chip, block, wl, self._cells),
        )

    def _drifted(
        self, block: int, wl: int, blk: Block, w: WordLine | None, c: ph.SenseCoefficients
    ) -> np.ndarray:
        """The WL's drifted Vth, cached while the block's Vth version (program, erase,
        wear), its P/E count and the sense coefficients (retention age, read-disturb
        count) hold."""
        key = (blk.version, blk.pec, c.drift)

        def fill(out: np.ndarray) -> None:
            _kernel().drift_kernel(*self._wl_cells(block, wl, blk, w), out, c.drift)

        return self._drift.get((block, wl), key, fill)

    def sense_mws(
        self, groups: list[tuple[int, list[int]]], ref_mV: float, strobe_us: float
    ) -> np.ndarray:
        """Multi-wordline sensing (Flash-Cosmos MWS): packed bits, 1 = the bitline
        discharged. See `vchip.mws.MwsSensing.sense`."""
        return self.mws.sense(groups, ref_mV, strobe_us)

    @property
    def mws(self) -> MwsSensing:
        """The die's multi-wordline sensing, made on first use (it loads numba kernels)."""
        if self._mws is None:
            from nandlab.vchip.mws import MwsSensing

            self._mws = MwsSensing(self)
        return self._mws

    # -- time -----------------------------------------------------------------

    def bake(self, temp_C: float, hours: float) -> None:
        """Hold the die at temp_C for `hours`: each mechanism's retention age advances by
        Arrhenius with its own activation energy (physics.Clock)."""
        if hours < 0:
            raise RangeError(f"bake time {hours} h must be >= 0")
        self._ages = ph.advance(self._phys, self._ages, temp_C, hours)
        self._drift.clear()  # the age is in the key too; this frees the memory early

    def elapse(self, hours: float, temp_C: float | None = None) -> None:
        """Idle for `hours` at temp_C (default: the profile's ambient temperature)."""
        self.bake(self.profile.environment.ambient_temp_C if temp_C is None else temp_C, hours)

    # -- die image ------------------------------------------------------------

    def image(self) -> DieImage:
        """The die's stored state for its image (`vchip.array_image`). It shares the block
        objects: write it out before the die changes again."""
        return DieImage(
            self.profile.name, self.seed, self.chip, self._ages,
            dict(self._noise.generator.bit_generator.state), self._blocks,
        )

    @classmethod
    def from_image(cls, image: DieImage, profile: Profile) -> CellArray:
        """The die an image holds (read by `vchip.array_image` for `profile`)."""
        arr = cls(profile, image.seed, image.chip)
        arr._ages = image.age_h
        arr._noise.generator.bit_generator.state = image.noise_state
        arr._blocks = image.blocks
        return arr


@cache
def _kernel() -> ModuleType:
    """The numba kernels, imported on the first sensing (not with the die: cold start) and
    then looked up without an import statement per sensing."""
    import nandlab.vchip.kernel

    return nandlab.vchip.kernel
