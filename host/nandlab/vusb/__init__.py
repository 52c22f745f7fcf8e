"""A virtual FT2232H that plugs in as a pyusb backend (hardware-free FT2232H benches).

- `VirtualFt2232h`: the chip (vendor requests, FIFOs, MCU host bus / bit-bang
  modes) on a socket board with a virtual die behind its pins.
- `plugged(*devices)`: connects devices; pyftdi then finds them as real ones.
- `NandBus`: the socket's pins, every edge checked by the ONFI SDR timing checker.
- `McuEngine` / `MpsseEngine`: the AN_108 command processor in MCU host bus and
  MPSSE mode (docs/ft2232h.md); `I2cBus`: the board's I2C bus on ADBUS0..2.
"""

from nandlab.vusb.backend import VirtualUsbBackend, plugged
from nandlab.vusb.ft2232h import VirtualFt2232h
from nandlab.vusb.mcu import McuEngine
from nandlab.vusb.mpsse import MpsseEngine
from nandlab.vusb.mpsse_i2c import I2cBus
from nandlab.vusb.nand_bus import NandBus

__all__ = ["I2cBus", "McuEngine", "MpsseEngine", "NandBus", "VirtualFt2232h",
           "VirtualUsbBackend", "plugged"]
