"""cocotb test module behind `rtl://`: serves op programs from the host process.

The host (nandlab.transport.rtl) listens on a Unix socket whose path it passes
in NANDLAB_RTL_SOCKET, starts the simulator with this module, and sends one
frame per program. The simulation connects, runs each program through
nandlab_ctrl with virtual dies on its pins (nandlab.rtlsim.ctrl_bench), and answers
with the result stream. Simulation time stands still while it waits for the
next program. A zero-length frame ends the simulation.

Frames: u32 little-endian length, then the payload. Answers: one status byte
(0 = results follow, 1 = a UTF-8 error message follows), then the payload.
A length with bit 31 set marks a register write instead of a program: the
payload is u32 register offset, u32 value (the CSR map of nandlab.regs: the
DQS capture delay of a data-eye scan); the answer is status 0, no payload.
Bit 30 marks a program of a data-eye scan: a DQ capture outside the die's
window (tDQSQ, tQH) is what the scan measures, so it is not reported.
"""

from __future__ import annotations

import os
import socket
import struct

import cocotb

from nandlab.rtlsim.ctrl_bench import CtrlBench
from nandlab.rtlsim.frames import REG_WRITE, SCAN, read_frame, reply

SOCKET_ENV = "NANDLAB_RTL_SOCKET"
CAPTURE_WINDOW = frozenset({"tDQSQ", "tQH"})
REG_FRAME = struct.Struct("<II")


@cocotb.test()
async def serve(dut) -> None:
    """Run programs from the host until it sends an empty frame."""
    bench = CtrlBench(dut, strict=False)
    await bench.reset()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(os.environ[SOCKET_ENV])
    seen = 0
    try:
        while True:
            flags, words = read_frame(sock)
            if flags & REG_WRITE:
                offset, value = REG_FRAME.unpack(words)
                await bench.csr.write_dword(offset, value)
                reply(sock)
                continue
            if not words:
                break
            result = await bench.run_words_unchecked(words)
            violations = bench.pins.violations[seen:]
            seen = len(bench.pins.violations)
            if flags & SCAN:
                violations = [v for v in violations if v.param not in CAPTURE_WINDOW]
            if violations:
                text = "; ".join(str(v) for v in violations[:5])
                reply(sock, error=f"ONFI timing violation: {text}")
            else:
                reply(sock, result)
    finally:
        sock.close()
