"""The virtual die's interface features: 01h (interface + mode) and 02h (NV-DDR2/3 setup).

A real part ignores a SET FEATURES it cannot take and GET FEATURES then
returns the old value; the die must do the same for every interface, mode
and configuration its profile does not offer, and must move data at the
selected interface's rate."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from nandlab.onfi_spec.ddr_features import DdrConfig, decode_timing_mode, timing_mode_p1
from nandlab.onfi_spec.nvddr_timing import ddr
from nandlab.profiles import load_profile
from nandlab.profiles.interfaces_model import Interfaces
from nandlab.profiles.model import Profile
from nandlab.vchip.die import VirtualDie

SET, GET, RESET = 0xEF, 0xEE, 0xFF


def selected(die: VirtualDie) -> tuple[str, int] | None:
    """(interface, mode) the die's feature 01h holds."""
    return decode_timing_mode(die.feature(0x01)[0])


def set_feature(die: VirtualDie, fa: int, params: bytes) -> None:
    die.cmd(SET)
    die.addr(fa)
    die.write(params)
    die.wait_ready(10**6)


def get_feature(die: VirtualDie, fa: int) -> bytes:
    die.cmd(GET)
    die.addr(fa)
    die.wait_ready(10**6)
    return die.read(4)


def sdr_only(name: str) -> Profile:
    return load_profile(name).model_copy(update={"interfaces": Interfaces()})


def test_feature_01h_coding() -> None:
    assert timing_mode_p1("nv-ddr3", 10) == 0x3A
    assert timing_mode_p1("nv-ddr2", 7) == 0x27
    assert decode_timing_mode(0x15) == ("nv-ddr", 5)
    assert decode_timing_mode(0x45) is None
    with pytest.raises(ValueError, match="no interface 'toggle2'"):
        timing_mode_p1("toggle2", 0)


def test_feature_02h_coding_round_trips() -> None:
    c = DdrConfig(odt=4, re_c=True, dqs_c=True, warmup_out=3, warmup_in=2)
    assert c.params() == bytes([0x46, 0x23, 0, 0])
    assert DdrConfig.decode(c.params()) == c
    assert DdrConfig.decode(bytes([0x08, 0, 0, 0])) is None  # reserved bit 3
    assert DdrConfig.decode(bytes([0x50, 0, 0, 0])) is None  # ODT code 5 undefined
    assert DdrConfig.decode(bytes([0, 0x04, 0, 0])) is None  # warm-up code 4 undefined


def test_the_die_switches_to_a_listed_ddr_mode_and_back_on_reset() -> None:
    die = VirtualDie(load_profile("tlc-coxpm"))  # NV-DDR3 0..12, no NV-DDR2
    set_feature(die, 0x01, bytes([0x3A, 0, 0, 0]))
    assert get_feature(die, 0x01) == bytes([0x3A, 0, 0, 0])
    assert selected(die) == ("nv-ddr3", 10)
    die.cmd(RESET)
    die.wait_ready(10**7)
    assert selected(die) == ("sdr", 0)
    assert get_feature(die, 0x01) == bytes(4)


@pytest.mark.parametrize(
    ("p1", "why"),
    [(0x3D, "NV-DDR3 mode 13: the part lists 0..12"),
     (0x25, "NV-DDR2: the part has none"),
     (0x15, "NV-DDR (CLK based): no profile offers it"),
     (0x06, "SDR mode 6 does not exist"),
     (0x83, "reserved bit 7")],
)
def test_a_mode_the_part_lacks_leaves_feature_01h_unchanged(p1: int, why: str) -> None:
    die = VirtualDie(load_profile("tlc-coxpm"))
    set_feature(die, 0x01, bytes([0x03, 0, 0, 0]))
    set_feature(die, 0x01, bytes([p1, 0, 0, 0]))
    assert get_feature(die, 0x01) == bytes([0x03, 0, 0, 0]), why
    assert selected(die) == ("sdr", 3)


def test_an_sdr_only_part_refuses_every_ddr_mode_and_has_no_02h() -> None:
    die = VirtualDie(sdr_only("tlc-48l"))
    set_feature(die, 0x01, bytes([0x20, 0, 0, 0]))
    set_feature(die, 0x02, DdrConfig(odt=1).params())
    assert get_feature(die, 0x01) == bytes(4)
    assert get_feature(die, 0x02) == bytes(4)


