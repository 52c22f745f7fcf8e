"""The virtual FT2232H under pyftdi and pyusb: descriptors, vendor requests, modem
status bytes, MCU host bus commands, FIFO limits, faults."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import usb.core
from pyftdi.ftdi import Ftdi, FtdiError

from nandlab.boards import load_board
from nandlab.profiles import load_profile
from nandlab.vchip.die import VirtualDie
from nandlab.vusb import VirtualFt2232h, plugged

CLE, ALE, WP = 0x40, 0x80, 0x20


@pytest.fixture
def device() -> Iterator[VirtualFt2232h]:
    dev = VirtualFt2232h(load_board("ft2232h-bga"), VirtualDie(load_profile("mlc-64l")),
                         record_edges=True)
    with plugged(dev):
        yield dev


@pytest.fixture
def mcu(device: VirtualFt2232h) -> Iterator[Ftdi]:
    ftdi = Ftdi()
    ftdi.open_from_url("ftdi://ftdi:2232h/1")
    ftdi.set_bitmode(0, Ftdi.BitMode.MCU)
    ftdi.write_data(b"\x8a")  # 60 MHz master clock: one reply byte per read cycle
    yield ftdi
    ftdi.close()


def cmd(byte: int) -> bytes:
    return bytes((0x93, CLE | WP, 0, byte))


def addr(byte: int) -> bytes:
    return bytes((0x93, ALE | WP, 0, byte))


def test_pyftdi_sees_an_ft2232h(mcu: Ftdi) -> None:
    assert mcu.ic_name == "ft2232h"
    assert mcu.has_mpsse and mcu.fifo_sizes == (4096, 4096)
    assert mcu.get_latency_timer() == 1


def test_read_id_through_mcu_host_bus(mcu: Ftdi, device: VirtualFt2232h) -> None:
    mcu.write_data(cmd(0x90) + addr(0x00) + b"\x87" * 8 + bytes((0x91, WP, 0))
                   + b"\x90\x00" * 5 + b"\x87")
    assert mcu.read_data_bytes(6, attempt=4) == bytes(load_profile("mlc-64l").identity.id_bytes)
    assert device.bus.stats.cmd_cycles == 1 and device.bus.stats.dout_bytes == 6
    assert device.bus.violations == []


def test_wait_on_io_high_waits_for_rb_and_get_bits_high_samples_it(mcu: Ftdi,
                                                                    device: VirtualFt2232h) -> None:
    read = cmd(0x00) + addr(0) + addr(0) + addr(0) + addr(0) + addr(0) + cmd(0x30)
    mcu.write_data(read + b"\x87" * 12 + b"\x83" + b"\x88" + b"\x83\x87")
    before, after = mcu.read_data_bytes(2, attempt=4)
    assert before & 0x02 == 0 and after & 0x02 == 0x02
    assert device.engine.counters.waits == 1


def test_bad_command_and_clock_divider(mcu: Ftdi, device: VirtualFt2232h) -> None:
    mcu.write_data(b"\xab\x87")
    assert mcu.read_data_bytes(2, attempt=4) == b"\xfa\xab"
    start = device.engine.now_ps
    mcu.write_data(b"\x8b\x87\x8a")
    assert device.engine.clock_ps == 16_667
    assert device.engine.now_ps > start


def test_modem_status_heads_every_512_byte_packet(mcu: Ftdi, device: VirtualFt2232h) -> None:
    mcu.write_data(cmd(0x90) + addr(0x20) + b"\x87" * 8 + bytes((0x91, WP, 0))
                   + b"\x90\x00" * 1099 + b"\x87")
    raw = device.bulk_in(0x81, 4096)
    assert len(raw) == 2 + 510 + 2 + 510 + 2 + 80
    assert raw[0:2] == raw[512:514] == raw[1024:1026] == b"\x32\x60"
    assert raw[2:6] == b"ONFI"
    assert device.bulk_in(0x81, 4096) == b"\x32\x60"  # empty FIFO: status only


def test_rx_fifo_full_stalls_and_too_much_unread_times_out(mcu: Ftdi,
                                                            device: VirtualFt2232h) -> None:
    # 10000 reads do not fit the 4 KiB RX FIFO: the engine stalls, TX fills, the write times out
    with pytest.raises(FtdiError, match="timed out"):
        mcu.write_data(bytes((0x91, WP, 0)) + b"\x90\x00" * 10000)
    assert len(device.channels[1].rx) == 4096


def test_unplug_raises_enodev(mcu: Ftdi, device: VirtualFt2232h) -> None:
    device.unplug()
    with pytest.raises(FtdiError, match="Errno 19"):
        mcu.write_data(b"\x87")


def test_pyusb_level_descriptors(device: VirtualFt2232h) -> None:
    from nandlab.vusb.backend import get_backend

    (dev,) = usb.core.find(find_all=True, backend=get_backend(), idVendor=0x0403)
    assert (dev.idProduct, dev.bcdDevice) == (0x6010, 0x0700)
    cfg = dev.get_active_configuration()
    assert cfg.bNumInterfaces == 2
    eps = sorted(ep.bEndpointAddress for ep in cfg[(1, 0)])
    assert eps == [0x04, 0x83]
    assert usb.util.get_string(dev, dev.iSerialNumber) == "NLV00001"


def test_async_bitbang_drives_and_reads_pins() -> None:
    device = VirtualFt2232h(load_board("ft2232h-bitbang"), VirtualDie(load_profile("mlc-64l")))
    with plugged(device):
        ftdi = Ftdi()
        ftdi.open_bitbang_from_url("ftdi://ftdi:2232h/2", direction=0xBF)
        ftdi.write_data(b"\x3c")  # WE#, RE#, CE#, WP# high
        assert ftdi.read_pins() == 0x3C | 0x40  # outputs as driven; bit 6 = R/B# (ready)
        assert device.bus.level["wp_n"] == 1 and device.bus.level["ce_n"] == 1
        ftdi.close()
