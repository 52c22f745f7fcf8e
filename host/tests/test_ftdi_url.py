"""ftdi:// URLs: the pyftdi part and nandlab's options; faults name the form."""

from __future__ import annotations

import pytest

from nandlab.errors import BenchURLError, TransportError
from nandlab.transport import open_bench
from nandlab.transport.ftdi import FtdiOptions, parse_ftdi_url


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("ftdi://ftdi:2232h/1?board=ft2232h-bga&profile=mlc-64l",
         FtdiOptions("ftdi://ftdi:2232h/1", 1, "ft2232h-bga", "mlc-64l")),
        ("ftdi://ftdi:2232h:FT12AB/2?board=b.yaml&instruments=1",
         FtdiOptions("ftdi://ftdi:2232h:FT12AB/2", 2, "b.yaml", None, True)),
        ("FTDI:///1?board=x", FtdiOptions("ftdi://ftdi:2232h/1", 1, "x")),
        ("ftdi://ftdi:2232h/1?board=x&busy=wait",
         FtdiOptions("ftdi://ftdi:2232h/1", 1, "x", None, False, "wait")),
    ],
)
def test_good_urls(url: str, expected: FtdiOptions) -> None:
    assert parse_ftdi_url(url) == expected
    assert expected.device_url_for(2).endswith("/2")


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("ftdi://ftdi:2232h/1", ["names no board"]),
        ("ftdi://ftdi:2232h/3?board=x", ["interface '/3'", "/1 (channel A)"]),
        ("ftdi://ftdi:2232h?board=x", ["interface '/'"]),
        ("ftdi://ftdi:2232h/1?board=x&speed=3", ["unknown option 'speed'", "board"]),
        ("ftdi://ftdi:2232h/1?board=x&board=y", ["given twice"]),
        ("ftdi://ftdi:2232h/1?board=x&instruments=yes", ["instruments='yes'"]),
        ("ftdi://ftdi:2232h/1?board=x&profile=", ["profile= needs"]),
        ("ftdi://ftdi:2232h/1?board=x&busy=poll", ["busy='poll'", "sample or wait"]),
        ("ftdi://ftdi:2232h/1?board=x#f", ["#fragment"]),
        ("ftdi://ftdi:2232h/1?board", ["malformed query"]),
        ("sim://mlc-64l", ["not an ftdi:// URL"]),
    ],
)
def test_bad_urls_name_the_fault(url: str, words: list[str]) -> None:
    with pytest.raises(BenchURLError) as info:
        parse_ftdi_url(url)
    for word in words:
        assert word in str(info.value)


def test_wrong_interface_for_the_board_and_no_device() -> None:
    from nandlab.vusb import plugged

    with pytest.raises(BenchURLError, match="interface /1, the URL names /2"):
        open_bench("ftdi://ftdi:2232h/2?board=ft2232h-bga")
    with plugged(), pytest.raises(TransportError, match="cannot open FT2232H.*nandlab doctor"):
        open_bench("ftdi://ftdi:2232h/1?board=ft2232h-bga&profile=mlc-64l")


def test_permission_error_on_open_says_udev() -> None:
    from nandlab.boards import load_board
    from nandlab.profiles import load_profile
    from nandlab.vchip.die import VirtualDie
    from nandlab.vusb import VirtualFt2232h, plugged

    device = VirtualFt2232h(load_board("ft2232h-bga"), VirtualDie(load_profile("mlc-64l")))
    device.permission_denied = True
    with plugged(device), pytest.raises(TransportError, match="udev rule"):
        open_bench("ftdi://ftdi:2232h/1?board=ft2232h-bga&profile=mlc-64l")
