"""Flash-Cosmos scheme: bit-exact against the host reference on error-free (ESP) cells."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nandlab.errors import AddressError, RefusedOperation
from nandlab.onfi.chip import Chip
from nandlab.schemes.flashcosmos import FlashCosmos, reference, reference_sop
from nandlab.transport.sim import SimTransport

BLOCKS = [2, 4, 6, 8, 10, 12]  # plane 0
INVERSE_BLOCK = 14
WLS = 12


@pytest.fixture(scope="module")
def fc():
    bench = SimTransport("tlc-48l", seed=11, persist=False)
    chip = Chip(bench)
    chip.identify()
    fc = FlashCosmos(chip, allow_test_mode=True)
    rng = np.random.default_rng(5)
    data = {}
    for b in [*BLOCKS, INVERSE_BLOCK]:
        chip.erase_block(b)
        for wl in range(WLS):
            d = rng.integers(0, 256, fc.page_bytes, dtype=np.uint8).tobytes()
            data[(b, wl)] = d
            fc.store(b, wl, d, inverse=b == INVERSE_BLOCK)
    return fc, data


operand = st.tuples(st.sampled_from(BLOCKS), st.integers(0, WLS - 1))
operands = st.lists(operand, min_size=1, max_size=8, unique=True)
SETTINGS = settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SETTINGS
@given(ops=operands, op=st.sampled_from(["and", "nand", "or", "nor"]))
def test_and_or_bit_exact(fc, ops, op):
    f, data = fc
    res = getattr(f, op if op in ("nand", "nor") else op + "_")(ops)
    assert res.data == reference(op, [data[o] for o in ops])


@SETTINGS
@given(ops=st.lists(operand, min_size=2, max_size=4, unique=True), xnor=st.booleans())
def test_xor_bit_exact(fc, ops, xnor):
    f, data = fc
    res = f.xor(ops, xnor=xnor)
    assert res.data == reference("xnor" if xnor else "xor", [data[o] for o in ops])


@SETTINGS
@given(wls=st.lists(st.integers(0, WLS - 1), min_size=1, max_size=WLS, unique=True))
def test_de_morgan_or_of_inverse_stored_operands(fc, wls):
    f, data = fc
    ops = [(INVERSE_BLOCK, w) for w in wls]
    assert f.or_(ops, stored_inverse=True).data == reference("or", [data[o] for o in ops])
    assert f.nor(ops, stored_inverse=True).data == reference("nor", [data[o] for o in ops])


@SETTINGS
@given(
    terms=st.lists(
        st.tuples(st.sampled_from(BLOCKS), st.integers(0, 3), st.integers(1, 3)),
        min_size=1,
        max_size=4,
        unique_by=lambda t: t[0],
    )
)
def test_sum_of_products_equation_1(fc, terms):
    f, data = fc
    prods = [[(b, sub + 4 * k) for k in range(n)] for b, sub, n in terms]
    res = f.sop(prods)
    assert res.data == reference_sop([[data[o] for o in p] for p in prods])
    assert res.sensings == 1


def test_block_limit_and_plane_rules(fc):
    f, data = fc
    ops = [(b, 0) for b in BLOCKS]  # 6 blocks > 4
    with pytest.raises(RefusedOperation, match="power budget"):
        f.tm.mws([(b, [0]) for b in BLOCKS])
    res = f.or_(ops)  # split into commands of <= 4 blocks, accumulated
    assert res.sensings == 2 and res.data == reference("or", [data[o] for o in ops])
    res = f.or_(ops, allow_over_power=True)
    assert res.sensings == 1 and res.data == reference("or", [data[o] for o in ops])
    with pytest.raises(AddressError, match="plane"):
        f.and_([(2, 0), (3, 0)])


def test_intra_block_all_wls_of_a_string(fc):
    f, data = fc
    ops = [(2, w) for w in range(0, WLS, 4)]
    res = f.and_(ops)
    assert res.sensings == 1 and res.data == reference("and", [data[o] for o in ops])


# ---------------------------------------------------------------- reliability (Fig. 8 / 11)

SUB = 4  # sub-blocks: string WL k of sub-block 0 is WL 4k


def _bench(seed: int):
    from nandlab.onfi.testmode import TestMode

    bench = SimTransport("tlc-48l", seed=seed, persist=False)
    chip = Chip(bench)
    chip.identify()
    return bench, chip, TestMode(chip, allow_test_mode=True)


def _checkered(k: int, nbits: int) -> np.ndarray:
    return ((np.arange(nbits) + k) % 2 == 0).astype(np.uint8)


def _scrambled(bits: np.ndarray, seed: int) -> np.ndarray:
    return bits ^ np.random.default_rng(seed).integers(0, 2, bits.size, dtype=np.uint8)


def _buf(bits: np.ndarray, total: int) -> bytes:
    raw = np.packbits(bits, bitorder="little").tobytes()
    return raw + b"\xff" * (total - len(raw))


def _errors(data: bytes, exp: np.ndarray) -> int:
    got = np.unpackbits(np.frombuffer(data, np.uint8), bitorder="little")[: exp.size]
    return int(np.count_nonzero(got != exp))


def _mlc_errors(seed: int, pattern: str, wls: int = 3) -> int:
    """Errors in `wls` MLC-mode WLs (both pages) at 10K P/E, read at once."""
    bench, chip, tm = _bench(seed)
    geo = chip.geometry
    nbits, total = geo.page_bytes * 8, geo.total_bytes
    bench.fast_forward_wear(0, 2, 9_999)
    chip.erase_block(2)
    pages = []
    for k in range(wls + 1):
        lower = _checkered(k, nbits)
        upper = np.ones(nbits, np.uint8)
        if pattern == "randomized":
            lower, upper = _scrambled(lower, 2 * k), _scrambled(upper, 2 * k + 1)
        for pt, bits in enumerate((lower, upper)):
            tm.program_mlc(2, 2 * SUB * k + pt, _buf(bits, total))
        pages.append((lower, upper))
    return sum(
        _errors(tm.read_mlc(2, 2 * SUB * k + pt).data, pages[k][pt])
        for k in range(wls)
        for pt in (0, 1)
    )


def _slc_errors(seed: int, wls: int, esp: dict | None = None, bake_h: float = 0.0) -> int:
    """Errors in `wls` checkered SLC WLs at 10K P/E (regular or ESP), after a bake at 85 C."""
    bench, chip, tm = _bench(seed)
    geo = chip.geometry
    nbits, total = geo.page_bytes * 8, geo.total_bytes
    bench.fast_forward_wear(0, 2, 9_999)
    chip.erase_block(2)
    if esp:
        tm.set_esp(**esp)
    pages = [_checkered(k, nbits) for k in range(wls + 1)]
    for k, bits in enumerate(pages):
        tm.program_esp(2, SUB * k, _buf(bits, total))
    tm.clear_esp()
    bench.bake(85.0, bake_h)
    return sum(_errors(chip.read_page(2, SUB * k, slc=True).data, pages[k]) for k in range(wls))


def test_mlc_mode_is_worse_than_slc_mode():
    # checkered, 10K P/E, no retention: MLC ~1.6e-2, regular SLC ~4e-3 (Fig. 8: up to 4x)
    mlc = _mlc_errors(31, "checkered")  # 7.9e5 bits
    slc = _slc_errors(31, 6)  # 7.9e5 bits
    assert slc > 300  # regular SLC data has a real RBER (noisy SLC verify)
    assert mlc > 2 * slc


def test_regular_slc_loses_data_with_retention_esp_at_1_9x_does_not():
    # 10K P/E + 1 year at 30 C, checkered: regular SLC ~9e-3; ESP at tESP ~1.94 tPROG (100 mV
    # steps up to 1000 mV above the SLC verify) stays below the shortfall's bound: zero
    regular = _slc_errors(34, 4, bake_h=13.6)  # 5.2e5 bits
    assert regular > 1000
    assert regular > 1.5 * _slc_errors(34, 4)  # retention adds errors
    esp = _slc_errors(34, 47, {"step_mV": 100.0, "verify_raise_mV": 1000.0}, bake_h=13.6)
    assert esp == 0  # in 6.2e6 bits


def test_slc_verify_shortfall_is_exponential_and_bounded():
    from nandlab.profiles.loader import load_profile
    from nandlab.vchip.array import CellArray

    prof = load_profile("tlc-48l")
    sf = prof.physics.slc_verify_shortfall
    assert sf is not None
    a = CellArray(prof, seed=3)
    a.add_wear(2, 10_000)
    nbytes = prof.geometry.page_bytes + prof.geometry.spare_bytes
    for wl in range(0, 16, 4):  # every cell programmed; no neighbour above in the same string
        assert a.program(2, wl, {0: np.zeros(nbytes, np.uint8)}, slc=True).ok

    def below(ref: float) -> int:
        return sum(
            int(np.unpackbits(a.sense(2, wl, ref, slc=True)).sum()) for wl in range(0, 16, 4)
        )

    lam = sf.scale(1.0)
    v = prof.physics.slc_verify_mV
    n1, n2 = below(v - lam), below(v - 2 * lam)
    assert 0.2 < n2 / n1 < 0.6  # exp(-1) tail (blurred by the ISPP step and spreads)
    assert below(v - sf.max_mV - 250.0) == 0  # nothing beyond the bound (+ spreads)
    assert below(v - sf.max_mV + 300.0) > 0


def test_checkered_pattern_is_worse_than_randomized_mlc():
    # interference: every erased cell of the checkered pattern has an L3 neighbour above
    checkered, randomized = _mlc_errors(32, "checkered"), _mlc_errors(32, "randomized")
    assert checkered > 2.5 * randomized > 0


def test_longer_esp_gives_lower_rber():
    regular = _slc_errors(33, 47, bake_h=13.6)  # 10K P/E + 1 year at 30 C
    mid = _slc_errors(33, 47, {"step_mV": 100.0, "verify_raise_mV": 300.0}, bake_h=13.6)
    esp = _slc_errors(33, 47, {"step_mV": 100.0, "verify_raise_mV": 600.0}, bake_h=13.6)
    assert regular > 40
    assert regular > 2 * mid > 4 * esp
    assert esp > 0  # tESP ~1.6 tPROG: far fewer errors, not yet none (the tail is bounded later)


def test_mlc_mode_needs_the_profile_section():
    from nandlab.errors import UnsupportedCapability
    from nandlab.onfi.testmode import TestMode

    chip = Chip(SimTransport("mlc-64l", seed=1, persist=False))
    chip.identify()
    with pytest.raises(UnsupportedCapability, match="mlc_mode"):
        TestMode(chip, allow_test_mode=True).read_mlc(2, 0)


@pytest.mark.parametrize("nblocks", [1, 2, 4])
def test_plan_energy_follows_the_die_current_log(fc, nblocks):
    """A plan's MWS energy uses the multi-block read current the die logs (Fig. 14), and a
    latch XOR the idle current: plan energy == the die's logged energy over R/B# low."""
    from nandlab.schemes.base import chip_op

    f, _ = fc
    die = f.chip.transport.dies[0]
    res = f.nor([(b, 0) for b in BLOCKS[:nblocks]])
    kinds = [k for k, _, _ in res.ops]
    assert kinds == ["mws", "latch", "xor"], kinds
    # the latch XOR was the last busy period
    t1 = die.busy_until_ns
    xor = chip_op(f.chip.profile, "xor", "x", res.ops[-1][1])
    assert xor.energy_uJ == pytest.approx(die.energy_nJ(t1 - die.last_busy_ns, t1) / 1000.0)
    res = f.or_([(b, 0) for b in BLOCKS[:nblocks]])
    ((kind, busy_ns, blocks),) = res.ops
    assert (kind, blocks) == ("mws", nblocks)
    t1 = die.busy_until_ns
    op = chip_op(f.chip.profile, "mws", "m", busy_ns, 1, blocks=blocks)
    assert op.energy_uJ == pytest.approx(die.energy_nJ(t1 - die.last_busy_ns, t1) / 1000.0)
    read = chip_op(f.chip.profile, "mws", "m", busy_ns, 1, blocks=1)
    assert (op.energy_uJ > 1.3 * read.energy_uJ) == (nblocks > 1)
