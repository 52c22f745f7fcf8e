"""CellArray: geometry, determinism, program / sense / erase semantics, die image."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from nandlab.errors import AddressError, ProfileError
from nandlab.profiles import Profile, builtin_names, load_profile
from nandlab.vchip import ArrayResult, CellArray, array_image
from nandlab.vchip import physics as ph
from nandlab.vchip.cells import NO_AGE


@pytest.fixture(scope="module")
def mlc() -> Profile:
    return load_profile("mlc-64l")


def page_bytes(p: Profile) -> int:
    return p.geometry.page_bytes + p.geometry.spare_bytes


def random_pages(p: Profile, seed: int) -> dict[int, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = page_bytes(p)
    return {pt: rng.integers(0, 256, n, dtype=np.uint8) for pt in range(p.geometry.bits_per_cell)}


def read_page(a: CellArray, p: Profile, block: int, wl: int, ptype: int) -> np.ndarray:
    """Page read as the die does it: XOR of NOT sense over the page's references."""
    out = np.full(page_bytes(p), 0xFF, dtype=np.uint8)
    for r in p.page_refs[ptype]:
        out ^= ~a.sense(block, wl, p.read_offsets.references[r].default_mV, False)
    return out


def bit_errors(a: np.ndarray, b: np.ndarray) -> int:
    return int(np.unpackbits(a ^ b).sum())


def good_block(a: CellArray, start: int = 1) -> int:
    b = start
    while a.is_factory_bad(b):
        b += 1
    return b


def test_opens_empty_and_checks_addresses(mlc: Profile) -> None:
    a = CellArray(mlc, seed=1)
    assert a._blocks == {}
    assert a.pec(0) == 0 and a.block_is_slc(0) is None and a.wl_programmed(0, 0) == set()
    with pytest.raises(AddressError, match=r"block 2048 out of range 0\.\.2047"):
        a.erase(2048)
    with pytest.raises(AddressError, match=r"word line 256 out of range 0\.\.255"):
        a.sense(0, 256, 0.0, False)
    with pytest.raises(AddressError, match="page type 2"):
        a.program(0, 0, {2: np.zeros(page_bytes(mlc), np.uint8)}, False)


def test_memory_only_for_touched_blocks(mlc: Profile) -> None:
    a = CellArray(mlc, seed=1)
    a.program(3, 5, random_pages(mlc, 0), False)
    a.sense(7, 0, 0.0, False)
    assert set(a._blocks) == {3, 7}
    assert list(a._blocks[3].wls) == [5] and a._blocks[7].wls == {}
    w = a._blocks[3].wls[5]
    assert (w.vth.dtype, w.personality.dtype, w.level.dtype) == (np.int16, np.int8, np.uint8)
    assert w.vth.nbytes + w.personality.nbytes + w.level.nbytes == 4 * mlc.geometry.cells_per_wl


def test_deterministic_from_seed(mlc: Profile) -> None:
    pages = random_pages(mlc, 1)
    a, b, c = (CellArray(mlc, seed=s) for s in (7, 7, 8))
    for arr in (a, b, c):
        arr.program(2, 9, pages, False)
    wa, wb, wc = (arr._blocks[2].wls[9] for arr in (a, b, c))
    assert np.array_equal(wa.vth, wb.vth) and np.array_equal(wa.personality, wb.personality)
    assert not np.array_equal(wa.vth, wc.vth)
    # erased WLs are drawn, not stored, and the draw is reproducible
    assert np.array_equal(
        ph.erased_vth(mlc.physics, 7, 0, 2, 10, 0, 64),
        ph.erased_vth(mlc.physics, 7, 0, 2, 10, 0, 64),
    )


def test_personality_survives_erase_and_reprogram(mlc: Profile) -> None:
    a = CellArray(mlc, seed=4)
    a.program(1, 0, random_pages(mlc, 1), False)
    first = a._blocks[1].wls[0].personality.copy()
    first_vth = a._blocks[1].wls[0].vth.copy()
    assert a.erase(1).ok
    a.program(1, 0, random_pages(mlc, 1), False)
    assert np.array_equal(a._blocks[1].wls[0].personality, first)
    assert not np.array_equal(a._blocks[1].wls[0].vth, first_vth)  # new ISPP landing


