"""Multi-wordline sensing (Flash-Cosmos MWS) of the virtual die.

Several WLs are sensed at once: WLs of one sub-block of a block are in series on
their string, strings of other sub-blocks or blocks share the bitline. Whether a
bitline reads discharged depends on the string's resistance, so every unselected
cell of the string (at VPASS) counts too; `MwsSensing` keeps that pass resistance
per string while the block's stored Vth holds.

Importing this module compiles (or loads) its numba kernels: the array imports it
on the first MWS only.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numba import njit

from nandlab.profiles.model import Physics
from nandlab.vchip import physics as ph
from nandlab.vchip.cells import Block, WordLine
from nandlab.vchip.sensing import DriftCache, ReadNoise

PASS_CACHE_STRINGS = 16  # strings whose pass resistance is kept: 4 blocks x 4 sub-blocks

# The kernels that divide: fastmath without "arcp" (a reciprocal estimate would move the
# last bits of a quotient, and with them a bitline at its strobe), and numpy's error model
# (no zero-divisor check: every divisor is at least min_od_mV > 0), so the loop of
# pass_resistance_kernel vectorises with exact divisions, the same bits as scalar ones.
_EXACT_DIVISION = {"nnan", "ninf", "nsz", "contract", "afn", "reassoc"}


class ArrayState(Protocol):
    """What MWS reads of the cell array (`vchip.array.CellArray`), which imports this
    module, so it is named here by the members it uses."""

    _phys: Physics
    _sub_blocks: int
    _cells: int
    _wls_n: int
    _noise: ReadNoise

    def _check_wl(self, block: int, wl: int) -> None: ...

    def _block(self, block: int) -> Block: ...

    def _history(
        self, blk: Block, wl: int
    ) -> tuple[WordLine | None, ph.SenseCoefficients]: ...

    def _wl_cells(
        self, block: int, wl: int, blk: Block, w: WordLine | None
    ) -> tuple[np.ndarray, np.ndarray]: ...


class MwsSensing:
    """The MWS of one die's cell array, with the per-string pass resistance it keeps."""

    def __init__(self, array: ArrayState) -> None:
        self._a = array
        self._pass = DriftCache(array._cells, PASS_CACHE_STRINGS)  # per (block, sub-block)

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
        from nandlab.vchip.kernel import drift_kernel

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
        cells = a._cells
        drifted = np.empty((len(rows), cells), dtype=np.float32)
        offs = np.empty(len(rows), dtype=np.int64)
        scale = np.empty(len(rows), dtype=np.float32)
        row_group = np.empty(len(rows), dtype=np.int32)
        for r, (block, wl) in enumerate(rows):
            blk = a._block(block)
            w, c = a._history(blk, wl)
            drift_kernel(*a._wl_cells(block, wl, blk, w), drifted[r], c.drift)
            offs[r] = a._noise.offset()
            scale[r] = c.rtn_per_unit
            row_group[r] = keys[(block, wl % subs)]
        for b in blocks:
            a._block(b).reads += 1
        unsel = np.empty((len(keys), cells), dtype=np.float32)
        for (block, sub), g in keys.items():
            skip = tuple(wl for b, wl in rows if b == block and wl % subs == sub)
            unsel[g] = self.pass_resistance(block, sub, skip)
        t_pre = max(sens.t_bl_precharge_us, sens.t_wl_precharge_us_per_block * nb)
        t_const = t_pre + sens.t_discharge_us + sens.t_fixed_us
        eval_scale = 1.0 + sens.charge_sharing_per_block * (nb - 1)
        out = np.empty(cells, dtype=np.bool_)
        mws_kernel(
            drifted,
            a._noise.table,
            offs,
            scale,
            row_group,
            unsel,
            out,
            float(ref_mV),
            sens.k_sel_us_V * 1000.0,
            sens.min_overdrive_mV,
            t_const,
            eval_scale,
            float(strobe_us),
        )
        return np.packbits(out, bitorder="little")

    def pass_resistance(self, block: int, sub: int, skip: tuple[int, ...]) -> np.ndarray:
        """Per cell, the pass resistance (µs) of string (block, sub-block) at VPASS without
        its selected WLs `skip`. Kept while the block's stored Vth holds (version: program,
        erase, wear; retention and read disturb do not enter it), so an MWS repeated on the
        same WLs (a strobe search) sums the string once: the row is bit for bit the sum."""
        a = self._a
        blk = a._block(block)
        phys = a._phys
        sens, vpass = phys.sensing, phys.vpass_mV
        erased_r = sens.k_pass_us_V * 1000.0 / max(vpass - phys.erased_mean_mV, 1.0)

        def fill(acc: np.ndarray) -> None:
            acc[:] = 0.0
            for wl in range(sub, a._wls_n, a._sub_blocks):
                w = blk.wls.get(wl)
                if wl in skip:
                    continue
                if w is None:
                    acc += erased_r
                else:
                    kp = sens.k_pass_us_V * 1000.0
                    pass_resistance_kernel(w.vth, acc, kp, vpass, sens.min_overdrive_mV)

        return self._pass.get((block, sub), (blk.version, blk.pec, skip), fill)

    def clear(self) -> None:
        """Drop the kept pass resistances (they are recomputed on the next MWS)."""
        self._pass.clear()


@njit(cache=True, fastmath=_EXACT_DIVISION, error_model="numpy")
def mws_kernel(
    drifted: np.ndarray,
    rtn_table: np.ndarray,
    rtn_off: np.ndarray,
    rtn_scale: np.ndarray,
    row_group: np.ndarray,
    unsel_us: np.ndarray,
    out: np.ndarray,
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
    it reads discharged if any conducting string discharges by strobe_us.
    """
    rows = drifted.shape[0]
    n = drifted.shape[1]
    ref = np.float32(ref_mV)
    ks = np.float32(k_sel_us_mV)
    mod = np.float32(min_od_mV)
    # group by group, each a pass over the bitlines (vectorised): the string's resistance
    # summed over its rows in row order, as one cell at a time would
    acc = np.empty(n, dtype=np.float32)
    on = np.empty(n, dtype=np.bool_)
    out[:] = False
    for g in range(unsel_us.shape[0]):
        acc[:] = unsel_us[g]
        on[:] = True
        for r in range(rows):
            if row_group[r] != g:
                continue
            off = rtn_off[r]
            sc = rtn_scale[r]
            for i in range(n):
                od = ref - (drifted[r, i] + sc * np.float32(rtn_table[off + i]))
                on[i] = on[i] and od > 0
                acc[i] += ks / (od if od > mod else mod)
        for i in range(n):
            out[i] = out[i] or (on[i] and t_const_us + eval_scale * acc[i] <= strobe_us)


@njit(cache=True, fastmath=_EXACT_DIVISION, error_model="numpy")
def pass_resistance_kernel(
    vth: np.ndarray, acc: np.ndarray, k_pass_us_mV: float, vpass_mV: float, min_od_mV: float
) -> None:
    """acc[i] += k_pass / (vpass - vth[i]): an unselected cell of the string at VPASS."""
    kp = np.float32(k_pass_us_mV)
    vp = np.float32(vpass_mV)
    mod = np.float32(min_od_mV)
    for i in range(vth.shape[0]):
        acc[i] += kp / max(vp - np.float32(vth[i]), mod)
