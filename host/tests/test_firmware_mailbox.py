"""The host's mailbox client (nandlab.firmware) against the native firmware build.

The firmware's C sources over its host HAL (fake sequencer and die, firmware/hal)
are built as a shared library; Python plays the host on its register file and
shared RAM. The die's read errors come from the library's own model
(hal_host_flips), the encodings from nandlab.ops (contract 1).
"""

from __future__ import annotations

import ctypes
import functools
import re
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from nandlab.errors import RefusedOperation, TransportError
from nandlab.firmware import (
    Command,
    FirmwareError,
    FirmwareLimit,
    FwError,
    LoopDescriptor,
    LoopKind,
    Mailbox,
    Monitor,
    Permit,
)
from nandlab.firmware.image import image_sum
from nandlab.firmware.protocol import DESCRIPTOR_WORDS, REC_PE, REC_SWEEP
from nandlab.instruments.ina2xx import Ina226, Ina228
from nandlab.instruments.virtual_ina import VirtualIna226, VirtualIna228
from nandlab.ops import Pattern, Program, decode_results, pattern_bytes
from nandlab.regs import REG

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
PAGES, PAGE_BYTES, BLOCK = 4, 256, 2


class FakeCfg(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint32) for name in ("blocks", "pages", "page_bytes",
                                                      "flips_per_kpe")] + [
        ("best_offset", ctypes.c_int32), ("flips_per_step", ctypes.c_uint32),
        ("endurance", ctypes.c_uint32), ("offset_feature", ctypes.c_uint32),
        ("flips_per_kread", ctypes.c_uint32)]


class FakeStats(ctypes.Structure):
    _fields_ = [
        ("erases", ctypes.c_uint32), ("programs", ctypes.c_uint32), ("reads", ctypes.c_uint32),
        ("resets", ctypes.c_uint32), ("soft_resets", ctypes.c_uint32),
        ("set_features", ctypes.c_uint32), ("programs_run", ctypes.c_uint32),
        ("cmd_count", ctypes.c_uint32 * 256), ("pe", ctypes.c_uint32 * 16),
        ("offset", ctypes.c_int32), ("block_reads", ctypes.c_uint32 * 16),
    ]