def test_program_sense_round_trip_fresh(mlc: Profile) -> None:
    a = CellArray(mlc, seed=2)
    pages = random_pages(mlc, 2)
    r0 = a.program(1, 4, {0: pages[0]}, False)
    r1 = a.program(1, 4, {1: pages[1]}, False)
    assert r0.ok and r1.ok and r1.loops > r0.loops > 0
    assert r1.busy_us > r0.busy_us
    assert a.wl_programmed(1, 4) == {0, 1} and a.block_is_slc(1) is False
    for pt in (0, 1):
        assert bit_errors(read_page(a, mlc, 1, 4, pt), pages[pt]) == 0
    # an erased WL reads all ones (L0) at every reference
    assert bit_errors(read_page(a, mlc, 1, 5, 1), np.full(page_bytes(mlc), 0xFF, np.uint8)) == 0


def test_upper_page_first_then_lower(mlc: Profile) -> None:
    a = CellArray(mlc, seed=2)
    pages = random_pages(mlc, 3)
    a.program(1, 0, {1: pages[1]}, False)
    a.program(1, 0, {0: pages[0]}, False)
    for pt in (0, 1):
        assert bit_errors(read_page(a, mlc, 1, 0, pt), pages[pt]) == 0


def test_charge_only_adds(mlc: Profile) -> None:
    a = CellArray(mlc, seed=5)
    pages = random_pages(mlc, 5)
    a.program(1, 8, {0: pages[0]}, False)
    before = a._blocks[1].wls[8].vth.copy()
    a.program(1, 8, {1: pages[1]}, False)
    after = a._blocks[1].wls[8].vth
    assert np.all(after >= before)
    # forced program of the lower page with all zeros: never removes charge
    a.program(1, 8, {0: np.zeros(page_bytes(mlc), np.uint8)}, False)
    assert np.all(a._blocks[1].wls[8].vth >= after)


def test_program_interference_on_string_neighbour_below(mlc: Profile) -> None:
    a = CellArray(mlc, seed=6)
    sub = mlc.geometry.sub_blocks
    a.program(1, 0, random_pages(mlc, 1), False)
    low = a._blocks[1].wls[0].vth.copy()
    a.program(1, 1, random_pages(mlc, 2), False)  # other sub-block: no coupling
    assert np.array_equal(a._blocks[1].wls[0].vth, low)
    a.program(1, sub, random_pages(mlc, 3), False)
    shift = a._blocks[1].wls[0].vth.astype(np.int32) - low
    assert shift.min() >= 0 and 0 < shift.mean() < 0.05 * 5200


def test_slc_mode_and_mode_mismatch(mlc: Profile) -> None:
    a = CellArray(mlc, seed=3)
    data = random_pages(mlc, 9)[0]
    r = a.program(1, 0, {0: data}, True)
    assert r.ok and a.block_is_slc(1) is True and a.wl_programmed(1, 0) == {0}
    ref = mlc.read_offsets.slc_reference.default_mV
    assert bit_errors(a.sense(1, 0, ref, True), data) == 0
    native = a.program(1, 1, {0: data}, False)
    assert native == ArrayResult(False, native.busy_us, 0)
    assert a.wl_programmed(1, 1) == set()
    a.erase(1)
    assert a.block_is_slc(1) is None
    assert a.program(1, 1, {0: data}, False).ok


def test_factory_bad_blocks(mlc: Profile) -> None:
    a = CellArray(mlc, seed=11)
    bad = [b for b in range(mlc.geometry.blocks) if a.is_factory_bad(b)]
    assert 0 not in bad and 0 < len(bad) < 0.02 * mlc.geometry.blocks
    assert bad == [b for b in range(mlc.geometry.blocks) if CellArray(mlc, 11).is_factory_bad(b)]
    b = bad[0]
    assert not a.erase(b).ok
    assert not a.program(b, 0, random_pages(mlc, 0), False).ok
    out = a.sense(b, 0, 0.0, False)
    assert np.array_equal(out, a.sense(b, 0, 5000.0, False))
    assert np.unpackbits(out).mean() < 0.4


def test_erase_resets_and_wears(mlc: Profile) -> None:
    a = CellArray(mlc, seed=12)
    a.program(1, 0, random_pages(mlc, 0), False)
    fresh = a.erase(1)
    assert fresh.ok and fresh.loops == 3 and a.pec(1) == 1
    assert a.wl_programmed(1, 0) == set() and a._blocks[1].wls == {}
    a.add_wear(1, mlc.physics.endurance_pec)
    worn = a.erase(1)
    assert worn.ok and worn.loops == 5 and worn.busy_us > fresh.busy_us
    a.add_wear(1, 20 * mlc.physics.endurance_pec)
    assert not a.erase(1).ok  # far past wear-out


