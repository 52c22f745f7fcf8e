"""Flash-Cosmos' zero-error claims at the paper's scale: ESP data (Fig. 11, tESP 1.94 x
tPROG) and MWS over ESP operands (Sec. 5.2), after 10K P/E cycles and 1 year at 30 C, on
at least as many cells as the paper read (4.83e11 bits).

Every cell goes through the virtual die's own physics, the same code a campaign runs
(`CellArray`: wear, erase draw, ESP program with its verify shortfall, per-cell retention
and layer / block / chip variation, program interference, read disturb, RTN); only the
layers above the cell array (Chip API, op programs, bus, die state machine) are skipped.
Per block: wear to `--pec`, erase, ESP-program all its WLs with the checker-string pattern
of characterization/flashcosmos/fig11-zero.yaml, age `--retention-h` at 30 C, then
(1) read every WL at the SLC reference and count its bit errors against the data written
(Fig. 11), and (2) MWS ANDs over each string's WLs, two operands at a time (every WL once)
and then all of them (48 on tlc-48l), compared with the AND of the data written: on even
blocks the data, on odd blocks its inverse (so the AND is a NOR of the data, OR by De
Morgan, as sec52.yaml does; Sec. 5.2). The block is then
erased and the next one used, on dies of `--chips` different chip numbers (chip-to-chip
variation included), each worker process on its own chips.

Prints cells read, errors, the exact 95 % upper bound of the per-bit error rate (Clopper-
Pearson; 3.0 / n at zero errors), the rate (cells a second of CPU) and, when stopped by
`--max-minutes`, the projected time of the full count.

    .venv/bin/python bench/esp_zero.py [--bits 4.83e11] [--workers 2] [--max-minutes 40]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import time
from dataclasses import asdict, dataclass

import numpy as np
from nandlab.characterize.readback import STRING_CHECKER, DataSpec, page_data
from nandlab.onfi_spec.testmode import ESP_STEP_UNIT_MV
from nandlab.profiles import load_profile
from nandlab.vchip import CellArray
from nandlab.vchip.physics import RTN_TABLE_ONE, IsppTune
from scipy import stats

PAPER_BITS = 4.83e11
PROFILE = "tlc-48l"
YEAR_H = 8760.0
USE_C = 30.0
ESP_STEP_MV = 10 * ESP_STEP_UNIT_MV  # fig11-zero.yaml's esp_program default (100 mV)
MWS_STROBE_US = 1.0e6  # long enough for every conducting string (a logic result, not a timing)


@dataclass
class Tally:
    blocks: int = 0
    cells: int = 0  # ESP cells read (Fig. 11)
    errors: int = 0
    mws_bits: int = 0  # MWS result bits compared (Sec. 5.2)
    mws_errors: int = 0
    expected: float = 0.0  # RTN-driven errors the read cells' own Vth_eff give (see _expected)
    cpu_s: float = 0.0

    def add(self, other: Tally) -> None:
        for k, v in asdict(other).items():
            setattr(self, k, getattr(self, k) + v)


def upper_bound(errors: int, n: int) -> float:
    """Exact (Clopper-Pearson) one-sided 95 % upper bound of a binomial rate."""
    return float(stats.beta.ppf(0.95, errors + 1, n - errors)) if n else 1.0


def _block(a: CellArray, block: int, tune: IsppTune, pec: int, hours: float, seed: int) -> Tally:
    prof = a.profile
    g = prof.geometry
    cells, subs = g.cells_per_wl, g.sub_blocks
    inverse = block % 2 == 1
    spec = DataSpec(STRING_CHECKER, seed, slc=True, inverse=inverse)
    a.add_wear(block, pec - a.pec(block))  # ends erased, as the campaign's cycle step
    data = []
    for wl in range(g.wls_per_block):
        page = np.frombuffer(page_data(prof, spec, block, wl, 0), dtype=np.uint8)
        data.append(page)
        if not a.program(block, wl, {0: page}, slc=True, ispp=tune).ok:
            raise RuntimeError(f"ESP program failed: block {block} WL {wl}")
    a.bake(USE_C, hours)
    ref = prof.read_offsets.slc_reference.default_mV
    t = Tally(blocks=1)
    for wl, page in enumerate(data):
        got = a.sense(block, wl, ref, slc=True)
        t.errors += int(np.unpackbits(got ^ page).sum())
        t.cells += 8 * page.size
        t.expected += _expected(a, block, wl, page, ref)
    for sub in range(subs):
        string = list(range(sub, g.wls_per_block, subs))
        # every string WL in one 2-operand AND (the checker-string phases alternate along the
        # string, so each bitline ANDs a programmed with an erased cell: any programmed cell
        # read as conducting flips the result), then all of the string's WLs at once
        for wls in [string[i : i + 2] for i in range(0, len(string), 2)] + [string]:
            got = a.sense_mws([(block, wls)], ref, MWS_STROBE_US)
            want = np.bitwise_and.reduce(np.stack([data[w] for w in wls]), axis=0)
            t.mws_errors += int(np.unpackbits(got ^ want).sum())
            t.mws_bits += 8 * want.size
    a.erase(block)
    assert cells == 8 * data[0].size
    return t


def _expected(a: CellArray, block: int, wl: int, page: np.ndarray, ref: float) -> float:
    """Sum over the WL's cells of the probability that the read noise alone makes the cell
    read wrong, given its simulated deterministic Vth_eff (the drift the sensing just used,
    kept by the array): P(L > margin / b) = exp(-margin / b) / 2 for the Laplacian RTN of
    scale b. An estimate from the simulated cells, not a count: it resolves rates far below
    1 / cells read, and tells whether the counted errors are RTN-driven."""
    hit = a._drift.entries.get((block, wl))
    coeffs = a._coeffs
    assert hit is not None and coeffs is not None
    drifted = hit[1].astype(np.float64)
    b = coeffs[1].rtn_per_unit * RTN_TABLE_ONE
    bits = np.unpackbits(page, bitorder="little")[: drifted.size].astype(bool)
    # a programmed cell (bit 0) errs above ref -> below; an erased one (bit 1) the reverse
    margin = np.where(bits, ref - drifted, drifted - ref)
    ok = margin > 0  # cells already on the wrong side are counted by the read itself
    return float(0.5 * np.exp(-margin[ok] / b).sum())


def worker(args: tuple[int, int, int, int, float, float, float, int, dict[str, float]]) -> Tally:
    """Blocks of chips chip0, chip0 + stride, ... until `cells` ESP cells are read or the
    deadline passes."""
    chip0, stride, seed, pec, hours, raise_mV, deadline, cells, shortfall = args
    prof = load_profile(PROFILE)
    if shortfall:  # candidate values of the SLC verify shortfall (a refit)
        short = prof.physics.slc_verify_shortfall
        assert short is not None
        phys = prof.physics.model_copy(
            update={"slc_verify_shortfall": short.model_copy(update=shortfall)}
        )
        prof = prof.model_copy(update={"physics": phys})
    phys = prof.physics
    isp = phys.slc_ispp or phys.ispp
    tune = IsppTune(isp.start_mV, ESP_STEP_MV, phys.slc_verify_mV + raise_mV, 0)
    total = Tally()
    c0 = time.process_time()
    chip = chip0
    while total.cells < cells and time.time() < deadline:
        a = CellArray(prof, seed, chip)
        for block in range(1, prof.geometry.blocks):
            if a.is_factory_bad(block):
                continue
            total.add(_block(a, block, tune, pec, hours, seed + chip))
            if total.cells >= cells or time.time() >= deadline:
                break
        chip += stride
    total.cpu_s = time.process_time() - c0
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bits", type=float, default=PAPER_BITS, help="ESP cells to read")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--max-minutes", type=float, default=float("inf"))
    ap.add_argument("--pec", type=int, default=10000)
    ap.add_argument("--retention-h", type=float, default=YEAR_H)
    ap.add_argument("--seed", type=int, default=25)
    ap.add_argument("--verify-raise", type=float, default=1000.0,
                    help="ESP verify raise (mV): 1000 = 1.94 x tPROG, fig11-zero.yaml's")
    ap.add_argument("--knee-mV", type=float, help="try this SLC verify shortfall knee (max_mV)")
    ap.add_argument("--tail-mV", type=float, help="try this shortfall tail width (tail_mV)")
    ap.add_argument("--json", help="also write the tally here")
    a = ap.parse_args()
    start = time.time()
    deadline = start + 60.0 * a.max_minutes
    share = int(np.ceil(a.bits / a.workers))
    shortfall = {k: v for k, v in (("max_mV", a.knee_mV), ("tail_mV", a.tail_mV)) if v is not None}
    jobs = [(w, a.workers, a.seed, a.pec, a.retention_h, a.verify_raise, deadline, share,
             shortfall) for w in range(a.workers)]
    total = Tally()
    if a.workers == 1:
        total.add(worker(jobs[0]))
    else:
        with mp.get_context("spawn").Pool(a.workers) as pool:
            for t in pool.imap_unordered(worker, jobs):
                total.add(t)
    wall = time.time() - start
    rate = total.cells / total.cpu_s
    print(f"profile: {PROFILE}, {a.pec} P/E, {a.retention_h:g} h at {USE_C:g} C, "
          f"ESP verify +{a.verify_raise:g} mV, {total.blocks} blocks")
    print(f"esp_cells_read: {total.cells:.4g}  errors: {total.errors}  "
          f"95% upper bound: {upper_bound(total.errors, total.cells):.3g} per bit")
    print(f"esp_rtn_expected: {total.expected:.3g} errors, {total.expected / total.cells:.3g} "
          f"per bit (RTN's exact tail over the read cells' simulated Vth: an estimate)")
    print(f"mws_result_bits: {total.mws_bits:.4g}  errors: {total.mws_errors}  "
          f"95% upper bound: {upper_bound(total.mws_errors, total.mws_bits):.3g} per bit "
          f"(operand cells: the ESP cells above)")
    print(f"rate: {rate:.3g} ESP cells per CPU second ({total.cpu_s:.0f} s CPU, "
          f"{wall:.0f} s wall, {a.workers} worker(s))")
    if total.cells < PAPER_BITS:
        print(f"projected CPU time for {PAPER_BITS:.3g} cells: {PAPER_BITS / rate / 3600:.2f} h")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({**asdict(total), "wall_s": wall, "rate": rate, "pec": a.pec,
                       "retention_h": a.retention_h, "profile": PROFILE,
                       "verify_raise_mV": a.verify_raise,
                       "esp_rtn_expected_per_bit": total.expected / max(total.cells, 1),
                       "esp_upper_bound": upper_bound(total.errors, total.cells),
                       "mws_upper_bound": upper_bound(total.mws_errors, total.mws_bits)}, f)


if __name__ == "__main__":
    main()