def test_feature_02h_takes_what_the_part_offers_only() -> None:
    die = VirtualDie(load_profile("tlc-48l"))  # ODT, RE_c, DQS_c, up to 2 warm-up cycles
    good = DdrConfig(odt=4, re_c=True, dqs_c=True, warmup_out=2, warmup_in=1)
    set_feature(die, 0x02, good.params())
    assert get_feature(die, 0x02) == good.params()
    for bad in (DdrConfig(odt=1, warmup_out=3).params(), bytes([0x50, 0, 0, 0]),
                bytes([0x10, 0, 1, 0])):
        set_feature(die, 0x02, bad)
        assert get_feature(die, 0x02) == good.params()
    plain = VirtualDie(load_profile("tlc-48l").model_copy(
        update={"interfaces": Interfaces(nv_ddr2_modes=[0, 1])}))  # no ODT, single-ended
    set_feature(plain, 0x02, DdrConfig(re_c=True).params())
    assert get_feature(plain, 0x02) == bytes(4)


def test_data_moves_at_the_selected_interface_rate() -> None:
    die = VirtualDie(load_profile("tlc-coxpm"))
    n = 16384

    def read_ns() -> int:
        t0 = die.now_ns
        die.read(n)
        return die.now_ns - t0

    set_feature(die, 0x01, bytes([0x05, 0, 0, 0]))
    sdr5 = read_ns()
    set_feature(die, 0x01, bytes([0x3A, 0, 0, 0]))
    ddr800 = read_ns()
    assert sdr5 == n * 20  # SDR mode 5: tRC 20 ns per byte
    assert ddr800 == round(ddr("nv-ddr3", 10).transfer_ns(n))  # 1.25 ns per byte
    t0 = die.now_ns
    die.cmd(0x70)  # command cycles at tWC 25 ns in NV-DDR2/3
    assert die.now_ns - t0 == 25


def ns_of(die: VirtualDie, run: Callable[[], object]) -> int:
    """The die's clock time `run` takes."""
    t0 = die.now_ns
    run()
    return die.now_ns - t0


def test_repeat_bytes_and_warmup_cycles_take_bus_time() -> None:
    """NV-DDR3 mode 10 (800 MT/s: 1.25 ns an edge). ONFI's repeat bytes: READ ID, GET FEATURES
    and READ STATUS output, SET FEATURES input take two edges a byte; page data one. Warm-up
    (feature 02h): the first burst after a command or address leads with that many RE_n (out)
    or DQS (in) cycles of two edges; a burst that continues does not warm up again."""
    die = VirtualDie(load_profile("slc-search"))  # NV-DDR3 0-10, up to 2 warm-up cycles
    edge = ddr("nv-ddr3", 10).tRC // 2
    assert edge == 1250

    def edges(n: int) -> int:  # the die's clock counts whole ns, rounded up
        return -(-n * edge // 1000)

    set_feature(die, 0x01, bytes([0x3A, 0, 0, 0]))
    die.cmd(0x90)
    die.addr(0x20)
    assert ns_of(die, lambda: die.read(4)) == edges(4 * 2)  # 10 ns, not 5
    assert ns_of(die, lambda: die.read(4)) == edges(4 * 2)
    die.cmd(0x00)  # a page read's data: once per edge
    die.addr_cycles(bytes(5))
    die.cmd(0x30)
    die.wait_ready(10**9)
    die.cmd(0x05)
    die.addr_cycles(bytes(2))
    die.cmd(0xE0)
    assert ns_of(die, lambda: die.read(1000)) == edges(1000)

    warm = DdrConfig(warmup_out=2, warmup_in=1)  # codes: 2 and 1 cycles
    set_feature(die, 0x02, warm.params())
    assert get_feature(die, 0x02) == warm.params()
    die.cmd(0x05)
    die.addr_cycles(bytes(2))
    die.cmd(0xE0)
    assert ns_of(die, lambda: die.read(1000)) == edges(2 * 2 + 1000)  # 2 cycles first
    assert ns_of(die, lambda: die.read(1000)) == edges(1000)  # the burst goes on
    die.cmd(0xEF)
    die.addr(0x01)
    # SET FEATURES' P1..P4 in: 1 warm-up cycle (2 edges) + 4 bytes x 2 edges
    assert ns_of(die, lambda: die.write(bytes([0x3A, 0, 0, 0]))) == edges(2 + 8)
    die.wait_ready(10**6)
    die.cmd(0x70)
    assert ns_of(die, lambda: die.read(1)) == edges(2 * 2 + 2)  # warm-up + repeat


def test_sdr_and_toggle_charge_neither() -> None:
    die = VirtualDie(load_profile("slc-search"))
    set_feature(die, 0x01, bytes([0x05, 0, 0, 0]))  # SDR mode 5: tRC 20 ns
    die.cmd(0x90)
    die.addr(0x20)
    assert ns_of(die, lambda: die.read(4)) == 4 * 20
    toggle = VirtualDie(load_profile("tlc-48l-toggle"))
    assert toggle.follow_toggle(7)
    toggle.cmd(0x90)
    toggle.addr(0x40)
    assert ns_of(toggle, lambda: toggle.read(5)) == -(-5 * ddr("toggle2", 7).tRC // 2 // 1000)
