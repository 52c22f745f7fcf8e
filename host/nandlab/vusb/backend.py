"""A pyusb backend whose USB devices are virtual FT2232H boards.

pyftdi picks its pyusb backend by module name from `UsbTools.BACKENDS`, the
first whose `get_backend()` answers; `plugged()` puts this module first and
connects virtual devices, so pyftdi (and everything above it) runs unchanged
on them:

    >>> with plugged(VirtualFt2232h(board, die)) as device:   # doctest: +SKIP
    ...     bench = open_bench("ftdi://ftdi:2232h/1?board=ft2232h-bga&profile=mlc-64l")

Only this lowest layer is swapped: descriptors, control transfers (FTDI
vendor requests, string descriptors) and bulk transfers.
"""

from __future__ import annotations

import array
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from usb.backend import IBackend
from usb.core import USBError

from nandlab.vusb.ft2232h import (
    FT2232H_BCD,
    FT2232H_PID,
    FTDI_VID,
    PACKET,
    UsbFault,
    VirtualFt2232h,
)

MODULE = "nandlab.vusb.backend"
_STD_GET_DESCRIPTOR = 0x06
_DESC_STRING = 0x03
_LANGID_EN_US = 0x0409
_HIGH_SPEED = 3


@dataclass
class _Descriptor:
    """A USB descriptor: its fields as attributes."""

    fields: dict[str, Any]

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["fields"][name]
        except KeyError:
            raise AttributeError(name) from None


def _raise(fault: UsbFault) -> None:
    raise USBError(fault.text, errno=fault.errno) from None


