"""xdma:// benches on the emulated FPGA design: only the device-file calls are swapped."""

from __future__ import annotations

import errno
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from nandlab.boards import Board, parse_board
from nandlab.errors import BenchURLError, TransportError, UsageError
from nandlab.onfi import Chip
from nandlab.ops import ErrorCode, Program, decode_results
from nandlab.regs import REG
from nandlab.transport.xdma import (
    ERESTARTSYS,
    ETIME,
    XdmaOptions,
    XdmaTransport,
    parse_xdma_url,
)
from nandlab.transport.xdma_emulation import XdmaEmulation, emulated_bench

FPGA_BOARD = """
schema_version: 1
name: fpga-test
description: an FPGA socket board for the XDMA tests
controller:
  kind: fpga
  part: xc7k325tffg900-2
  pins: {nand_we_n: AC1}
io_voltage_mV: 1800
rails: [{name: VCC, nominal_mV: 3300}, {name: VCCQ, nominal_mV: 1800}]
sockets: [{name: U1, package: BGA152, chip_enables: [0, 1]}]
"""


@pytest.fixture
def board() -> Board:
    return parse_board(FPGA_BOARD, "fpga-test.yaml")


@pytest.fixture
def bench(board: Board) -> Iterator[tuple[XdmaTransport, XdmaEmulation]]:
    transport, emulation = emulated_bench(board, "mlc-64l", num_ce=2)
    yield transport, emulation
    transport.close()


def test_url_forms() -> None:
    assert parse_xdma_url("xdma:///dev/xdma0?board=b&profile=mlc-64l") == XdmaOptions(
        "/dev/xdma0", "b", "mlc-64l")
    opts = parse_xdma_url("xdma:///dev/xdma1?board=b&channel=1&timeout_s=30")
    assert (opts.file("user"), opts.file("h2c"), opts.file("c2h")) == (
        "/dev/xdma1_user", "/dev/xdma1_h2c_1", "/dev/xdma1_c2h_1")
    for url, words in [
        ("xdma://dev/xdma0?board=b", "no /dev/xdmaN"),
        ("xdma:///dev/xdma0", "names no board"),
        ("xdma:///dev/xdma0?board=b&channel=9", "channel='9'"),
        ("xdma:///dev/xdma0?board=b&timeout_s=x", "timeout_s"),
        ("xdma:///dev/xdma0?board=b&irq=1", "unknown option 'irq'"),
    ]:
        with pytest.raises(BenchURLError, match=words):
            parse_xdma_url(url)


def test_chip_session_through_the_emulated_design(
        bench: tuple[XdmaTransport, XdmaEmulation]) -> None:
    transport, emulation = bench
    assert transport.targets == 2
    chip = Chip(transport, ce=1)
    ident = chip.identify()
    assert ident.fields["model"] == "VIRT-MLC-64L"
    chip.erase_block(4)
    data = bytes(range(256)) * 71 + bytes(160)
    assert chip.program_page(4, 0, data, slc=True).busy_ns > 0
    back = chip.read_page(4, 0, slc=True)
    assert sum(bin(a ^ b).count("1") for a, b in zip(back.data, data, strict=True)) < 100
    assert transport.read_reg("CNT_PROGRAMS") == emulation.programs
    busy_cycles = transport.read_reg("CNT_BUSY_LO")
    assert busy_cycles > 0


def test_registers_at_the_generated_offsets(bench: tuple[XdmaTransport, XdmaEmulation]) -> None:
    transport, emulation = bench
    assert transport.read_reg("ID") == 0x4E414E44
    assert transport.field("CONFIG", "CLK_PERIOD_PS") == 8000
    transport.write_reg("RSP_LIMIT", 1234)
    assert emulation.regs[REG["RSP_LIMIT"].offset] == 1234
    assert transport.field("RB_STATUS", "RB") == 0b11
    transport.write_reg("CONTROL", REG["CONTROL"].field("CLEAR_COUNTERS").put(0, 1))
    assert transport.read_reg("CNT_PROGRAMS") == 0


def test_result_limit_stops_with_overflow(bench: tuple[XdmaTransport, XdmaEmulation]) -> None:
    transport, _emulation = bench
    transport.power_samples = 0
    results = transport.run(Program().ce(0).power_start(100).cmd(0xFF).delay(200)
                            .wait_rdy(1_000_000).delay(5_000_000).power_stop())
    assert [e.code for e in results.errors] == [ErrorCode.OVERFLOW]


def test_dout_longer_than_the_result_limit_is_an_overflow_naming_it(
        bench: tuple[XdmaTransport, XdmaEmulation]) -> None:
    transport, _emulation = bench
    read = Program().ce(0).cmd(0x00).addr(bytes(5)).cmd(0x30).delay(200).wait_rdy(
        1_000_000).delay(120).dout(4096)
    results = decode_results(transport.run_encoded(read.encode(), limit_words=64))
    assert [(e.code, e.index) for e in results.errors] == [(ErrorCode.OVERFLOW, 7)]
    assert not results.data and len(results.busy_ns) == 1
    assert len(transport.run(read).data[0]) == 4096  # ready for the next program


