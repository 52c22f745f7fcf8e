"""`nandlab doctor`: each condition that stops a real FT2232H bench, injected on the
virtual FT2232H (a pyusb backend), and the all-clear."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest
from click.testing import Result
from nandlab.boards import load_board
from nandlab.profiles import load_profile
from nandlab.vchip.die import VirtualDie
from nandlab.vusb import VirtualFt2232h, plugged

URL = "ftdi://ftdi:2232h/1?board=ft2232h-bga&profile=mlc-64l"


def make_device(profile: str = "mlc-64l") -> VirtualFt2232h:
    return VirtualFt2232h(load_board("ft2232h-bga"), VirtualDie(load_profile(profile)))


@pytest.fixture
def device() -> Iterator[VirtualFt2232h]:
    dev = make_device()
    with plugged(dev):
        yield dev


def findings(result: Result) -> dict[str, list[dict[str, object]]]:
    doc = json.loads(result.stdout)
    out: dict[str, list[dict[str, object]]] = {}
    for f in doc["findings"]:
        out.setdefault(f["check"], []).append(f)
    return out


def test_libusb_missing(run: Callable[..., Result], monkeypatch: pytest.MonkeyPatch) -> None:
    from pyftdi.usbtools import UsbTools

    monkeypatch.setattr(UsbTools, "BACKENDS", ("nandlab.vusb.backend",))  # nothing plugged
    result = run("doctor", "--json")
    assert result.exit_code == 1
    (libusb,) = findings(result)["libusb"]
    assert libusb["ok"] is False and "apt install libusb-1.0-0" in str(libusb["fix"])


def test_hw_extra_missing(run: Callable[..., Result], monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the 'hw' extra (make demo installs only the base set) doctor says what to install."""
    import sys

    for name in [m for m in sys.modules if m == "pyftdi" or m.startswith("pyftdi.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pyftdi", None)  # import pyftdi -> ModuleNotFoundError
    result = run("doctor", "--json")
    assert result.exit_code == 1
    (packages,) = findings(result)["packages"]
    assert packages["ok"] is False and "host[hw]" in str(packages["fix"])


def test_no_device_found(run: Callable[..., Result]) -> None:
    with plugged():
        result = run("doctor")
    assert result.exit_code == 1
    assert "no FTDI device found" in result.stdout and "lsusb" in result.stdout


def test_no_permission_prints_the_udev_rule(run: Callable[..., Result],
                                            device: VirtualFt2232h) -> None:
    device.permission_denied = True
    result = run("doctor", "--json")
    assert result.exit_code == 1
    (perm,) = findings(result)["permission"]
    assert perm["ok"] is False
    assert 'ATTR{idVendor}=="0403", ATTR{idProduct}=="6010"' in str(perm["fix"])
    assert "udevadm" in str(perm["fix"])


def test_ftdi_sio_holding_the_interface(run: Callable[..., Result],
                                        device: VirtualFt2232h) -> None:
    device.kernel_driver = {0: True, 1: False}
    device.detach_denied = True
    result = run("doctor", "--json")
    assert result.exit_code == 1
    (held,) = findings(result)["kernel driver"]
    assert held["ok"] is False and "rmmod ftdi_sio" in str(held["fix"])
    device.detach_denied = False
    result = run("doctor", "--json")
    assert result.exit_code == 0
    assert findings(result)["kernel driver"][0]["ok"] is None  # a note: pyftdi detaches it


def test_wrong_chip_in_the_socket(run: Callable[..., Result]) -> None:
    with plugged(make_device("tlc-48l")):
        result = run("doctor", "--url", URL, "--json")
    assert result.exit_code == 1
    (chip,) = findings(result)["chip"]
    assert chip["ok"] is False and "wrong chip in the socket" in str(chip["message"])
    assert "mlc-64l" in str(chip["message"])


def test_all_clear_with_the_chip_identified(run: Callable[..., Result],
                                            device: VirtualFt2232h) -> None:
    result = run("doctor", "--url", URL)
    assert result.exit_code == 0, result.stdout
    assert "VIRT-MLC-64L" in result.stdout and "nothing stops the bench" in result.stdout
