"""Multi-wordline sensing (Flash-Cosmos MWS) of the virtual die.

Several WLs are sensed at once: WLs of one sub-block of a block are in series on
their string, strings of other sub-blocks or blocks share the bitline. Whether a
bitline reads discharged depends on the string's resistance, so every unselected
cell of the string (at VPASS) counts too.

That pass resistance is kept per string as the exact sum over ALL its WLs: each
cell's term k_pass / max(VPASS - Vth, min overdrive) is a float32 (24-bit significand),
the largest term is at most R = (VPASS - the lowest Vth) / the smallest divisor (min
overdrive, or 1 mV for an erased WL) times the smallest, so N terms sum in float64
(53 bits) without rounding while 24 + log2(R) + log2(N) <= 53 (tlc-48l: R < 2^16,
N = 48, 45 bits; `_string` refuses a profile past it). Subtracting the selected WLs'
terms then gives the exact sum over the unselected ones, rounded once to float32,
whichever WLs an MWS selects. A string is summed once per stored Vth (program, erase,
wear), not once per sensing, and the last rows handed to the sensing are kept too, so
an MWS repeated on the same WLs (a strobe search) subtracts nothing again.

Importing this module compiles (or loads) its numba kernels: the array imports it
on the first MWS only.
"""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np
from numba import njit

from nandlab.errors import ProfileError
from nandlab.profiles.model import Profile
from nandlab.profiles.physics_model import Physics
from nandlab.vchip import physics as ph
from nandlab.vchip.cells import Block, WordLine
from nandlab.vchip.physics import VTH_MIN_MV
from nandlab.vchip.sensing import ReadNoise

PASS_CACHE_STRINGS = 16  # strings whose pass resistance is kept: 4 blocks x 4 sub-blocks
SIGNIFICAND_BITS = (24, 53)  # float32, float64

# The kernels that divide: fastmath without "arcp" (a reciprocal estimate would move the
# last bits of a quotient, and with them a bitline at its strobe), and numpy's error model
# (no zero-divisor check: every divisor is at least min_od_mV > 0), so the loops of
# string_sum_kernel vectorise with exact divisions, the same bits as scalar ones.
_EXACT_DIVISION = {"nnan", "ninf", "nsz", "contract", "afn", "reassoc"}


class ArrayState(Protocol):
    """What MWS reads of the cell array (`vchip.array.CellArray`), which imports this
    module, so it is named here by the members it uses."""

    profile: Profile
    _phys: Physics
    _sub_blocks: int
    _cells: int
    _wls_n: int
    _noise: ReadNoise
    sense_cache: bool

    def _check_wl(self, block: int, wl: int) -> None: ...

    def _block(self, block: int) -> Block: ...

    def _history(
        self, block: int, blk: Block, wl: int
    ) -> tuple[WordLine | None, ph.SenseCoefficients]: ...

    def _wl_cells(
        self, block: int, wl: int, blk: Block, w: WordLine | None
    ) -> tuple[np.ndarray, np.ndarray]: ...

    def _drifted(
        self, block: int, wl: int, blk: Block, w: WordLine | None, c: ph.SenseCoefficients
    ) -> np.ndarray: ...