class NativeBoard:
    """The native firmware library as a board: registers, shared RAM, one CPU step."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self.lib = lib
        lib.hal_host_regs.restype = ctypes.POINTER(ctypes.c_uint32)
        lib.hal_shared.restype = ctypes.POINTER(ctypes.c_uint32)
        lib.hal_host_stats.restype = ctypes.POINTER(FakeStats)
        lib.hal_host_flips.restype = ctypes.c_uint32
        lib.hal_host_flips.argtypes = [ctypes.c_uint32, ctypes.c_int32]
        lib.hal_host_temp.argtypes = [ctypes.c_bool, ctypes.c_int32]
        self.regs = lib.hal_host_regs()
        self.shared = lib.hal_shared()

    def boot(self, cfg: FakeCfg) -> None:
        self.lib.hal_host_reset(ctypes.byref(cfg))
        self.lib.fw_init()

    def read32(self, offset: int) -> int:
        return int(self.regs[offset // 4])

    def write32(self, offset: int, value: int) -> None:
        self.regs[offset // 4] = value

    def read_words(self, offset: int, n: int) -> list[int]:
        return [int(self.shared[offset // 4 + i]) for i in range(n)]

    def write_words(self, offset: int, words: Sequence[int]) -> None:
        for i, w in enumerate(words):
            self.shared[offset // 4 + i] = w

    def step(self) -> None:
        self.lib.fw_poll()

    @property
    def stats(self) -> FakeStats:
        return self.lib.hal_host_stats().contents


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> NativeBoard:
    build = tmp_path_factory.mktemp("fw-build")
    subprocess.run(["make", "-s", "-C", str(FIRMWARE), "host-lib", f"BUILD={build}"],
                   check=True, capture_output=True)
    return NativeBoard(ctypes.CDLL(str(build / "host" / "libnandlab_fw.so")))


def _cfg(flips_per_kpe: int = 4000, best_offset: int = 3) -> FakeCfg:
    return FakeCfg(blocks=8, pages=PAGES, page_bytes=PAGE_BYTES, flips_per_kpe=flips_per_kpe,
                   best_offset=best_offset, flips_per_step=4, endurance=10**6,
                   offset_feature=0x89)


@pytest.fixture
def board(native: NativeBoard) -> Iterator[NativeBoard]:
    native.boot(_cfg())
    yield native


def _mailbox(board: NativeBoard) -> Mailbox:
    return Mailbox(board, board, board.step)


def test_protocol_numbers_match_the_firmware_header() -> None:
    text = (FIRMWARE / "src" / "fw.h").read_text()

    def c_values(prefix: str) -> dict[str, int]:
        found = re.findall(rf"\b{prefix}(\w+)\s*=?\s*(0x[0-9A-Fa-f]+|\d+)u?\b", text)
        return {name: int(value, 0) for name, value in found}

    assert c_values("FW_CMD_") == {c.name: c.value for c in Command}
    errors = c_values("FW_ERR_")
    assert errors == {e.name: e.value for e in FwError if e != FwError.OK}
    permits = c_values("FW_PERMIT_")
    assert permits.pop("ALL") == int(Permit.ERASE | Permit.PROGRAM | Permit.TEST_MODE)
    assert permits == {p.name: p.value for p in Permit}
    assert c_values("FW_LOOP_") == {k.name: k.value for k in LoopKind}
    assert c_values("FW_REC_")["PE"] == REC_PE and c_values("FW_REC_")["SWEEP"] == REC_SWEEP
    assert c_values("FW_D_")["WORDS"] == DESCRIPTOR_WORDS


def test_version_and_ping(board: NativeBoard) -> None:
    mb = _mailbox(board)
    protocol, major, minor = mb.version() or (0, 0, 0)
    assert protocol == 1
    assert mb.command(Command.PING) == board.read32(REG["MBX_FW_VERSION"].offset)
    assert mb.command(Command.PING) == protocol << 16 | major << 8 | minor


def test_unknown_command_is_a_named_error(board: NativeBoard) -> None:
    mb = _mailbox(board)
    with pytest.raises(FirmwareError, match="BAD_CMD") as info:
        mb.command(0x55)
    assert info.value.error == FwError.BAD_CMD and info.value.detail == 0x55
    assert mb.command(Command.PING) > 0  # still serving


def test_erase_without_a_permit_is_refused(board: NativeBoard) -> None:
    mb = _mailbox(board)
    erase = Program().ce(0).cmd(0x60).addr(bytes([BLOCK * PAGES, 0, 0])).cmd(0xD0) \
        .wait_rdy(10_000_000)
    with pytest.raises(RefusedOperation, match="NOT_PERMITTED"):
        mb.run_program(erase.encode())
    assert board.stats.cmd_count[0x60] == 0 and board.stats.erases == 0
    mb.session(Permit.ERASE)
    results = decode_results(bytes(b for w in mb.run_program(erase.encode())
                                   for b in w.to_bytes(4, "little")))
    assert results.busy_ns == [3_000_000]
    assert board.stats.pe[BLOCK] == 1


_I2C = ctypes.CFUNCTYPE(ctypes.c_bool, ctypes.c_uint8, ctypes.c_uint8,
                        ctypes.POINTER(ctypes.c_uint8), ctypes.c_uint32, ctypes.c_bool)


def _attach(board: NativeBoard, address: int, device: Any) -> Any:
    """Put `device` (a VirtualIna226 / 228 register model) on the firmware's I2C bus."""

    def access(addr: int, reg: int, buf: Any, n: int, write: bool) -> bool:
        if addr != address:
            return False
        if write:
            device.write_to(reg, bytes(buf[:n]))
        else:
            data = device.read_from(reg, n)
            for i in range(n):
                buf[i] = data[i]
        return True

    callback = _I2C(access)
    board.lib.hal_host_i2c_attach(callback)
    return callback  # the caller keeps it alive while the firmware may call it


