"""ftdi:// benches: the same tests on the virtual FT2232H and, when NANDLAB_FTDI_URL
names one, on a real FT2232H (its socket holding the URL's profile's part)."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Iterator

import numpy as np
import pytest

from nandlab.errors import NandTimeout, TransportError
from nandlab.onfi import Chip
from nandlab.onfi_spec.reset_timing import T_RST_US
from nandlab.ops import BusyRecord, ErrorCode, Pattern, PatternKind, Program, Results
from nandlab.transport import open_bench
from nandlab.transport.base import Transport
from nandlab.transport.ftdi import FtdiTransport
from nandlab.vusb import VirtualFt2232h
from nandlab.vusb.bench import virtual_ftdi_bench

REAL_URL = os.environ.get("NANDLAB_FTDI_URL")
T_WB, T_WHR = 200, 120
TEST_BLOCK = 10  # a block the real-hardware variant may erase and program


@pytest.fixture(params=["virtual", "real"])
def bench(request: pytest.FixtureRequest) -> Iterator[Transport]:
    if request.param == "real":
        if not REAL_URL:
            pytest.skip("no real FT2232H: set NANDLAB_FTDI_URL=ftdi://...?board=...&profile=...")
        with open_bench(REAL_URL) as real:
            yield real
        return
    with virtual_ftdi_bench("ft2232h-bga", "mlc-64l") as (virtual, _device):
        yield virtual


def page_read_program(page_bytes: int, row: bytes = b"\x00\x00\x00",
                      timeout_ns: int = 5_000_000) -> Program:
    return (Program().ce(0).cmd(0x00).addr(b"\x00\x00" + row).cmd(0x30).delay(T_WB)
            .wait_rdy(timeout_ns).delay(T_WHR).dout(page_bytes))


# ---------------------------------------------------------------- on any bench

def test_identify_checks_the_parameter_page_and_profile(bench: Transport) -> None:
    chip = Chip(bench)
    ident = chip.identify()
    assert ident.onfi_signature == b"ONFI"
    assert bench.profile is not None
    assert ident.fields["model"] == bench.profile.identity.model


def test_erase_program_read_back(bench: Transport) -> None:
    chip = Chip(bench)
    chip.identify()
    geo = chip.geometry
    erased = chip.erase_block(TEST_BLOCK)
    assert erased.busy_ns > 0
    data = np.random.default_rng(1).integers(0, 256, geo.page_bytes + geo.spare_bytes,
                                             dtype=np.uint8).tobytes()
    programmed = chip.program_page(TEST_BLOCK, 0, data, slc=True)
    assert programmed.busy_ns > 0
    back = chip.read_page(TEST_BLOCK, 0, slc=True)
    errors = np.unpackbits(np.frombuffer(back.data, np.uint8) ^ np.frombuffer(data, np.uint8))
    assert errors.sum() < 0.001 * len(data) * 8
    assert back.busy_ns > 0


def test_page_read_busy_time_is_measured_in_the_stream(bench: Transport) -> None:
    results = bench.run(page_read_program(1024))
    results.raise_for_errors()
    (busy,) = results.busy_ns
    assert 1_000 < busy < 1_000_000
    assert isinstance(bench, FtdiTransport)
    assert bench.busy_source.startswith(("stream:", "instrument:"))


def test_patterns_and_compare_run_on_the_host(bench: Transport) -> None:
    results = bench.run(Program().ce(0).cmd(0x90).addr(b"\x20").delay(T_WHR)
                        .dout_compare(4, Pattern(PatternKind.CONST, const=0x4F), 0, 4))
    results.raise_for_errors()
    assert bench.supports("din_pattern") and bench.supports("dout_compare")
    assert not bench.supports("bake")


# ---------------------------------------------------------------- virtual only

def test_page_read_is_one_round_trip_and_meets_onfi_timing() -> None:
    with virtual_ftdi_bench(record_edges=False) as (bench, device):
        chip = Chip(bench)
        chip.identify()  # the WAIT_RDY timeout the chip layer sets: 4 x the declared tR
        bench.stats.reset()
        results = bench.run(page_read_program(16384, timeout_ns=chip.timeouts.read))
        results.raise_for_errors()
        stats = bench.stats
        assert len(results.data[0]) == 16384
        # 16 KiB + the R/B# samples through 4 KiB FIFOs: the chunks are pipelined (the
        # device model times a write out if the host overfills them), the host waits once
        assert stats.round_trips == 1
        assert stats.usb_writes > 16384 // 4096  # more than the FIFO takes in one write
        assert stats.bytes_sent / 16384 < 2.1
        assert device.bus.violations == []
        assert 10_000 < results.busy_ns[0] < 200_000  # tR measured from the samples


def test_reset_samples_r_b_over_the_idle_trst_and_measures_it() -> None:
    """RESET's R/B# samples cover 1.25 x ONFI's idle tRST (5 us), not the 819 us window a
    timeout-derived plan filled; the virtual die's tRST is measured within them."""
    with virtual_ftdi_bench(record_edges=False) as (bench, device):
        chip = Chip(bench)
        chip.identify()
        bench.stats.reset()
        busy_ns = chip.reset()
        sample_ns = bench.ctrl.rb_sample_ns
        planned = math.ceil(1.25 * T_RST_US["idle"] * 1000 / sample_ns)
        # a reply byte per R/B# sample, and the round trip's fence (one GET_BITS_HIGH)
        assert bench.stats.bytes_received == planned + 1
        assert bench.stats.bytes_sent < planned + 100  # the samples, RESET and its gaps
        assert bench.stats.busy_saturated == 0
        assert abs(busy_ns - 5000) <= sample_ns + T_WB  # the die's tRST, to a sample
        assert device.bus.violations == []


