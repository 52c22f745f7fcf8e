"""The frames between the rtl:// transports and their cocotb servers (nandlab.rtlsim.frames),
both sides over a real socket pair: flags, answers, errors, the end frame, a closed link."""

from __future__ import annotations

import socket
import threading

import pytest

from nandlab.rtlsim import frames


def _serve_one(sock: socket.socket, seen: list[tuple[int, bytes]], error: str | None) -> None:
    flags, payload = frames.read_frame(sock)
    seen.append((flags, payload))
    frames.reply(sock, payload[::-1], error=error)


@pytest.mark.parametrize("flags", [0, frames.SCAN, frames.REG_WRITE])
def test_a_request_gets_its_answer_and_the_server_its_flags(flags: int) -> None:
    host, server = socket.socketpair()
    with host, server:
        seen: list[tuple[int, bytes]] = []
        t = threading.Thread(target=_serve_one, args=(server, seen, None))
        t.start()
        assert frames.request(host, b"\x01\x02\x03", flags) == b"\x03\x02\x01"
        t.join()
        assert seen == [(flags, b"\x01\x02\x03")]


def test_a_failed_request_raises_the_server_text() -> None:
    host, server = socket.socketpair()
    with host, server:
        t = threading.Thread(target=_serve_one, args=(server, [], "ONFI timing violation: tWB"))
        t.start()
        with pytest.raises(frames.FrameError, match="ONFI timing violation: tWB"):
            frames.request(host, b"x")
        t.join()


def test_the_end_frame_is_empty_and_a_closed_link_is_a_connection_error() -> None:
    host, server = socket.socketpair()
    with host, server:
        host.sendall(frames.END)
        assert frames.read_frame(server) == (0, b"")
        server.close()
        with pytest.raises(ConnectionError):
            frames.request(host, b"x")
