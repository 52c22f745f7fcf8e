"""A NAND reader written elsewhere, on the virtual FT2232H: it must read what nandlab reads.

`ForeignReader` is written the way the published FT2232H NAND readers
(DumpFlash, NandTool) drive the chip, with pyftdi and raw MCU host bus
command bytes only (no nandlab helper): SET BITS HIGH puts I/O0 (CE# on
their boards, WP# on ours: it only reads) low at start, CLE / ALE / WP# are
bits of the high address byte (40h / 80h / 20h; A13 drives nothing on our
board, whose WP# on A13 broke tWW), data sits on AD[7:0], R/B# is polled
with GET BITS HIGH (bit 1), one USB write per command / address / data
phase. It never changes WP# while it runs, so it meets tWW too. "Slow mode"
keeps the MPSSE's divide-by-5 on, where every byte read comes back twice and
the reader keeps every other one. Geometry and address cycles come from the
ONFI parameter page it reads itself (ONFI byte offsets).

On the same virtual chip, READ ID, the parameter page and a full page read
(data + spare) must equal what `nandlab info` and `nandlab read` return.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import Result
from nandlab.boards import load_board
from nandlab.profiles import load_profile
from nandlab.vchip.die import VirtualDie
from nandlab.vusb import VirtualFt2232h, plugged
from pyftdi.ftdi import Ftdi

BENCH = "ftdi://ftdi:2232h/1?board=ft2232h-bga&profile=mlc-64l"
CLE, ALE, WP_N = 0x40, 0x80, 0x20
READ_SHORT, READ_EXTENDED, WRITE_SHORT, WRITE_EXTENDED = 0x90, 0x91, 0x92, 0x93
SET_BITS_HIGH, GET_BITS_HIGH, SEND_IMMEDIATE = 0x82, 0x83, 0x87
DIV5_OFF, DIV5_ON = 0x8A, 0x8B
CHUNK = 1024  # reads per USB round trip: the doubled replies stay inside the 4 KiB RX FIFO


class ForeignReader:
    """DumpFlash-style raw MCU host bus access to a NAND on channel A."""

    def __init__(self, url: str, slow: bool) -> None:
        self.slow = slow
        self.ftdi = Ftdi()
        self.ftdi.open_from_url(url)
        self.ftdi.set_bitmode(0, Ftdi.BitMode.MCU)
        self.ftdi.write_data(bytes((DIV5_ON if slow else DIV5_OFF,)))
        self.ftdi.set_latency_timer(1)
        self.ftdi.purge_buffers()
        self.ftdi.write_data(bytes((SET_BITS_HIGH, 0x00, 0x01)))  # I/O0 out, low
        self.wait_ready()

    def close(self) -> None:
        self.ftdi.close()

    def wait_ready(self) -> None:
        for _ in range(10_000):
            self.ftdi.write_data(bytes((GET_BITS_HIGH, SEND_IMMEDIATE)))
            if self.ftdi.read_data_bytes(1, attempt=8)[0] & 0x02:
                return
        raise AssertionError("R/B# never went high")

    def _write(self, hi: int, data: bytes) -> None:
        cmds = bytearray((WRITE_EXTENDED, hi | WP_N, 0, data[0]))
        for byte in data[1:]:
            cmds += bytes((WRITE_SHORT, 0, byte))
        self.ftdi.write_data(cmds)

    def command(self, byte: int) -> None:
        self._write(CLE, bytes((byte,)))

    def address(self, data: bytes) -> None:
        self._write(ALE, data)

    def read(self, count: int) -> bytes:
        out = bytearray()
        while len(out) < count:
            n = min(CHUNK, count - len(out))
            cmds = bytearray((READ_EXTENDED, WP_N, 0)) + bytes((READ_SHORT, 0)) * (n - 1)
            self.ftdi.write_data(cmds + bytes((SEND_IMMEDIATE,)))
            if self.slow:
                out += bytes(self.ftdi.read_data_bytes(2 * n, attempt=8))[0::2]
            else:
                out += bytes(self.ftdi.read_data_bytes(n, attempt=8))
        return bytes(out)

    # ------------------------------------------------------------ NAND operations

    def read_id(self, address: int, count: int) -> bytes:
        self.command(0x90)
        self.address(bytes((address,)))
        return self.read(count)

    def parameter_page(self) -> bytes:
        self.command(0xEC)
        self.address(b"\x00")
        self.wait_ready()
        return self.read(256)

    def read_page(self, page_page: bytes, block: int, page: int) -> bytes:
        data_bytes = int.from_bytes(page_page[80:84], "little")
        spare_bytes = int.from_bytes(page_page[84:86], "little")
        pages_per_block = int.from_bytes(page_page[92:96], "little")
        row_cycles, column_cycles = page_page[101] & 0x0F, page_page[101] >> 4
        row = block * (1 << (pages_per_block - 1).bit_length()) + page
        self.command(0x00)
        self.address(bytes(column_cycles) + row.to_bytes(row_cycles, "little"))
        self.command(0x30)
        self.wait_ready()
        return self.read(data_bytes + spare_bytes)


@pytest.fixture
def device() -> Iterator[VirtualFt2232h]:
    dev = VirtualFt2232h(load_board("ft2232h-bga"), VirtualDie(load_profile("mlc-64l"), 5, 0))
    with plugged(dev):
        yield dev


@pytest.mark.parametrize("slow", [False, True], ids=["60MHz", "divide-by-5"])
def test_foreign_reader_sees_what_nandlab_sees(device: VirtualFt2232h, slow: bool,
                                               run_json: Callable[..., dict],
                                               run: Callable[..., Result],
                                               tmp_path: Path) -> None:
    run_json("program", BENCH, "--block", "6", "--page", "3", "--pattern", "random",
             "--seed", "11", "--yes")
    info = run_json("info", BENCH)
    out = tmp_path / "page.bin"
    read = run_json("read", BENCH, "--block", "6", "--page", "3", "--out", str(out))
    assert read["zero_bits"] > 0, "the page holds programmed data, not the erased state"

    nandlab_violations = len(device.bus.violations)  # the transport's own tests judge these
    reader = ForeignReader("ftdi://ftdi:2232h/1", slow=slow)
    try:
        id_bytes = bytes.fromhex(info["id_bytes"])
        assert reader.read_id(0x00, len(id_bytes)) == id_bytes
        assert reader.read_id(0x20, 4) == b"ONFI"
        page_page = reader.parameter_page()
        assert page_page == bytes.fromhex(info["parameter_page_hex"])
        assert reader.read_page(page_page, 6, 3) == out.read_bytes()
    finally:
        reader.close()
    mine = device.bus.violations[nandlab_violations:]
    assert mine == [], "\n".join(map(str, mine))
