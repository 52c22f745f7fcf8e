"""cocotb module behind `rtl://<profile>?firmware=<elf>` (nandlab.transport.firmware_rtl):
the firmware-in-the-loop harness serving the host's accesses over a Unix socket.

The host listens on the socket named in NANDLAB_FW_SOCKET and starts the
simulator with this module and the ELF's BRAM image; the simulation boots
the firmware beside nandlab_core with a die of the NANDLAB_RTL_* profile and
seed on the pins, connects, and serves frames until an empty one. The host
runs `nandlab.firmware.Mailbox` on top, unchanged. Simulation time stands
still while the simulator waits for the next frame.

Frames (u32 little-endian length, then the payload): b"R" + address (u32):
read a host-port word, answered with it (u32); b"W" + address + value: write
one; b"C" + n: let n clocks pass (the host's wait between two polls), answered
with an empty payload. Every answer starts with a status byte: 0 ok, 1 an error
message follows (a broken ONFI timing on the pins).
"""

from __future__ import annotations

import os
import socket
import struct
from typing import Any

import cocotb
from cocotb.triggers import ClockCycles

from nandlab.rtlsim.ctrl_bench import BenchConfig
from nandlab.rtlsim.frames import read_frame, reply
from nandlab.rtlsim.fw_harness import boot, read_word, write_word

SOCKET_ENV = "NANDLAB_FW_SOCKET"
U32 = struct.Struct("<I")


@cocotb.test()
async def serve(dut: Any) -> None:
    """Boot the firmware, then serve host-port accesses until an empty frame."""
    config = BenchConfig.from_env()
    await boot(dut, config.load_profile(), config.seed)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(os.environ[SOCKET_ENV])
    try:
        while True:
            _, frame = read_frame(sock)
            if not frame:
                break
            kind, args = frame[:1], [U32.unpack_from(frame, 1 + 4 * i)[0]
                                     for i in range((len(frame) - 1) // 4)]
            if kind == b"R":
                answer = U32.pack(await read_word(dut, args[0]))
            elif kind == b"W":
                await write_word(dut, args[0], args[1])
                answer = b""
            elif kind == b"C":
                await ClockCycles(dut.clk, args[0])
                answer = b""
            else:
                reply(sock, error=f"unknown frame {kind!r}")
                continue
            reply(sock, answer)
    finally:
        sock.close()