@pytest.mark.parametrize("part", [Monitor.INA226, Monitor.INA228])
def test_firmware_monitor_driver_matches_the_host_driver(board: NativeBoard,
                                                         part: Monitor) -> None:
    """The firmware's INA driver and the host's (nandlab.instruments.ina2xx) configure the
    same register model the same way and read the same current from it."""
    model, driver = ((VirtualIna226, Ina226) if part == Monitor.INA226
                     else (VirtualIna228, Ina228))
    amps = {"uA": 0.0}
    on_board, on_host = (model(lambda: amps["uA"], shunt_mOhm=20.0) for _ in range(2))
    keep = _attach(board, 0x45, on_board)
    mb = _mailbox(board)
    mb.monitor(part, 0x45, shunt_mOhm=20.0, max_current_mA=800)
    driver(on_host, shunt_mOhm=20.0, max_current_mA=800).configure()
    assert on_board.regs == on_host.regs  # IDs checked, reset, settings, calibration
    host = driver(on_host, shunt_mOhm=20.0, max_current_mA=800)
    mb.session(Permit.ERASE)
    mb.limits(max_mA=100)
    erase = Program().ce(0).cmd(0x60).addr(bytes([BLOCK * PAGES, 0, 0])).cmd(0xD0) \
        .wait_rdy(10_000_000)
    for uA in (-250_000.0, 123_456.0, 654_321.0):
        amps["uA"] = uA
        with pytest.raises(FirmwareLimit, match="OVER_CURRENT") as info:
            mb.run_program(erase.encode())
        assert info.value.detail == int(abs(host.current_uA())) // 1000
    amps["uA"] = 99_000.0
    mb.run_program(erase.encode())
    assert board.stats.erases == 1
    for uA in (-250_000.0, 123_456.0):  # CURRENT: the reading itself, in µA
        amps["uA"] = uA
        assert mb.current_uA() == int(host.current_uA())
    with pytest.raises(FirmwareLimit, match="NO_SENSOR"):
        mb.monitor(part, 0x46, shunt_mOhm=20.0, max_current_mA=800)  # nobody at 0x46
    with pytest.raises(FirmwareLimit, match="NO_SENSOR"):
        mb.current_uA()  # the failed MONITOR left no monitor
    del keep


def test_load_firmware_hands_the_image_to_the_boot(board: NativeBoard) -> None:
    """Mailbox.load_firmware: the used words go to shared RAM with the checksum the
    firmware computes (LOAD answers DONE, else BAD_ARG 2), the firmware hands them to
    hal_boot_image and shows no version; the host waits for the new one to boot (here
    fw_init stands in for the CPU's restart, which only the harness has)."""
    board.lib.hal_host_booted.restype = ctypes.POINTER(ctypes.c_uint32)
    image = [0x0001_0117 + 0x9E37_79B9 * i & 0xFFFF_FFFF for i in range(300)] + [0] * 100
    count = ctypes.c_uint32()
    booted_image: list[int] = []

    def restart() -> None:
        board.step()
        if not board.read32(REG["MBX_FW_VERSION"].offset) and \
                board.lib.hal_host_booted(ctypes.byref(count)):
            booted = board.lib.hal_host_booted(ctypes.byref(count))
            booted_image.extend(int(booted[i]) for i in range(count.value))
            board.lib.fw_init()

    Mailbox(board, board, restart).load_firmware(image)
    assert booted_image == image[:300]
    mb = _mailbox(board)
    board.write_words(0, image[:300])
    with pytest.raises(FirmwareError, match="BAD_ARG") as info:
        mb.command(Command.LOAD, [0, 300, image_sum(image[:300]) ^ 1])
    assert info.value.detail == 2


def test_thermal_gains_through_the_mailbox(board: NativeBoard) -> None:
    """THERMAL_GAINS in the host's units; each argument past its limit is BAD_ARG naming
    it (the loop's response to gains: firmware/tests/test_thermal.c)."""
    mb = _mailbox(board)
    mb.thermal_gains(200.0, ti_s=24.0)
    mb.thermal_gains(50.0, ti_s=0.0, td_s=2.0, period_s=1e-3)
    for args, which in (((0.0, 24.0), 0), ((200.0, 0.05), 1), ((200.0, 24.0, 11.0), 2),
                        ((200.0, 24.0, 0.0, 2.0), 3)):
        with pytest.raises(FirmwareError, match="BAD_ARG") as info:
            mb.thermal_gains(*args)
        assert info.value.detail == which


def test_thermal_loop_starts_from_the_host(board: NativeBoard) -> None:
    mb = _mailbox(board)
    board.lib.hal_host_temp(True, -2_500)
    assert mb.thermal(40.0) == -2.5
    board.lib.hal_host_temp(False, 0)
    with pytest.raises(FirmwareLimit, match="NO_SENSOR"):
        mb.thermal(40.0, tec=True)
    mb.thermal(None)


