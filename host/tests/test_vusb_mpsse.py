"""The virtual FT2232H against FTDI AN_108, command by command, in MPSSE and MCU mode.

The expected replies below are written from AN_108 (Command Processor for
MPSSE and MCU Host Bus Emulation Modes) and the FT2232H datasheet, not from
our implementation: each row names its section. Every exchange ends with a
deliberate bad command (ABh, the synchronisation trick of AN_135): its
FAh ABh must come right after the expected reply, so a command that ate too
many or too few bytes shows up as a stream out of step.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pyftdi.ftdi import Ftdi
from pyftdi.gpio import GpioMpsseController
from pyftdi.spi import SpiController

from nandlab.boards import load_board
from nandlab.profiles import load_profile
from nandlab.vchip.die import VirtualDie
from nandlab.vusb import VirtualFt2232h, plugged

SYNC = b"\xab"
SYNC_REPLY = b"\xfa\xab"
URL = "ftdi://ftdi:2232h/1"
CLE, ALE, WP = 0x40, 0x80, 0x20

# (AN_108 section, command bytes, reply) in MPSSE mode. Pins: TCK = bit 0,
# TDI/DO = 1, TDO/DI = 2, TMS/CS = 3, GPIOL0..3 = 4..7; inputs float high.
OUT_TCK_LOW = bytes((0x80, 0x00, 0x0B))  # TCK, TDI, TMS outputs, all low
OUT_TCK_HIGH = bytes((0x80, 0x01, 0x0B))
LOOP = b"\x84"
MPSSE_TABLE = [
    ("3.6.1/3.6.2 set then read low byte (bit 2 an input)", b"\x80\x5a\xfb\x81", b"\x5e"),
    ("3.6.3/3.6.4 set then read high byte", b"\x82\x3c\x0f\x83", b"\xfc"),
    ("3.3.9 bytes in+out -ve/+ve MSB, loopback", OUT_TCK_LOW + LOOP + b"\x31\x01\x00\xa5\x3c",
     b"\xa5\x3c"),
    ("3.4.9 bytes in+out -ve/+ve LSB, loopback", OUT_TCK_LOW + LOOP + b"\x39\x01\x00\xa5\x3c",
     b"\xa5\x3c"),
    ("3.3.10 bytes out +ve in -ve MSB, CLK starting at 1, loopback",
     OUT_TCK_HIGH + LOOP + b"\x34\x00\x00\xc3", b"\xc3"),
    ("3.4.10 bytes out +ve in -ve LSB, CLK starting at 1, loopback",
     OUT_TCK_HIGH + LOOP + b"\x3c\x00\x00\x81", b"\x81"),
    # AN_108 pairs -ve out with CLK starting at 0; starting at 1, the first (falling) edge
    # already moves DO to the next bit, so the +ve sample reads every bit one early
    ("3.3.9 misused: -ve out with CLK starting at 1", OUT_TCK_HIGH + LOOP + b"\x31\x00\x00\xa5",
     b"\x4b"),
    ("3.3.1 bytes out, no read: no reply", OUT_TCK_LOW + b"\x11\x02\x00\x01\x02\x03", b""),
    ("3.3.5 bytes in +ve MSB, DI floating high", OUT_TCK_LOW + b"\x20\x01\x00", b"\xff\xff"),
    ("3.3.5 bytes in, loopback of a low TDI", OUT_TCK_LOW + LOOP + b"\x20\x00\x00", b"\x00"),
    ("3.2 loopback off (85h): DI floats high again",
     OUT_TCK_LOW + LOOP + b"\x85\x24\x00\x00", b"\xff"),
]
# bit commands: (section, command, mask of the bits AN_108 defines, expected under the mask)
BIT_TABLE = [
    # MSB first: the first bit in ends up at bit n-1 ("shifted up")
    ("3.3.11 bits in+out MSB, 3 bits 101", OUT_TCK_LOW + LOOP + b"\x33\x02\xa0", 0x07, 0x05),
    # LSB first: bits come in at the top, the first bit at bit 8-n
    ("3.4.11 bits in+out LSB, 4 bits of 0Dh", OUT_TCK_LOW + LOOP + b"\x3b\x03\x0d", 0xF0, 0xD0),
    ("3.3.7 bits in +ve MSB, DI high", OUT_TCK_LOW + b"\x22\x04", 0x1F, 0x1F),
    # TMS with read: TDI holds bit 7 of the byte during the clocks; loopback reads it back
    ("3.5.2 TMS out, TDO in (loopback of TDI = 1)", OUT_TCK_LOW + LOOP + b"\x6b\x02\x80",
     0xE0, 0xE0),
]
BAD_TABLE = [
    ("3.1 an undefined opcode", b"\xaa", b"\xfa\xaa"),
    ("3.1 MCU READ SHORT in MPSSE mode; its argument is read as a new opcode (87h)",
     b"\x90\x87", b"\xfa\x90"),
    ("7.1 drive-zero is FT232H only: bad on an FT2232H, its bytes read as commands",
     b"\x9e\x87\x87", b"\xfa\x9e"),
    ("3.2 a shifting opcode with neither read nor write", b"\x02", b"\xfa\x02"),
]


@pytest.fixture
def device() -> Iterator[VirtualFt2232h]:
    dev = VirtualFt2232h(load_board("ft2232h-bga"), VirtualDie(load_profile("mlc-64l")))
    with plugged(dev):
        yield dev


@pytest.fixture
def mpsse(device: VirtualFt2232h) -> Iterator[Ftdi]:
    ftdi = Ftdi()
    ftdi.open_from_url(URL)
    ftdi.set_bitmode(0, Ftdi.BitMode.MPSSE)
    ftdi.write_data(b"\x8a\x97\x8d")  # 60 MHz, no adaptive clocking, 2-phase
    yield ftdi
    ftdi.close()


@pytest.fixture
def mcu(device: VirtualFt2232h) -> Iterator[Ftdi]:
    ftdi = Ftdi()
    ftdi.open_from_url(URL)
    ftdi.set_bitmode(0, Ftdi.BitMode.MCU)
    yield ftdi
    ftdi.close()


def ask(ftdi: Ftdi, cmd: bytes, n: int) -> bytes:
    """Send `cmd` + sync; return its `n` reply bytes, checking the sync comes right after."""
    ftdi.write_data(cmd + SYNC + b"\x87")
    reply = bytes(ftdi.read_data_bytes(n + 2, attempt=8))
    assert reply[n:] == SYNC_REPLY, f"stream out of step: {reply.hex()}"
    return reply[:n]


@pytest.mark.parametrize(("section", "cmd", "reply"), MPSSE_TABLE + BAD_TABLE,
                         ids=[row[0] for row in MPSSE_TABLE + BAD_TABLE])
def test_mpsse_command_replies(mpsse: Ftdi, section: str, cmd: bytes, reply: bytes) -> None:
    assert ask(mpsse, cmd, len(reply)) == reply


@pytest.mark.parametrize(("section", "cmd", "mask", "value"), BIT_TABLE,
                         ids=[row[0] for row in BIT_TABLE])
def test_mpsse_bit_commands(mpsse: Ftdi, section: str, cmd: bytes, mask: int,
                            value: int) -> None:
    (byte,) = ask(mpsse, cmd, 1)
    assert byte & mask == value


def test_written_bits_and_tms_stay_on_their_pins(mpsse: Ftdi) -> None:
    # 3.3.1: the last bit out stays on TDI/DO; 3.5.1: TMS keeps its last bit, TDI bit 7
    assert ask(mpsse, OUT_TCK_LOW + b"\x11\x00\x00\x01\x81", 1)[0] & 0x0B == 0x02
    assert ask(mpsse, OUT_TCK_LOW + b"\x4b\x02\x04\x81", 1)[0] & 0x0B == 0x08
    assert ask(mpsse, OUT_TCK_LOW + b"\x4b\x02\x83\x81", 1)[0] & 0x0B == 0x02


def _tck_time_ps(device: VirtualFt2232h, mpsse: Ftdi, setup: bytes, clocks_cmd: bytes) -> int:
    ask(mpsse, setup, 0)
    engine = device.channels[1].mpsse
    assert engine is not None
    start = engine.now_ps
    ask(mpsse, clocks_cmd, 0)
    return engine.now_ps - start


@pytest.mark.parametrize(("setup", "master_hz", "divisor", "phases"), [
    (b"\x8a\x86\x05\x00\x8d", 60e6, 5, 2),
    (b"\x8b\x86\x05\x00\x8d", 12e6, 5, 2),
    (b"\x8a\x86\x00\x01\x8d", 60e6, 256, 2),
    (b"\x8a\x86\x05\x00\x8c", 60e6, 5, 3),
])
def test_clock_commands_take_their_tck_periods(device: VirtualFt2232h, mpsse: Ftdi, setup: bytes,
                                                master_hz: float, divisor: int,
                                                phases: int) -> None:
    """3.8.1 / 6.1-6.6: TCK = master / ((1 + divisor) * 2); 3-phase adds half a period."""
    period_s = (1 + divisor) * 2 / master_hz * phases / 2
    fetch_s = 1 / master_hz
    for cmd, clocks in ((b"\x8f\x03\x00", 32), (b"\x8e\x04", 5), (b"\x9c\x01\x00", 0)):
        spent = _tck_time_ps(device, mpsse, setup, cmd) / 1e12
        # 9Ch with GPIOL1 already high (floating) stops at once
        expected = clocks * period_s + (len(cmd) + len(SYNC) + 1) * fetch_s
        assert spent == pytest.approx(expected, rel=1e-3), cmd.hex()


def test_clock_for_n_bytes_until_low_runs_its_count(device: VirtualFt2232h, mpsse: Ftdi) -> None:
    spent = _tck_time_ps(device, mpsse, b"\x8a\x86\x00\x00", b"\x9d\x01\x00") / 1e12
    assert spent == pytest.approx(16 * 2 / 60e6 + 5 / 60e6, rel=1e-3)  # GPIOL1 never goes low


def test_waits_and_clock_until_block_until_the_pin_level(mpsse: Ftdi) -> None:
    """5.2 / 5.3 / 6.7 / 6.8: GPIOL1 floats high; driven low, the low waits pass."""
    assert ask(mpsse, b"\x88\x94", 0) == b""
    mpsse.write_data(b"\x89\x81\x87")  # wait for a low that never comes: nothing answers
    assert mpsse.read_data_bytes(1, attempt=2) == b""
    mpsse.purge_tx_buffer()
    assert ask(mpsse, b"\x80\x00\x20\x89\x95\x9d\x00\x00\x81", 1)[0] & 0x20 == 0


def test_adaptive_clocking_waits_for_rtck(mpsse: Ftdi) -> None:
    """6.9 / 6.10: with nothing echoing TCK on GPIOL3 the first clock never ends."""
    mpsse.write_data(b"\x96\x8e\x00\x81\x87")
    assert mpsse.read_data_bytes(1, attempt=2) == b""
    mpsse.purge_tx_buffer()
    assert len(ask(mpsse, b"\x97\x8e\x00\x81", 1)) == 1


@pytest.mark.parametrize("mode", [0, 1, 2, 3])
def test_pyftdi_spi_loopback_in_every_mode(device: VirtualFt2232h, mode: int) -> None:
    spi = SpiController()
    spi.configure(URL)
    try:
        port = spi.get_port(cs=0, freq=6e6, mode=mode)
        data = bytes(range(0x30, 0x50))
        assert port.exchange(data, duplex=True) == b"\xff" * len(data)  # MISO floats high
        spi.ftdi.enable_loopback_mode(True)
        assert port.exchange(data, duplex=True) == data
        assert port.exchange(b"\x5a", readlen=0) == b""
    finally:
        spi.terminate()


def test_pyftdi_gpio_mpsse_controller(device: VirtualFt2232h) -> None:
    gpio = GpioMpsseController()
    gpio.configure(URL, direction=0x0F0F, frequency=1e6)
    try:
        gpio.write(0x0A05)
        assert gpio.read() == (0xFAF5,)  # outputs as written, inputs pulled high
    finally:
        gpio.close()


# ------------------------------------------------------------ MCU host bus emulation

def test_mcu_set_bits_high_keeps_the_stream_in_step(mcu: Ftdi, device: VirtualFt2232h) -> None:
    """Datasheet MCU mode: 82h / 83h drive and read I/O0 (bit 0 = WP# on this board) and
    I/O1 (bit 1 = R/B#)."""
    assert ask(mcu, b"\x82\x00\x01\x83", 1) == b"\x02"  # I/O0 driven low, R/B# ready
    assert ask(mcu, b"\x82\x01\x01\x83", 1) == b"\x03"
    assert ask(mcu, b"\x82\x00\x00\x83", 1) == b"\x02"  # both inputs: WP#'s pull-down on I/O0
    assert ask(mcu, b"\x82\x00\x02\x83", 1) == b"\x00"  # I/O1 driven low pulls R/B# down
    assert ask(mcu, b"\x80\x5a\x0f\x81", 1) == b"\xfa"  # AD pins between cycles


def test_mcu_accepts_the_settings_commands_and_rejects_serial_ones(mcu: Ftdi) -> None:
    # then 83h: R/B# ready on I/O1, I/O0 (WP#) released since mode entry reads its pull-down
    assert ask(mcu, b"\x84\x85\x86\x10\x00\x8c\x8d\x96\x97\x87\x83", 1) == b"\x02"
    assert ask(mcu, b"\x8e\x87", 2) == b"\xfa\x8e"  # 8Eh's length byte read as a command
    assert ask(mcu, b"\x31\x87", 2) == b"\xfa\x31"


def _read_id(mcu: Ftdi, reads: int, reply: int) -> bytes:
    mcu.write_data(bytes((0x93, CLE | WP, 0, 0x90, 0x93, ALE | WP, 0, 0x00)) + b"\x87" * 8
                   + bytes((0x91, WP, 0)) + b"\x90\x00" * (reads - 1) + b"\x87")
    return bytes(mcu.read_data_bytes(reply, attempt=8))


def test_mcu_divide_by_5_returns_every_read_byte_twice(mcu: Ftdi, device: VirtualFt2232h) -> None:
    """The state at mode entry is divide-by-5 on: one RD# pulse, the byte twice."""
    id_bytes = bytes(load_profile("mlc-64l").identity.id_bytes)
    doubled = _read_id(mcu, 4, 8)
    assert doubled == bytes(b for byte in id_bytes[:4] for b in (byte, byte))
    assert device.bus.stats.dout_bytes == 4
    mcu.write_data(b"\x8a")
    assert _read_id(mcu, 4, 4) == id_bytes[:4]


def test_mcu_bus_cycles_run_at_the_master_clock(device: VirtualFt2232h) -> None:
    """The engine alone (no USB turnarounds): 100 read cycles at 60 and at 12 MHz."""
    engine = device.engine
    spent = []
    for div5 in (0x8A, 0x8B):
        engine.feed(bytes((div5, 0x91, WP, 0)) + b"\x90\x00" * 99)
        start = engine.now_ps
        assert len(engine.run(4096)) == 100 * (2 if div5 == 0x8B else 1)
        spent.append(engine.now_ps - start)
    assert spent[1] / spent[0] == pytest.approx(5, rel=0.02)


class _Registers:
    """A register device as the I2C bus expects one (pyftdi I2cPort-style)."""

    def __init__(self) -> None:
        self.regs = {r: bytes((r, r ^ 0xFF)) for r in range(16)}
        self.writes: list[tuple[int, bytes]] = []

    def read_from(self, reg: int, n: int) -> bytes:
        return (self.regs.get(reg, b"\x00\x00") * n)[:n]

    def write_to(self, reg: int, data: bytes) -> None:
        self.writes.append((reg, data))


def test_pyftdi_i2c_controller_on_the_pin_level_bus(device: VirtualFt2232h) -> None:
    """pyftdi's I2cController on channel B: ACK, NACK, register write and read-back."""
    from pyftdi.i2c import I2cController, I2cNackError

    regs = _Registers()
    device.i2c_slaves[0x40] = regs
    i2c = I2cController()
    i2c.configure("ftdi://ftdi:2232h/2", frequency=400e3)
    try:
        port = i2c.get_port(0x40)
        assert port.read_from(0x05, 2) == b"\x05\xfa"
        port.write_to(0x07, b"\x12\x34")
        assert regs.writes == [(0x07, b"\x12\x34")]
        with pytest.raises(I2cNackError):
            i2c.get_port(0x41).read_from(0x00, 2)
    finally:
        i2c.terminate()