def test_busy_wait_reads_a_page_at_two_command_bytes_a_byte() -> None:
    with virtual_ftdi_bench(record_edges=False, busy="wait") as (bench, device):
        first = bench.run(page_read_program(16384, b"\x01\x00\x00"))
        first.raise_for_errors()
        bench.stats.reset()
        results = bench.run(page_read_program(16384))
        results.raise_for_errors()
        stats = bench.stats
        assert stats.round_trips == 1
        assert stats.bytes_sent / 16384 <= 2.01
        assert stats.busy_unmeasured == 1
        assert results.busy_ns == [T_WB]  # the tWB gap: a lower bound, as busy_source says
        assert bench.busy_source.startswith("stream:not measured")
        # a whole chip session runs on it: the data written comes back
        chip = Chip(bench)
        chip.identify()
        chip.erase_block(TEST_BLOCK)
        data = np.random.default_rng(3).integers(0, 256, chip.geometry.total_bytes,
                                                 dtype=np.uint8).tobytes()
        chip.program_page(TEST_BLOCK, 0, data, slc=True)
        back = chip.read_page(TEST_BLOCK, 0, slc=True).data
        errors = np.unpackbits(np.frombuffer(back, np.uint8) ^ np.frombuffer(data, np.uint8))
        assert errors.sum() < 0.001 * len(data) * 8
        assert device.bus.violations == []


def test_every_edge_of_a_chip_session_meets_onfi_timing() -> None:
    with virtual_ftdi_bench(record_edges=True) as (bench, device):
        chip = Chip(bench)
        chip.identify()
        chip.erase_block(3)
        chip.program_page(3, 0, bytes(range(256)) * 71 + bytes(160), slc=True)
        chip.read_page(3, 0, slc=True)
        chip.set_timing_mode(5)
        chip.status()
        assert device.bus.edges, "edges were recorded"
        assert device.bus.violations == [], "\n".join(map(str, device.bus.violations))


def test_a_missing_delay_is_caught_by_the_timing_checker() -> None:
    with virtual_ftdi_bench() as (bench, device):
        # the compiler thinks no-ops are long, so it pads too little
        bench.ctrl = bench.ctrl.model_copy(update={"nop_ns": 1000.0})
        bench._compiler.ctrl = bench.ctrl
        bench.run(Program().ce(0).cmd(0x70).delay(T_WHR).dout(1).cmd(0x70))
        assert any(v.param == "tRHW" for v in device.bus.violations)


def test_chip_that_never_raises_rb_times_out_naming_the_wait() -> None:
    with virtual_ftdi_bench(stuck_busy=True) as (bench, _device):
        start = time.monotonic()
        results = bench.run(page_read_program(512))
        assert time.monotonic() - start < 5
        (error,) = results.errors
        assert error.code == ErrorCode.TIMEOUT and error.index == 5
        with pytest.raises(NandTimeout, match="instruction 5"):
            results.raise_for_errors()
        # the MPSSE was reset: the next program runs, with WP# driven high again
        status = bench.run(Program().ce(0).cmd(0x70).delay(T_WHR).dout(1))
        assert status.data[0][0] & 0x80 == 0x80


