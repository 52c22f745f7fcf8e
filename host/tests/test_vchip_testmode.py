"""Test-mode die mechanisms: entry, inverse read, ParaBit latch micro-operations, MWS, ESP."""

from __future__ import annotations

import numpy as np
import pytest

from nandlab.errors import RefusedOperation, UnsupportedCapability
from nandlab.onfi.chip import Chip
from nandlab.onfi.testmode import (
    Node,
    TestMode,
    init_l1,
    init_l2,
    inverse_read_page,
    m1,
    m2,
    m3,
    sense,
)
from nandlab.onfi_spec.opcodes import Cmd
from nandlab.transport.sim import SimTransport

# ParaBit Tables 1-5 / Fig. 5-6 (LSB = L, MSB = M of one MLC WL)
PARABIT = {
    "AND": ([init_l1(), init_l2(), sense(1), m2(), m3()], lambda L, M: L & M),
    "OR": ([init_l1(), init_l2(), sense(2), m2(), sense(3), m1(), m3()], lambda L, M: L | M),
    "XNOR": (
        [init_l1(), init_l2(), sense(1), m2(), m3(), sense(0), m2()]
        + [sense(2), m1(), sense(3), m2(), m3()],
        lambda L, M: ~(L ^ M),
    ),
    "NAND": ([init_l1(True), init_l2(), sense(1), m1(), m3()], lambda L, M: ~(L & M)),
    "NOR": (
        [init_l1(True), init_l2(), sense(2), m1(), sense(3), m2(), m3()],
        lambda L, M: ~(L | M),
    ),
    "XOR": (
        [init_l1(True), init_l2(), sense(3), m1(), m3(), sense(0), m2()]
        + [sense(1), m1(), sense(2), m2(), m3()],
        lambda L, M: L ^ M,
    ),
    "NOT-LSB": ([init_l1(True), init_l2(), sense(2), m1(), m3()], lambda L, M: ~L),
    "NOT-MSB": (
        [init_l1(True), init_l2(), sense(1), m1(), sense(3), m2(), m3()],
        lambda L, M: ~M,
    ),
}


def errors(a: bytes, b: np.ndarray) -> int:
    return int(np.unpackbits(np.frombuffer(a, np.uint8) ^ b.astype(np.uint8)).sum())


@pytest.fixture(scope="module")
def planar():
    bench = SimTransport("mlc-planar", seed=4, persist=False)
    chip = Chip(bench)
    chip.identify()
    rng = np.random.default_rng(9)
    n = chip.geometry.total_bytes
    lsb = rng.integers(0, 256, n, dtype=np.uint8)
    msb = rng.integers(0, 256, n, dtype=np.uint8)
    chip.erase_block(6)
    chip.program_page(6, 0, lsb.tobytes())
    chip.program_page(6, 1, msb.tobytes())
    return chip, lsb, msb


@pytest.mark.parametrize("name", sorted(PARABIT))
def test_parabit_sequences_match_truth_table(planar, name):
    chip, lsb, msb = planar
    steps, fn = PARABIT[name]
    run = TestMode(chip, allow_test_mode=True).latch_run(6, 0, steps)
    assert errors(run.data, fn(lsb, msb)) == 0
    senses = sum(1 for s in steps if s.op == 0)
    assert run.sensings == senses
    t = chip.profile.timing
    assert run.busy_ns >= senses * t.t_sense_us * 1000


