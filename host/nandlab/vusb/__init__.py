"""A virtual FT2232H that plugs in as a pyusb backend (hardware-free FT2232H benches).

- `VirtualFt2232h`: the chip (vendor requests, FIFOs, MCU host bus / bit-bang
  modes) on a socket board with a virtual die behind its pins.
- `plugged(*devices)`: connects devices; pyftdi then finds them as real ones.
- `NandBus`: the socket's pins, every edge checked by the ONFI SDR timing checker.
"""

from nandlab.vusb.backend import VirtualUsbBackend, plugged
from nandlab.vusb.ft2232h import VirtualFt2232h
from nandlab.vusb.mcu import McuEngine
from nandlab.vusb.nand_bus import NandBus

__all__ = ["McuEngine", "NandBus", "VirtualFt2232h", "VirtualUsbBackend", "plugged"]