def test_arrhenius_equivalence(mlc: Profile) -> None:
    a = CellArray(mlc, seed=0)
    a.bake(85.0, 13.6)
    assert a.retention_age_h == pytest.approx(8760.0, rel=0.1)
    b = CellArray(mlc, seed=0)
    b.elapse(8760.0)
    assert b.retention_age_h == pytest.approx(8760.0)
    assert math.isclose(ph.arrhenius_factor(mlc.physics, mlc.physics.reference_temp_C), 1.0)


def rber(p: Profile, pec: int, years: float, wls: int = 2, reads: int = 0) -> float:
    a = CellArray(p, seed=21)
    blk = good_block(a)
    a.add_wear(blk, pec)
    written = {wl: random_pages(p, wl) for wl in range(wls)}
    for wl, pages in written.items():
        a.program(blk, wl, pages, False)
    a.elapse(years * 8760.0)
    for _ in range(reads):
        a.sense(blk, wls, 0.0, False)
    errors = sum(
        bit_errors(read_page(a, p, blk, wl, pt), pages[pt])
        for wl, pages in written.items()
        for pt in pages
    )
    return errors / (wls * p.geometry.bits_per_cell * page_bytes(p) * 8)


def test_rber_grows_with_wear_and_retention(mlc: Profile) -> None:
    assert rber(mlc, 0, 0.0) == 0.0
    worn_fresh = rber(mlc, 10000, 0.0)
    mid_year = rber(mlc, 3000, 1.0)
    worn_year = rber(mlc, 10000, 1.0)
    assert worn_fresh < 1.5e-4
    assert 1e-4 <= mid_year <= 1e-3
    assert 1e-3 <= worn_year <= 1e-2
    assert rber(mlc, 10000, 0.25) < worn_year


def test_read_disturb_raises_erased_cells(mlc: Profile) -> None:
    phys = mlc.physics
    quiet = ph.sense_coefficients(phys, 3000, NO_AGE, 0)
    hammered = ph.sense_coefficients(phys, 3000, NO_AGE, 1_000_000)
    assert quiet.rd_per_mV == 0.0
    erased_shift = hammered.rd_per_mV * (phys.vpass_mV - phys.erased_mean_mV)
    top_shift = hammered.rd_per_mV * (phys.vpass_mV - phys.verify_mV[-1])
    assert erased_shift > top_shift > 0


def test_image_round_trip(mlc: Profile) -> None:
    a = CellArray(mlc, seed=9, chip=1)
    a.program(1, 0, random_pages(mlc, 0), False)
    a.program(1, 4, {0: random_pages(mlc, 1)[0]}, False)
    a.program(2, 0, {0: random_pages(mlc, 2)[0]}, True)
    a.add_wear(5, 123)
    a.sense(1, 0, 1350.0, False)
    a.bake(85.0, 2.0)
    image = a.image()
    meta = json.loads(json.dumps(array_image.die_meta(image)))  # as stored: JSON
    blocks = {
        b: array_image.read_block(array_image.cells_bytes(blk), array_image.history_bytes(blk))
        for b, blk in image.blocks.items()
    }
    b = CellArray.from_image(array_image.from_parts(meta, mlc.name, blocks), mlc)
    assert (b.seed, b.chip, b.retention_age_h) == (9, 1, a.retention_age_h)
    assert set(b._blocks) == set(a._blocks)
    for blk in a._blocks:
        assert b.pec(blk) == a.pec(blk) and b.block_is_slc(blk) == a.block_is_slc(blk)
        for wl, w in a._blocks[blk].wls.items():
            v = b._blocks[blk].wls[wl]
            assert np.array_equal(v.vth, w.vth) and np.array_equal(v.level, w.level)
            assert np.array_equal(v.personality, w.personality)
            assert b.wl_programmed(blk, wl) == a.wl_programmed(blk, wl)
    # the read noise continues identically after the reload
    assert np.array_equal(a.sense(1, 0, 1350.0, False), b.sense(1, 0, 1350.0, False))
    with pytest.raises(ProfileError, match="not tlc"):
        array_image.from_parts(meta, "tlc", blocks)


@pytest.mark.parametrize("name", builtin_names())
def test_every_builtin_profile_round_trips_fresh(name: str) -> None:
    p = load_profile(name)
    a = CellArray(p, seed=1)
    pages = random_pages(p, 4)
    assert a.program(0, 1, pages, False).ok
    for pt in pages:
        assert bit_errors(read_page(a, p, 0, 1, pt), pages[pt]) == 0
    assert a.program(1, 0, {0: pages[0]}, True).ok
    slc_errors = bit_errors(a.sense(1, 0, p.read_offsets.slc_reference.default_mV, True), pages[0])
    if p.physics.slc_verify_shortfall is None:
        assert slc_errors == 0
    else:
        # SLC mode with a fast, noisy verify (the Flash-Cosmos chip): even fresh, some cells
        # stop short of the verify level; the paper's SLC RBER is ~1e-4..1e-3, never more
        assert 0 < slc_errors < 1e-3 * pages[0].size * 8