class MwsSensing:
    """The MWS of one die's cell array, with the per-string pass resistance it keeps."""

    def __init__(self, array: ArrayState) -> None:
        self._a = array
        # (block, sub-block) -> ((block version, P/E count), float64 sum over all its WLs)
        self._strings: dict[tuple[int, int], tuple[tuple[int, int], np.ndarray]] = {}
        # (block, sub-block) -> ((block version, P/E count, selected WLs), float32 row)
        self._rows: dict[tuple[int, int], tuple[tuple[int, int, tuple[int, ...]], np.ndarray]] = {}
        # work buffers kept between sensings: arrays this large come fresh from the OS
        # (page faults on first touch) each time they are allocated
        self._work: dict[str, np.ndarray] = {}

    def _buffer(self, name: str, rows: int, dtype: type) -> np.ndarray:
        """A kept (rows, cells) work array of `dtype`, its contents undefined."""
        cells = self._a._cells
        buf = self._work.get(name)
        if buf is None or buf.shape[0] < rows:
            buf = self._work[name] = np.empty((max(rows, 4), cells), dtype=dtype)
        return buf[:rows]

    def sense(
        self, groups: list[tuple[int, list[int]]], ref_mV: float, strobe_us: float
    ) -> np.ndarray:
        """Multi-wordline sensing: packed bits, 1 = the bitline discharged.

        `groups` lists (block, WLs) with the reference on those WLs and VPASS on the rest
        of their strings. WLs of one sub-block of a block are in series (a string
        conducts only if every selected cell does: AND); strings of different sub-blocks
        or blocks share the bitline (it discharges if any string conducts: OR). A
        conducting string discharges the bitline only if precharge + evaluation +
        strobe fit in `strobe_us` (physics.sensing): WL precharge grows with the blocks
        activated, evaluation with the string's resistance (each selected cell adds
        k_sel / overdrive, each unselected one k_pass / (VPASS - Vth)) and with the
        charge the activated strings share with the bitline. Every selected WL gets the
        usual retention, read disturb and fresh RTN, and counts one read of its block.
        """
        from nandlab.vchip.kernel import drift_kernel, rtn_tail_fold

        a = self._a
        sens = a._phys.sensing
        subs = a._sub_blocks
        rows: list[tuple[int, int]] = []
        keys: dict[tuple[int, int], int] = {}
        for block, wls in groups:
            for wl in wls:
                a._check_wl(block, wl)
                key = (block, wl % subs)
                keys.setdefault(key, len(keys))
                if (block, wl) not in rows:
                    rows.append((block, wl))
        blocks = sorted({b for b, _ in rows})
        nb = len(blocks)
        drifted = self._buffer("drifted", len(rows), np.float32)
        offs = np.empty(len(rows), dtype=np.int64)
        scale = np.empty(len(rows), dtype=np.float32)
        row_group = np.empty(len(rows), dtype=np.int32)
        for r, (block, wl) in enumerate(rows):
            blk = a._block(block)
            w, c = a._history(block, blk, wl)
            if a.sense_cache:  # a strobe search senses the same WLs again: kept drift
                np.copyto(drifted[r], a._drifted(block, wl, blk, w, c))
            else:
                drift_kernel(*a._wl_cells(block, wl, blk, w), drifted[r], c.drift)
            noise = a._noise.draw()
            offs[r] = noise.offset
            rtn_tail_fold(drifted[r], a._noise.table, noise.offset, noise.key, c.rtn_per_unit)
            scale[r] = c.rtn_per_unit
            row_group[r] = keys[(block, wl % subs)]
        for b in blocks:
            a._block(b).reads += 1
        unsel = self._buffer("unselected", len(keys), np.float32)
        for (block, sub), g in keys.items():
            skip = tuple(wl for b, wl in rows if b == block and wl % subs == sub)
            unsel[g] = self._kept_row(block, sub, skip)
        t_pre = max(sens.t_bl_precharge_us, sens.t_wl_precharge_us_per_block * nb)
        t_const = t_pre + sens.t_discharge_us + sens.t_fixed_us
        eval_scale = 1.0 + sens.charge_sharing_per_block * (nb - 1)
        out = self._buffer("out", 1, np.bool_)[0]
        mws_kernel(
            drifted,
            a._noise.table,
            offs,
            scale,
            row_group,
            unsel,
            out,
            self._buffer("acc", 1, np.float32)[0],
            self._buffer("on", 1, np.bool_)[0],
            float(ref_mV),
            sens.k_sel_us_V * 1000.0,
            sens.min_overdrive_mV,
            t_const,
            eval_scale,
            float(strobe_us),
        )
        return np.packbits(out, bitorder="little")

    def pass_resistance(self, block: int, sub: int, skip: tuple[int, ...]) -> np.ndarray:
        """Per cell, the pass resistance (µs, float32) of string (block, sub-block) at VPASS
        without its selected WLs `skip`: the exact sum of the other WLs' terms, rounded
        once."""
        out = np.empty(self._a._cells, dtype=np.float32)
        self._unselected(block, sub, skip, out)
        return out

    def _kept_row(self, block: int, sub: int, skip: tuple[int, ...]) -> np.ndarray:
        """`pass_resistance`, kept per string while the block's stored Vth and the selected
        WLs hold (the last PASS_CACHE_STRINGS strings)."""
        blk = self._a._block(block)
        key = (blk.version, blk.pec, skip)
        kept = self._rows.pop((block, sub), None)
        if kept is not None and kept[0] == key:
            self._rows[(block, sub)] = kept  # most recent last
            return kept[1]
        if kept is not None:
            row = kept[1]
        elif len(self._rows) >= PASS_CACHE_STRINGS:
            row = self._rows.pop(next(iter(self._rows)))[1]  # the oldest
        else:
            row = np.empty(self._a._cells, dtype=np.float32)
        self._unselected(block, sub, skip, row)
        self._rows[(block, sub)] = (key, row)
        return row

    def _unselected(self, block: int, sub: int, skip: tuple[int, ...], out: np.ndarray) -> None:
        a = self._a
        blk = a._block(block)
        phys = a._phys
        sens = phys.sensing
        kp = sens.k_pass_us_V * 1000.0
        erased = self._erased_term()
        total = self._string(block, sub)
        selected = [blk.wls.get(wl) for wl in skip]
        stored = [w.vth for w in selected if w is not None]
        vth = np.stack(stored) if stored else np.empty((0, a._cells), dtype=np.int16)
        unselect_kernel(
            total, vth, len(selected) - len(stored), erased, out,
            self._buffer("acc64", 1, np.float64)[0], kp, phys.vpass_mV, sens.min_overdrive_mV,
        )

    def _erased_term(self) -> np.float32:
        """An erased cell's term (an erased WL holds no stored Vth: its mean stands in)."""
        phys = self._a._phys
        sens = phys.sensing
        return np.float32(sens.k_pass_us_V * 1000.0 / max(phys.vpass_mV - phys.erased_mean_mV, 1.0))

    def _string(self, block: int, sub: int) -> np.ndarray:
        """The float64 sum of every WL's term on string (block, sub-block), kept while the
        block's stored Vth holds (version: program, erase, wear; retention and read
        disturb do not enter it)."""
        a = self._a
        blk = a._block(block)
        key = (blk.version, blk.pec)
        kept = self._strings.pop((block, sub), None)
        if kept is not None and kept[0] == key:
            self._strings[(block, sub)] = kept  # most recent last
            return kept[1]
        if kept is not None:
            total = kept[1]
        elif len(self._strings) >= PASS_CACHE_STRINGS:
            total = self._strings.pop(next(iter(self._strings)))[1]  # the oldest
        else:
            total = np.empty(a._cells, dtype=np.float64)
        phys = a._phys
        sens = phys.sensing
        wls = range(sub, a._wls_n, a._sub_blocks)
        ratio = (phys.vpass_mV - VTH_MIN_MV) / min(sens.min_overdrive_mV, 1.0)
        if SIGNIFICAND_BITS[0] + math.log2(ratio) + math.log2(len(wls)) > SIGNIFICAND_BITS[1]:
            raise ProfileError(
                f"profile {a.profile.name}: {len(wls)} WLs per string with pass terms "
                f"{ratio:.3g}x apart do not sum exactly in float64 (see vchip.mws)"
            )
        stored = [w.vth for w in (blk.wls.get(wl) for wl in wls) if w is not None]
        total[:] = (len(wls) - len(stored)) * np.float64(self._erased_term())
        for vth in stored:
            string_sum_kernel(
                vth, total, sens.k_pass_us_V * 1000.0, phys.vpass_mV, sens.min_overdrive_mV
            )
        self._strings[(block, sub)] = (key, total)
        return total

    def clear(self) -> None:
        """Drop the kept string sums and rows (they are recomputed on the next MWS)."""
        self._strings.clear()
        self._rows.clear()