def test_a_wait_that_never_ends_behind_pipelined_chunks_names_its_instruction() -> None:
    # 5000 status bytes fill three chunks before the WAIT_RDY: the chunks before it are
    # delivered, the wait times out, and the next program runs after the MPSSE reset
    with virtual_ftdi_bench(stuck_busy=True) as (bench, _device):
        results = bench.run(Program().ce(0).cmd(0x70).delay(T_WHR).dout(5000)
                            + page_read_program(3000)[1:])
        (error,) = results.errors
        assert error.code == ErrorCode.TIMEOUT and error.index == 8
        assert [len(d) for d in results.data] == [5000]
        assert bench.stats.usb_writes >= 3
        status = bench.run(Program().ce(0).cmd(0x70).delay(T_WHR).dout(1))
        assert status.data[0][0] & 0x80 == 0x80


def test_busy_longer_than_the_timeout_is_a_timeout() -> None:
    with virtual_ftdi_bench() as (bench, _device):
        results = bench.run(Program().ce(0).cmd(0x00).addr(bytes(5)).cmd(0x30).delay(T_WB)
                            .wait_rdy(2_000).dout(4))
        assert [e.code for e in results.errors] == [ErrorCode.TIMEOUT]


def test_unplugged_mid_program_is_a_transport_error_naming_the_instruction() -> None:
    with virtual_ftdi_bench() as (bench, device):
        device.unplug_after_transfers = device.transfers + 2
        with pytest.raises(TransportError, match=r"gone.*instruction \d+ \((WAIT_RDY|DOUT) "):
            bench.run(page_read_program(16384))
        with pytest.raises(TransportError):
            bench.run(Program().ce(0).cmd(0x70).delay(T_WHR).dout(1))


def test_write_protect_through_io0() -> None:
    status = Program().ce(0).cmd(0x70).delay(T_WHR).dout(1)
    with virtual_ftdi_bench(record_edges=True) as (bench, device):
        assert device.bus.level["wp_n"] == 1  # opening the bench allows writes, as the sim does
        results = bench.run(Program().ce(0).gpio(0, 1).cmd(0x60).addr(b"\x00\x01\x00").cmd(0xD0)
                            .delay(T_WB).wait_rdy(10_000_000).cmd(0x70).delay(T_WHR).dout(1))
        results.raise_for_errors()
        assert results.data[0][0] & 0x80 == 0  # WP# low in the status
        assert device.bus.level["wp_n"] == 0
        # the level is the bench's state: the next program is still protected
        assert bench.run(status).data[0][0] & 0x80 == 0
        # released and a command at once: the transport holds WP# tWW before WE# falls
        allowed = bench.run(Program().gpio(1, 1) + status)
        assert allowed.data[0][0] & 0x80 == 0x80
        edges = device.bus.edges
        wp_rise = max(t for t, pin, level in edges if pin == "wp_n" and level == 1)
        we_fall = min(t for t, pin, level in edges if pin == "we_n" and level == 0 and t > wp_rise)
        assert we_fall - wp_rise >= 100_000  # tWW = 100 ns (ONFI SDR, every mode)
        assert device.bus.violations == [], "\n".join(map(str, device.bus.violations))
        assert [e.code for e in bench.run(Program().gpio(2, 2)).errors] == [ErrorCode.BAD_ARG]