def test_latch_nodes_and_load(planar):
    chip, lsb, _ = planar
    tm = TestMode(chip, allow_test_mode=True)
    tm.latch_run(6, 0, [init_l1(), init_l2(), sense(2), m2(), m3()], read=None)
    assert errors(tm.read_latch(6, Node.A), lsb) == 0
    assert errors(tm.read_latch(6, Node.C), ~lsb) == 0
    assert errors(tm.read_latch(6, Node.B), ~lsb) == 0
    assert errors(tm.read_latch(6, Node.SO), ~lsb) == 0  # SO = 1 where not conducting
    data = bytes(range(256)) * (chip.geometry.total_bytes // 256)
    tm.load_latch(6, Node.A, data)
    assert tm.read_latch(6, Node.A)[: len(data)] == data
    r = tm.latch_xor(6)  # OUT = A ^ OUT
    exp = np.frombuffer(data, np.uint8) ^ lsb[: len(data)]
    assert errors(r.data[: len(data)], exp) == 0


def test_inverse_read_and_soft_bit(planar):
    chip, lsb, msb = planar
    tm = TestMode(chip, allow_test_mode=True)
    assert errors(tm.read_page(6, 0, inverse=True).data, ~lsb) == 0
    assert errors(inverse_read_page(chip, 6, 1, allow_test_mode=True).data, ~msb) == 0
    normal = tm.soft_bit_read(6, 1, 3).data
    inv = tm.soft_bit_read(6, 1, 3, inverse=True).data
    assert errors(inv, ~np.frombuffer(normal, np.uint8)) == 0
    # one-shot: the next plain read is not inverted
    assert errors(chip.read_page(6, 0).data, lsb) == 0


def test_test_mode_refused_without_permission_and_capabilities(planar):
    chip, _, _ = planar
    with pytest.raises(RefusedOperation, match="allow_test_mode"):
        TestMode(chip)
    with pytest.raises(RefusedOperation):
        inverse_read_page(chip, 6, 0)
    tm = TestMode(chip, allow_test_mode=True)
    with pytest.raises(UnsupportedCapability, match="mws"):
        tm.mws([(6, [0])])
    with pytest.raises(UnsupportedCapability, match="esp"):
        tm.set_esp(step_mV=100)
    bench = SimTransport("slc-search", seed=1, persist=False)
    with pytest.raises(UnsupportedCapability, match="test_mode"):
        TestMode(Chip(bench), allow_test_mode=True)


def test_test_mode_commands_ignored_outside_test_mode(planar):
    chip, lsb, _ = planar
    die = chip.transport.dies[0]  # type: ignore[attr-defined]
    v = chip.profile.vendor
    assert not die.test_mode
    die.cmd(v.inverse_read.prefix_cmd)  # ignored: not in test mode
    assert errors(chip.read_page(6, 0).data, lsb) == 0  # not inverted
    die.cmd(v.test_mode.enter_cmd)
    die.addr(0x00)  # wrong key
    assert not die.test_mode
    die.cmd(v.test_mode.enter_cmd)
    die.addr(v.test_mode.key)
    assert die.test_mode
    die.cmd(Cmd.RESET)
    die.wait_ready(10**9)
    assert not die.test_mode
    assert errors(chip.read_page(6, 0).data, lsb) == 0


def test_esp_tprog_follows_loops_and_sense_time():
    bench = SimTransport("tlc-48l", seed=2, persist=False)
    chip = Chip(bench)
    chip.identify()
    tm = TestMode(chip, allow_test_mode=True)
    n = chip.geometry.total_bytes
    data = np.random.default_rng(1).integers(0, 256, n, dtype=np.uint8).tobytes()
    chip.erase_block(2)
    assert chip.program_page(2, 0, data, slc=True).busy_ns == 200_000  # tPROG SLC
    busy = []
    for w, raise_mV in ((4, 400), (8, 800)):
        tm.set_esp(step_mV=100, verify_raise_mV=raise_mV)
        busy.append(tm.program_esp(2, w, data).busy_ns)
    assert 200_000 < busy[0] < busy[1]
    tm.clear_esp()
    assert tm.program_esp(2, 12, data).busy_ns == 200_000
    assert chip.read_page(2, 4, slc=True).data == data
    with tm.sense_time(5.0):  # far too short: conducting strings read as not conducting
        r = tm.read_page(2, 4, slc=True)
        assert r.busy_ns == round((chip.profile.timing.t_read_base_us + 5.0) * 1000)
        assert np.frombuffer(r.data, np.uint8).any() == 0 or r.data != data
    assert tm.read_page(2, 4, slc=True).data == data