@njit(cache=True, fastmath=_EXACT_DIVISION, error_model="numpy")
def mws_kernel(
    drifted: np.ndarray,
    rtn_table: np.ndarray,
    rtn_off: np.ndarray,
    rtn_scale: np.ndarray,
    row_group: np.ndarray,
    unsel_us: np.ndarray,
    out: np.ndarray,
    acc: np.ndarray,
    on: np.ndarray,
    ref_mV: float,
    k_sel_us_mV: float,
    min_od_mV: float,
    t_const_us: float,
    eval_scale: float,
    strobe_us: float,
) -> None:
    """Multi-wordline sensing of one bitline per cell column i (out[i] = discharged).

    drifted[r, i]: deterministic Vth_eff of selected row r (a WL), + fresh RTN
    rtn_scale[r] * rtn_table[rtn_off[r] + i]. Rows of one string group g (a block's
    sub-block) are in series: the string conducts only if every selected cell is below
    ref_mV, and then discharges the bitline after
        t_const_us + eval_scale * (unsel_us[g, i] + sum over its rows of k_sel / overdrive),
    overdrive = ref - Vth_eff (at least min_od). Groups are in parallel on the bitline:
    it reads discharged if any conducting string discharges by strobe_us. `acc`
    (float32) and `on` (bool), one per bitline, are work space.
    """
    rows = drifted.shape[0]
    n = drifted.shape[1]
    ref = np.float32(ref_mV)
    ks = np.float32(k_sel_us_mV)
    mod = np.float32(min_od_mV)
    zero = np.float32(0.0)
    # group by group, a pass over the bitlines per row: the string's resistance summed over
    # its rows in row order, as one cell at a time would. The first row of a group starts
    # from its pass resistance and the last decides the bitline in the same pass (a group
    # of one row, the usual case, is one pass in all), with the same float32 operations in
    # the same order as a separate start and end pass. Flags combine with & and |, not
    # `and` / `or`: no branch per cell, so the loops vectorise
    out[:] = False
    for g in range(unsel_us.shape[0]):
        first, last = -1, -1
        for r in range(rows):
            if row_group[r] == g:
                last = r
                if first < 0:
                    first = r
        for r in range(first, last + 1):
            if row_group[r] != g:
                continue
            off = rtn_off[r]
            sc = rtn_scale[r]
            row = drifted[r]
            noise = rtn_table[off : off + n]
            unsel = unsel_us[g]
            if r == first and r == last:
                for i in range(n):
                    od = ref - (row[i] + sc * np.float32(noise[i]))
                    a = unsel[i] + ks / max(od, mod)
                    out[i] = out[i] | ((od > zero) & (t_const_us + eval_scale * a <= strobe_us))
            elif r == first:
                for i in range(n):
                    od = ref - (row[i] + sc * np.float32(noise[i]))
                    on[i] = od > zero
                    acc[i] = unsel[i] + ks / max(od, mod)
            elif r == last:
                for i in range(n):
                    od = ref - (row[i] + sc * np.float32(noise[i]))
                    a = acc[i] + ks / max(od, mod)
                    conducts = on[i] & (od > zero)
                    out[i] = out[i] | (conducts & (t_const_us + eval_scale * a <= strobe_us))
            else:
                for i in range(n):
                    od = ref - (row[i] + sc * np.float32(noise[i]))
                    on[i] = on[i] & (od > zero)
                    acc[i] += ks / max(od, mod)