def test_a_wp_change_compiles_to_set_bits_high_then_tww_of_no_ops() -> None:
    with virtual_ftdi_bench() as (bench, _device):
        compiler = bench._compiler
        nops = -(-100 // bench.ctrl.nop_ns)  # tWW / one SEND_IMMEDIATE, rounded up
        (step,) = compiler.compile(list(Program().gpio(0, 1)))
        assert step.cmd == bytes((0x82, 0x00, 0x01)) + bytes((0x87,)) * int(nops)
        (again,) = compiler.compile(list(Program().gpio(0, 1)))
        assert again.cmd == step.cmd  # driven again: the bench's level is what was asked
        (release,) = compiler.compile(list(Program().gpio(1, 1)))
        assert release.cmd[:3] == bytes((0x82, 0x01, 0x01))  # I/O0 high and an output, I/O1 in


def test_no_target_and_power_without_a_monitor() -> None:
    with virtual_ftdi_bench() as (bench, _device):
        assert [e.code for e in bench.run(Program().ce(1).cmd(0x70)).errors] == [
            ErrorCode.NO_TARGET]
        assert [e.code for e in bench.run(Program().cmd(0x70)).errors] == [ErrorCode.NO_TARGET]
        results = bench.run(Program().ce(0).power_start().cmd(0x70))
        assert [(e.code, e.index) for e in results.errors] == [(ErrorCode.BAD_ARG, 1)]
        assert not bench.supports("power")


class _FakePower:
    def __init__(self) -> None:
        self.started = 0

    def start(self) -> None:
        self.started += 1

    def stop(self) -> tuple[int, list[int]]:
        return 1000, [12_000, 13_000]


def test_power_window_comes_from_the_attached_monitor() -> None:
    with virtual_ftdi_bench() as (bench, _device):
        bench.power = _FakePower()
        results = bench.run(Program().ce(0).power_start().mark(1).cmd(0x70).delay(T_WHR).dout(1)
                            .power_stop())
        results.raise_for_errors()
        assert bench.supports("power")
        from nandlab.ops import PowerRecord

        (power,) = results.of_type(PowerRecord)
        assert power.samples_uA == (12_000, 13_000)


def test_bitbang_fallback_board() -> None:
    with virtual_ftdi_bench("ft2232h-bitbang", "mlc-64l", record_edges=True) as (bench, device):
        assert bench.bus_mode == "bitbang"
        results = bench.run(Program().ce(0).cmd(0xFF).delay(T_WB).wait_rdy(1_000_000)
                            .cmd(0x90).addr(b"\x00").delay(T_WHR).dout(6))
        results.raise_for_errors()
        assert results.data[0] == bytes(device.die.profile.identity.id_bytes)
        assert isinstance(results[0], BusyRecord)
        erase = Program().ce(0).cmd(0x60).addr(b"\x00\x02\x00").cmd(0xD0).delay(T_WB).wait_rdy(
            50_000_000)
        bench.run(erase).raise_for_errors()
        program = (Program().ce(0).cmd(0x80).addr(b"\x00\x00\x00\x02\x00").delay(400)
                   .din(b"nandlab!").cmd(0x10).delay(T_WB).wait_rdy(50_000_000))
        bench.run(program).raise_for_errors()
        back = bench.run(Program().ce(0).cmd(0x00).addr(b"\x00\x00\x00\x02\x00").cmd(0x30)
                         .delay(T_WB).wait_rdy(5_000_000).delay(T_WHR).dout(8))
        back.raise_for_errors()
        assert sum(bin(a ^ b).count("1") for a, b in zip(back.data[0], b"nandlab!",
                                                         strict=True)) <= 2
        assert device.bus.violations == []
        assert "host-poll" in bench.busy_source


def test_bitbang_unplug_and_timeout() -> None:
    with virtual_ftdi_bench("ft2232h-bitbang", "mlc-64l", stuck_busy=True) as (bench, device):
        results = bench.run(Program().ce(0).cmd(0xFF).delay(T_WB).wait_rdy(1_000_000))
        assert [(e.code, e.index) for e in results.errors] == [(ErrorCode.TIMEOUT, 3)]
        device.unplug()
        with pytest.raises(TransportError, match=r"gone.*instruction 0 \(CE 0\)"):
            bench.run(Program().ce(0).cmd(0x70).delay(T_WHR).dout(1))


def test_results_match_the_sim_transport_byte_for_byte() -> None:
    from nandlab.transport.sim import SimTransport

    program = Program().ce(0).cmd(0xEC).addr(b"\x00").delay(T_WB).wait_rdy(1_000_000).delay(
        T_WHR).dout(768)
    with virtual_ftdi_bench() as (bench, _device):
        on_ftdi = bench.run(program)
    sim = SimTransport("mlc-64l", persist=False)
    on_sim = sim.run(program)
    assert on_ftdi.data == on_sim.data
    assert isinstance(on_ftdi, Results)


def test_device_list_shows_the_virtual_ft2232h() -> None:
    from pyftdi.ftdi import Ftdi

    from nandlab.boards import load_board
    from nandlab.profiles import load_profile
    from nandlab.vchip.die import VirtualDie
    from nandlab.vusb import plugged

    device = VirtualFt2232h(load_board("ft2232h-bga"), VirtualDie(load_profile("mlc-64l")),
                            serial="NLTEST01")
    with plugged(device):
        found = Ftdi.list_devices("ftdi://ftdi:2232h/1")
        assert [(d.sn, ifaces) for d, ifaces in found] == [("NLTEST01", 2)]