def test_nothing_after_an_overflow_reaches_the_chip(
        bench: tuple[XdmaTransport, XdmaEmulation]) -> None:
    """As nandlab_seq: the program stops at the overflowing DOUT, so the ERASE after it
    never runs and the page keeps its data (the emulation used to run the whole program
    and cut the results afterwards)."""
    transport, emulation = bench
    chip = Chip(transport)
    data = bytes(range(256)) * (chip.geometry.page_bytes // 256)
    chip.erase_block(4)
    chip.program_page(4, 0, data)
    geo = chip.geometry
    row = geo.row_bytes(4, 0)
    prog = (Program().ce(0).cmd(0x00).addr(geo.full_address(4, 0)).cmd(0x30).delay(200)
            .wait_rdy(1_000_000).delay(120).dout(4096)
            .cmd(0x60).addr(row).cmd(0xD0).delay(200).wait_rdy(10_000_000))
    results = decode_results(transport.run_encoded(prog.encode(), limit_words=64))
    assert [(e.code, e.index) for e in results.errors] == [(ErrorCode.OVERFLOW, 7)]
    assert chip.read_page(4, 0).data[: len(data)] == data
    assert emulation.sequencer.dies[0].array.pec(4) == 1
    results = decode_results(transport.run_encoded(prog.encode(), limit_words=2048))
    assert not results.errors and len(results.data[0]) == 4096
    assert emulation.sequencer.dies[0].array.pec(4) == 2  # with room, the ERASE ran


@pytest.mark.parametrize(("name", "mangle", "code", "index"), [
    ("unknown opcode", lambda w: w[:4] + (0x7F << 24).to_bytes(4, "little") + w[4:],
     ErrorCode.BAD_OPCODE, 1),
    ("truncated inside ADDR", lambda w: w[:12], ErrorCode.TRUNCATED, 2),
    ("no END", lambda w: w[:-4], ErrorCode.TRUNCATED, 5),  # the missing END's index
])
def test_malformed_programs_are_reported_and_the_design_stays_ready(
        bench: tuple[XdmaTransport, XdmaEmulation], name: str,
        mangle: Callable[[bytes], bytes], code: ErrorCode, index: int) -> None:
    transport, _emulation = bench
    read_id = Program().ce(0).cmd(0x90).addr(b"\x20").delay(120).dout(4)
    results = decode_results(transport.run_encoded(mangle(read_id.encode())))
    assert [(e.code, e.index) for e in results.errors] == [(code, index)], name
    assert transport.run(read_id).data[0] == b"ONFI"


def test_device_files_missing(board: Board) -> None:
    emulation = XdmaEmulation("mlc-64l")
    emulation.faults.missing = {"c2h_0"}
    url = "xdma:///dev/xdma0?board=fpga-test"
    with pytest.raises(TransportError, match=r"/dev/xdma0_c2h_0 failed.*lsmod \| grep xdma"):
        XdmaTransport(parse_xdma_url(url), url, files=emulation, board=board)
    with pytest.raises(TransportError, match="does not exist|missing"):
        XdmaTransport(parse_xdma_url("xdma:///dev/xdma7?board=b"), url, files=emulation,
                      board=board)


def test_permission_and_wrong_bitstream(board: Board) -> None:
    url = "xdma:///dev/xdma0?board=fpga-test"
    emulation = XdmaEmulation("mlc-64l")
    emulation.faults.permission_denied = True
    with pytest.raises(TransportError, match="no permission: add a udev rule"):
        XdmaTransport(parse_xdma_url(url), url, files=emulation, board=board)
    emulation = XdmaEmulation("mlc-64l")
    emulation.faults.wrong_magic = True
    with pytest.raises(TransportError, match="does not hold the nandlab CSR block"):
        XdmaTransport(parse_xdma_url(url), url, files=emulation, board=board)


@pytest.mark.parametrize(("code", "words"), [
    (ETIME, "timed out after the driver's timeout"),
    (errno.ETIMEDOUT, "timed out"),
    (ERESTARTSYS, "Unknown error 512.*ERESTARTSYS"),
])
def test_driver_failures_name_the_cause_and_reset(bench: tuple[XdmaTransport, XdmaEmulation],
                                                  code: int, words: str) -> None:
    transport, emulation = bench
    emulation.faults.c2h_errno = code
    with pytest.raises(TransportError, match=words):
        transport.run(Program().ce(0).cmd(0x70).delay(120).dout(1))
    # the next program runs normally
    assert len(transport.run(Program().ce(0).cmd(0x70).delay(120).dout(1)).data[0]) == 1


def test_waits_longer_than_the_driver_timeout_are_refused(
        bench: tuple[XdmaTransport, XdmaEmulation]) -> None:
    transport, _emulation = bench
    with pytest.raises(UsageError, match="c2h_timeout"):
        transport.run(Program().ce(0).wait_rdy(4_000_000_000).wait_rdy(4_000_000_000)
                      .wait_rdy(4_000_000_000))


def test_open_bench_dispatches_xdma(tmp_path: Path) -> None:
    from nandlab.transport import open_bench

    (tmp_path / "fpga.yaml").write_text(FPGA_BOARD)
    with pytest.raises(TransportError, match="xdma driver loaded"):
        open_bench(f"xdma:///dev/xdma99?board={tmp_path / 'fpga.yaml'}")
    with pytest.raises(BenchURLError, match="not an FPGA"):
        open_bench("xdma:///dev/xdma0?board=ft2232h-bga")