@njit(cache=True, fastmath=_EXACT_DIVISION, error_model="numpy")
def string_sum_kernel(
    vth: np.ndarray, total: np.ndarray, k_pass_us_mV: float, vpass_mV: float, min_od_mV: float
) -> None:
    """total[i] += k_pass / max(vpass - vth[i], min_od): one WL's float32 terms added to the
    string's float64 sum (exact, see the module docstring)."""
    kp = np.float32(k_pass_us_mV)
    vp = np.float32(vpass_mV)
    mod = np.float32(min_od_mV)
    for i in range(vth.shape[0]):
        total[i] += np.float64(kp / max(vp - np.float32(vth[i]), mod))


@njit(cache=True, fastmath=_EXACT_DIVISION, error_model="numpy")
def unselect_kernel(
    total: np.ndarray,
    selected_vth: np.ndarray,
    selected_erased: int,
    erased_term: np.float32,
    out: np.ndarray,
    acc: np.ndarray,
    k_pass_us_mV: float,
    vpass_mV: float,
    min_od_mV: float,
) -> None:
    """out[i] = float32(total[i] - the selected WLs' terms): the string's pass resistance
    without its selected WLs (rows of selected_vth, and `selected_erased` erased ones).
    `acc` (float64, one per cell) is work space."""
    kp = np.float32(k_pass_us_mV)
    vp = np.float32(vpass_mV)
    mod = np.float32(min_od_mV)
    base = np.float64(selected_erased) * np.float64(erased_term)
    for i in range(acc.shape[0]):
        acc[i] = total[i] - base
    for r in range(selected_vth.shape[0]):
        vth = selected_vth[r]
        for i in range(acc.shape[0]):
            acc[i] -= np.float64(kp / max(vp - np.float32(vth[i]), mod))
    for i in range(acc.shape[0]):
        out[i] = np.float32(acc[i])