def test_stuck_cells_ignore_data(mlc: Profile) -> None:
    phys = mlc.physics.model_copy(update={"stuck_cell_rate": 1e-3})
    p = mlc.model_copy(update={"physics": phys})
    stuck = ph.stuck_cells(phys, 5, 0, 1, 0, p.geometry.cells_per_wl)
    assert stuck is not None
    idx, high = stuck
    a = CellArray(p, seed=5)
    ref = p.read_offsets.slc_reference.default_mV
    for fill in (0x00, 0xFF):
        a.erase(1)
        a.program(1, 0, {0: np.full(page_bytes(p), fill, np.uint8)}, True)
        bits = np.unpackbits(a.sense(1, 0, ref, True), bitorder="little")
        assert np.array_equal(bits[idx], ~high)


def test_reads_of_other_wls_disturb_erased_cells(mlc: Profile) -> None:
    a = CellArray(mlc, seed=13)
    ref = mlc.physics.erased_mean_mV  # half of the erased cells conduct here

    def conducting() -> int:
        return int(np.unpackbits(a.sense(1, 0, ref, False)).sum())

    a.program(1, 8, random_pages(mlc, 8), False)  # stored: its reads are cheap
    before = conducting()
    for _ in range(2000):
        a.sense(1, 8, 0.0, False)
    after = conducting()
    assert before - after > 0.005 * mlc.geometry.cells_per_wl
    for _ in range(20):  # reading the WL itself does not disturb it
        conducting()
    assert abs(conducting() - after) < 0.002 * mlc.geometry.cells_per_wl


@pytest.mark.parametrize(("pec", "age_h", "reads"), [(0, 0.0, 0), (10000, 8760.0, 10**6)])
def test_erased_read_shortcut_bounds_hold(mlc: Profile, pec: int, age_h: float, reads: int) -> None:
    """A read of an unprogrammed WL outside these bounds skips the draw: they must be safe."""
    phys, n = mlc.physics, mlc.geometry.cells_per_wl
    c = ph.sense_coefficients(phys, pec, (age_h,) * len(NO_AGE), reads)
    lo, hi = ph.erased_eff_bounds(phys, pec, c)
    x = ph.erased_vth(phys, 1, 0, 3, 4, pec, n).astype(np.float64)
    pers = np.array([ph.personality_z(p) for p in ph.personality(phys, 1, 0, 3, 4, n)]) * 32
    rtn_max = c.rtn_per_unit * ph.RTN_TABLE_ONE * ph.RTN_MAX_UNITS  # the largest RTN drawn
    d = np.maximum(x - c.x0_mV, 0.0)
    eff = x - c.ret_mean * d - c.ret_dev * pers * np.sqrt(d)
    eff += c.ret_rise * np.maximum(c.rise_to_mV - x, 0.0)
    eff += c.rd_per_mV * np.maximum(c.vpass_mV - x, 0.0)
    assert lo < eff.min() - rtn_max and eff.max() + rtn_max < hi


@pytest.mark.parametrize("ratio", [0.0, 1.5])
def test_cells_below_the_neutral_vth_drift_up_with_age(mlc: Profile, ratio: float) -> None:
    """physics.erased_shift: erased cells climb toward its neutral Vth as the WL ages (so
    more of the erased tail crosses a reference just above it); at 0 they never gain charge."""
    shift = mlc.physics.erased_shift
    assert shift is not None and shift.ratio > 0  # the MCFlash profile uses it (Fig. 6)
    phys = mlc.physics.model_copy(
        update={"erased_shift": shift.model_copy(update={"ratio": ratio})}
    )
    prof = mlc.model_copy(update={"physics": phys})
    a = CellArray(prof, seed=4)
    a.add_wear(1, 10000)
    a.erase(1)
    ones = np.full(page_bytes(prof), 0xFF, np.uint8)  # every cell stays in L0
    a.program(1, 0, {0: ones, 1: ones}, False)
    ref = -700.0  # the upper tail of a 10K P/E erased state

    def above() -> int:
        return int(prof.geometry.cells_per_wl - np.unpackbits(a.sense(1, 0, ref, False)).sum())

    fresh = above()
    a.bake(phys.reference_temp_C, 8760.0)
    aged = above()
    if ratio:
        assert aged > 1.3 * fresh > 0
    else:
        assert aged <= fresh * 1.05 + 5