def test_limits_are_named_errors(board: NativeBoard) -> None:
    mb = _mailbox(board)
    erase = Program().ce(0).cmd(0x60).addr(bytes([BLOCK * PAGES, 0, 0])).cmd(0xD0) \
        .wait_rdy(10_000_000)
    mb.session(Permit.ERASE)
    mb.limits(max_C=60.0)
    board.lib.hal_host_temp(True, 61_500)
    with pytest.raises(FirmwareLimit, match="OVER_TEMP") as info:
        mb.run_program(erase.encode())
    assert info.value.detail == 61_500 and isinstance(info.value, RefusedOperation)
    mb.limits(max_mA=50)  # no monitor: no reading
    with pytest.raises(FirmwareLimit, match="NO_SENSOR"):
        mb.run_program(erase.encode())
    assert board.stats.programs_run == 0
    mb.limits(max_C=-10.5)  # a cold limit: below freezing is fine to set
    board.lib.hal_host_temp(True, -11_000)
    mb.run_program(erase.encode())
    assert board.stats.erases == 1
    with pytest.raises(ValueError, match="current limit"):
        mb.limits(max_mA=0)


def test_program_stream_decodes_as_contract_1(native: NativeBoard) -> None:
    """DIN_PAT through the fake pattern generator, read back with DOUT: the bytes
    nandlab.ops.pattern_bytes gives (no read errors at 0 P/E and the best offset)."""
    native.boot(_cfg(flips_per_kpe=0, best_offset=0))
    mb = _mailbox(native)
    mb.session(Permit.ERASE | Permit.PROGRAM)
    row = bytes([BLOCK * PAGES + 1, 0, 0])
    prog = (Program().ce(0).cmd(0x60).addr(row).cmd(0xD0).wait_rdy(10_000_000)
            .cmd(0x80).addr(b"\0\0" + row).din_pattern(PAGE_BYTES, Pattern.prbs(), 1234)
            .cmd(0x10).wait_rdy(10_000_000)
            .cmd(0x00).addr(b"\0\0" + row).cmd(0x30).wait_rdy(1_000_000).dout(PAGE_BYTES))
    words = mb.run_program(prog.encode())
    results = decode_results(b"".join(w.to_bytes(4, "little") for w in words))
    assert results.data == [pattern_bytes(Pattern.prbs(), 1234, PAGE_BYTES)]
    assert results.busy_ns == [3_000_000, 600_000, 50_000]


def _descriptor(kind: LoopKind, count: int, **kw: int) -> LoopDescriptor:
    return LoopDescriptor(kind=kind, row=BLOCK * PAGES, pages=PAGES, page_bytes=PAGE_BYTES,
                          pattern=Pattern.prbs(), seed=77, chunk=64, count=count,
                          timeout_ns=10_000_000, feature=0x89, **kw)


def test_pe_loop_rows(board: NativeBoard) -> None:
    mb = _mailbox(board)
    mb.session(Permit.ERASE | Permit.PROGRAM)
    rows = mb.run_loop(_descriptor(LoopKind.PE_CYCLE, 6))
    assert [r["cycle"] for r in rows] == list(range(6))
    assert [r["err_0to1"] + r["err_1to0"] for r in rows] == \
        [PAGES * board.lib.hal_host_flips(c + 1, 0) for c in range(6)]
    assert all(r["erase_ns"] == 3_000_000 and r["program_ns"] == PAGES * 600_000
               and r["status_fails"] == 0 for r in rows)
    assert board.stats.pe[BLOCK] == 6


def test_sweep_loop_rows(board: NativeBoard) -> None:
    mb = _mailbox(board)
    mb.session(Permit.ERASE | Permit.PROGRAM)
    mb.run_loop(_descriptor(LoopKind.PE_CYCLE, 1))
    rows = mb.run_loop(_descriptor(LoopKind.READ_SWEEP, 9, first=-2, step=1))
    assert [r["offset"] for r in rows] == list(range(-2, 7))
    errors = {r["offset"]: r["err_0to1"] + r["err_1to0"] for r in rows}
    assert errors == {o: PAGES * board.lib.hal_host_flips(1, o) for o in range(-2, 7)}
    assert min(errors, key=errors.__getitem__) == 3
    assert board.stats.offset == 0


