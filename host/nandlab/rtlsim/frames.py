"""The frames between an rtl:// transport and its cocotb server, both sides.

A frame is a little-endian u32 header and a payload. The header's low 30 bits are
the payload length; rtl:// uses the top two as flags (`REG_WRITE`, `SCAN`). An empty
frame ends the simulation. Every request is answered by one frame whose first byte is
`OK` (the rest is the answer) or `FAIL` (the rest is the error text).

Standard library only: the transports import it without loading the simulation.
"""

from __future__ import annotations

import socket
import struct

HEADER = struct.Struct("<I")
REG_WRITE = 1 << 31
"""Header flag of a register-write frame (rtl://)."""
SCAN = 1 << 30
"""Header flag of a data-eye scan program: captures outside the die's window are its measure."""
LENGTH_MASK = SCAN - 1
OK, FAIL = 0, 1
END = HEADER.pack(0)
"""The empty frame: the server stops and the simulation ends."""


class FrameError(Exception):
    """The server answered FAIL; the message is its text."""


def read_exact(sock: socket.socket, n: int) -> bytes:
    """`n` bytes from `sock`; ConnectionError if the other side closed it first."""
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("the other side of the simulation socket closed it")
        buf += chunk
    return bytes(buf)


def read_frame(sock: socket.socket) -> tuple[int, bytes]:
    """(flags, payload) of the next frame."""
    header = HEADER.unpack(read_exact(sock, HEADER.size))[0]
    return header & ~LENGTH_MASK, read_exact(sock, header & LENGTH_MASK)


def write_frame(sock: socket.socket, payload: bytes, flags: int = 0) -> None:
    sock.sendall(HEADER.pack(flags | len(payload)) + payload)


def reply(sock: socket.socket, answer: bytes = b"", error: str | None = None) -> None:
    """Answer a request: OK + `answer`, or FAIL + `error`."""
    write_frame(sock, bytes([OK]) + answer if error is None else bytes([FAIL]) + error.encode())


def request(sock: socket.socket, payload: bytes, flags: int = 0) -> bytes:
    """Send one request, return the answer; FrameError on FAIL, OSError if the link breaks."""
    write_frame(sock, payload, flags)
    _, answer = read_frame(sock)
    if answer[0] != OK:
        raise FrameError(answer[1:].decode(errors="replace"))
    return answer[1:]
