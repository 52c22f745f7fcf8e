"""ONFI command bytes and status bits (ONFI 4.x, Linux rawnand.h)."""

from __future__ import annotations

from enum import IntEnum, IntFlag


class Cmd(IntEnum):
    RESET = 0xFF
    READ_ID = 0x90
    READ_PARAMETER_PAGE = 0xEC
    READ_UNIQUE_ID = 0xED
    GET_FEATURES = 0xEE
    SET_FEATURES = 0xEF
    READ_STATUS = 0x70
    READ_STATUS_ENHANCED = 0x78
    READ = 0x00
    READ_CONFIRM = 0x30
    READ_MULTIPLANE = 0x32
    COPYBACK_READ = 0x35
    CHANGE_READ_COLUMN = 0x05
    CHANGE_READ_COLUMN_CONFIRM = 0xE0
    CHANGE_READ_COLUMN_ENHANCED = 0x06  # + column + row + E0h: selects the plane for data out
    READ_CACHE_SEQUENTIAL = 0x31
    READ_CACHE_END = 0x3F
    PROGRAM = 0x80
    PROGRAM_CONFIRM = 0x10
    PROGRAM_CACHE = 0x15
    PROGRAM_MULTIPLANE = 0x11
    CHANGE_WRITE_COLUMN = 0x85
    ERASE = 0x60
    ERASE_CONFIRM = 0xD0
    ERASE_MULTIPLANE = 0xD1


class Status(IntFlag):
    FAIL = 0x01
    FAILC = 0x02
    ARDY = 0x20
    RDY = 0x40
    WP_N = 0x80


class Feature(IntEnum):
    TIMING_MODE = 0x01
    NV_DDR_CONFIG = 0x02  # NV-DDR2 / NV-DDR3 configuration: ODT, differential, warm-up


READ_ID_ONFI_ADDRESS = 0x20
ONFI_SIGNATURE = b"ONFI"
UNIQUE_ID_BYTES = 16
UNIQUE_ID_COPIES = 16
PARAMETER_PAGE_BYTES = 256
PARAMETER_PAGE_COPIES = 3
