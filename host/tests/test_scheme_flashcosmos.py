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
