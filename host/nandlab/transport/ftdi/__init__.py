"""`ftdi://` benches: an FT2232H driving a NAND socket through pyftdi.

    ftdi://ftdi:2232h/1?board=ft2232h-bga&profile=mlc-64l

`FtdiTransport` (MCU host bus fast path or bit-bang fallback, from the board
file), `parse_ftdi_url` / `FtdiOptions`, `McuCompiler` (op program -> MCU
host bus bytes), `LinkStats` (USB round trips and bytes).
"""

from nandlab.transport.ftdi.mcu_runner import LinkStats
from nandlab.transport.ftdi.mcu_stream import McuCompiler
from nandlab.transport.ftdi.options import FTDI_FORM, FtdiOptions, parse_ftdi_url
from nandlab.transport.ftdi.transport import FtdiTransport

__all__ = ["FTDI_FORM", "FtdiOptions", "FtdiTransport", "LinkStats", "McuCompiler",
           "parse_ftdi_url"]