def test_firmware_that_never_answers_is_a_transport_error(board: NativeBoard) -> None:
    mb = Mailbox(board, board, wait=lambda: None, max_polls=50)  # the CPU never runs
    with pytest.raises(TransportError, match="heartbeat standing still"):
        mb.command(Command.PING)


def test_loops_send_the_host_sequences(native: NativeBoard) -> None:
    """On-board loops put the programs on the bus that host-driven loops build with
    nandlab.sequences.core (via nandlab.rtlsim.programs), word for word."""
    from nandlab.rtlsim.ctrl_bench import BenchConfig
    from nandlab.rtlsim.programs import TIMEOUT_NS, Programs

    progs = Programs(BenchConfig().load_profile())  # slc-tb-tiny: 8 pages a block, 96 bytes
    pages_per_block = progs.geo.pages_per_block
    native.boot(FakeCfg(blocks=8, pages=pages_per_block, page_bytes=progs.page_bytes,
                        flips_per_kpe=0, best_offset=0, flips_per_step=0, endurance=10**6,
                        offset_feature=0xA0))
    native.lib.hal_host_tx_log.restype = ctypes.POINTER(ctypes.c_uint32)
    mb = _mailbox(native)
    mb.session(Permit.ERASE | Permit.PROGRAM)
    pattern, seed, chunk = Pattern.checker(1), 5, 32
    row = int.from_bytes(progs.geo.row_bytes(BLOCK), "little")
    loop = functools.partial(LoopDescriptor, row=row, pages=2, page_bytes=progs.page_bytes,
                             pattern=pattern, seed=seed, chunk=chunk, timeout_ns=TIMEOUT_NS)
    mb.run_loop(loop(kind=LoopKind.PE_CYCLE, count=1))
    mb.run_loop(loop(kind=LoopKind.READ_SWEEP, count=2, feature=0xA0, first=-4, step=4))
    n = ctypes.c_uint32()
    log = native.lib.hal_host_tx_log(ctypes.byref(n))
    sent = b"".join(int(log[i]).to_bytes(4, "little") for i in range(n.value))
    reads = [progs.read_compare(BLOCK, p, pattern, seed, chunk).encode() for p in range(2)]
    want = [progs.erase(BLOCK).encode(),
            *(progs.program_pattern(BLOCK, p, pattern, seed).encode() for p in range(2)),
            *reads]
    for offset in (-4, 0):
        want += [progs.set_features(0xA0, bytes([offset & 0xFF, 0, 0, 0])).encode(), *reads]
    want.append(progs.set_features(0xA0, bytes(4)).encode())
    assert sent == b"".join(want)  # one program after another, END words included


class _Ring:
    """A register file and shared RAM where the test writes the ring as the firmware
    does: word k of the job at index k % size, then MBX_RES_HEAD."""

    def __init__(self, size: int) -> None:
        self.regs: dict[int, int] = {}
        self.ram = [0] * size
        self.written = 0

    def produce(self, words: list[int]) -> None:
        for w in words:
            self.ram[self.written % len(self.ram)] = w
            self.written += 1
        self.regs[REG["MBX_RES_HEAD"].offset] = self.written

    def read32(self, offset: int) -> int:
        return self.regs.get(offset, 0)

    def write32(self, offset: int, value: int) -> None:
        self.regs[offset] = value

    def read_words(self, offset: int, n: int) -> list[int]:
        assert offset % 4 == 0 and offset // 4 + n <= len(self.ram), "read past the ring"
        return self.ram[offset // 4:offset // 4 + n]

    def write_words(self, offset: int, words: Sequence[int]) -> None:
        raise AssertionError("take() writes no shared RAM")


def test_take_follows_the_ring_across_its_end() -> None:
    from nandlab.firmware.mailbox import Layout

    ring = _Ring(5)
    mb = Mailbox(ring, ring, lambda: None, layout=Layout(ring=0, ring_words=5))
    ring.produce([10, 11, 12])
    assert mb.take() == [10, 11, 12]
    ring.produce([13, 14, 15, 16])  # wraps: indices 3, 4, 0, 1
    assert mb.take() == [13, 14, 15, 16]
    assert ring.regs[REG["MBX_RES_TAIL"].offset] == 7
    assert mb.take() == []