class VirtualUsbBackend(IBackend):
    """pyusb IBackend over the plugged virtual devices."""

    def __init__(self) -> None:
        self.devices: list[VirtualFt2232h] = []

    def enumerate_devices(self) -> Iterator[VirtualFt2232h]:
        return iter([d for d in self.devices if d.plugged])

    def get_device_descriptor(self, dev: VirtualFt2232h) -> _Descriptor:
        return _Descriptor({
            "bLength": 18, "bDescriptorType": 1, "bcdUSB": 0x0200, "bDeviceClass": 0,
            "bDeviceSubClass": 0, "bDeviceProtocol": 0, "bMaxPacketSize0": 64,
            "idVendor": FTDI_VID, "idProduct": FT2232H_PID, "bcdDevice": FT2232H_BCD,
            "iManufacturer": 1, "iProduct": 2, "iSerialNumber": 3, "bNumConfigurations": 1,
            "address": dev.address, "bus": dev.bus_number, "port_number": 1,
            "port_numbers": (1,), "speed": _HIGH_SPEED,
        })

    def get_configuration_descriptor(self, dev: VirtualFt2232h, config: int) -> _Descriptor:
        return _Descriptor({
            "bLength": 9, "bDescriptorType": 2, "wTotalLength": 55, "bNumInterfaces": 2,
            "bConfigurationValue": 1, "iConfiguration": 0, "bmAttributes": 0x80,
            "bMaxPower": 45, "extra_descriptors": [],
        })

    def get_interface_descriptor(self, dev: VirtualFt2232h, intf: int, alt: int,
                                 config: int) -> _Descriptor:
        if intf > 1 or alt > 0:
            raise IndexError("no such interface")
        return _Descriptor({
            "bLength": 9, "bDescriptorType": 4, "bInterfaceNumber": intf,
            "bAlternateSetting": 0, "bNumEndpoints": 2, "bInterfaceClass": 0xFF,
            "bInterfaceSubClass": 0xFF, "bInterfaceProtocol": 0xFF, "iInterface": 2,
            "extra_descriptors": [],
        })

    def get_endpoint_descriptor(self, dev: VirtualFt2232h, ep: int, intf: int, alt: int,
                                config: int) -> _Descriptor:
        if ep > 1:
            raise IndexError("no such endpoint")
        address = (0x81 + 2 * intf) if ep == 0 else (0x02 + 2 * intf)
        return _Descriptor({
            "bLength": 7, "bDescriptorType": 5, "bEndpointAddress": address,
            "bmAttributes": 0x02, "wMaxPacketSize": PACKET, "bInterval": 0, "bRefresh": 0,
            "bSynchAddress": 0, "extra_descriptors": [],
        })

    # ------------------------------------------------------------ handles

    def open_device(self, dev: VirtualFt2232h) -> VirtualFt2232h:
        try:
            dev.check_present()
        except UsbFault as fault:
            _raise(fault)
        if dev.permission_denied:
            raise USBError("Access denied (insufficient permissions)", errno=13)
        return dev

    def close_device(self, dev_handle: VirtualFt2232h) -> None:
        return None

    def set_configuration(self, dev_handle: VirtualFt2232h, config_value: int) -> None:
        return None

    def get_configuration(self, dev_handle: VirtualFt2232h) -> int:
        return 1

    def set_interface_altsetting(self, dev_handle: VirtualFt2232h, intf: int, alt: int) -> None:
        return None

    def claim_interface(self, dev_handle: VirtualFt2232h, intf: int) -> None:
        if dev_handle.kernel_driver.get(intf):
            raise USBError("Resource busy", errno=16)

    def release_interface(self, dev_handle: VirtualFt2232h, intf: int) -> None:
        return None

    def is_kernel_driver_active(self, dev_handle: VirtualFt2232h, intf: int) -> bool:
        return bool(dev_handle.kernel_driver.get(intf))

    def detach_kernel_driver(self, dev_handle: VirtualFt2232h, intf: int) -> None:
        if dev_handle.detach_denied:
            raise USBError("Access denied (insufficient permissions)", errno=13)
        dev_handle.kernel_driver[intf] = False

    def attach_kernel_driver(self, dev_handle: VirtualFt2232h, intf: int) -> None:
        return None

    def clear_halt(self, dev_handle: VirtualFt2232h, ep: int) -> None:
        return None

    def reset_device(self, dev_handle: VirtualFt2232h) -> None:
        return None

    # ------------------------------------------------------------ transfers

    def bulk_write(self, dev_handle: VirtualFt2232h, ep: int, intf: int, data: Any,
                   timeout: int) -> int:
        try:
            return dev_handle.bulk_out(ep, bytes(data))
        except UsbFault as fault:
            _raise(fault)
        raise AssertionError("unreachable")  # pragma: no cover

    def bulk_read(self, dev_handle: VirtualFt2232h, ep: int, intf: int, buff: array.array,
                  timeout: int) -> int:
        try:
            data = dev_handle.bulk_in(ep, len(buff) * buff.itemsize)
        except UsbFault as fault:
            _raise(fault)
        buff[: len(data)] = array.array("B", data)
        return len(data)

    def ctrl_transfer(self, dev_handle: VirtualFt2232h, bmRequestType: int, bRequest: int,
                      wValue: int, wIndex: int, data: Any, timeout: int) -> int:
        try:
            dev_handle.check_present()
            direction_in = bool(bmRequestType & 0x80)
            kind = (bmRequestType >> 5) & 0x03
            if kind == 0 and bRequest == _STD_GET_DESCRIPTOR and direction_in:
                reply = self._descriptor(dev_handle, wValue)
            elif kind == 2 and direction_in:
                reply = dev_handle.vendor_in(bRequest, wValue, wIndex, len(data))
            elif kind == 2:
                dev_handle.vendor_out(bRequest, wValue, wIndex)
                return len(data)
            else:
                return 0
        except UsbFault as fault:
            _raise(fault)
        reply = reply[: len(data)]
        data[: len(reply)] = array.array("B", reply)
        return len(reply)

    @staticmethod
    def _descriptor(dev: VirtualFt2232h, w_value: int) -> bytes:
        kind, index = w_value >> 8, w_value & 0xFF
        if kind != _DESC_STRING:
            return b""
        if index == 0:
            return bytes((4, _DESC_STRING)) + _LANGID_EN_US.to_bytes(2, "little")
        text = dev.strings.get(index, "").encode("utf-16-le")
        return bytes((2 + len(text), _DESC_STRING)) + text


_ACTIVE: VirtualUsbBackend | None = None


def get_backend() -> VirtualUsbBackend | None:
    """The pyusb backend entry point pyftdi calls (None when nothing is plugged)."""
    return _ACTIVE


@contextmanager
def plugged(*devices: VirtualFt2232h) -> Iterator[VirtualUsbBackend]:
    """Connect virtual devices for the duration of the block (pyftdi sees only them)."""
    from pyftdi.usbtools import UsbTools

    global _ACTIVE
    backend = VirtualUsbBackend()
    backend.devices.extend(devices)
    saved_active, saved_backends = _ACTIVE, UsbTools.BACKENDS
    _ACTIVE = backend
    UsbTools.BACKENDS = (MODULE, *[b for b in saved_backends if b != MODULE])
    UsbTools.flush_cache()
    UsbTools.release_all_devices()
    try:
        yield backend
    finally:
        UsbTools.release_all_devices()
        UsbTools.flush_cache()
        _ACTIVE = saved_active
        UsbTools.BACKENDS = saved_backends
