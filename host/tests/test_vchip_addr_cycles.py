"""VirtualDie.addr_cycles (a whole ADDR instruction at once) answers exactly as address
cycles one byte at a time: same data out, status, clock and supply current."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from nandlab.onfi_spec.opcodes import Cmd
from nandlab.profiles import load_profile
from nandlab.vchip.die import VirtualDie

MS = 1_000_000_000

Step = tuple[str, object]


def _bus_script(die: VirtualDie) -> list[Step]:
    """Command, address (split at odd places too), data in / out and waits: identification,
    features, program (address split across two instructions), change write column (also
    after a status read that closed the 80h sequence), read, status enhanced, erase, and
    address bytes with no open sequence."""
    g = die.profile.geometry
    page = g.page_bytes + g.spare_bytes
    data = np.random.default_rng(5).integers(0, 256, page, dtype=np.uint8).tobytes()

    def addr(block: int, wl: int, col: int = 0) -> bytes:
        row = block << g.page_address_bits | wl
        return col.to_bytes(g.column_cycles, "little") + row.to_bytes(g.row_cycles, "little")

    a, a2 = addr(3, 1), addr(3, 2)
    cut = g.column_cycles + 1
    return [
        ("cmd", Cmd.READ_ID), ("addr", b"\x20\x00\x00"), ("read", 6),
        ("cmd", Cmd.READ_PARAMETER_PAGE), ("addr", b"\x00"), ("wait", None), ("read", 64),
        ("cmd", Cmd.SET_FEATURES), ("addr", b"\x01"), ("write", b"\x01\0\0\0"), ("wait", None),
        ("cmd", Cmd.ERASE), ("addr", a[g.column_cycles:]), ("cmd", Cmd.ERASE_CONFIRM),
        ("wait", None),
        ("cmd", Cmd.PROGRAM), ("addr", a[:cut]), ("addr", a[cut:]), ("write", data[:100]),
        ("cmd", Cmd.CHANGE_WRITE_COLUMN), ("addr", (100).to_bytes(g.column_cycles, "little")),
        ("write", data[100:]), ("cmd", Cmd.PROGRAM_CONFIRM), ("wait", None),
        ("cmd", Cmd.READ_STATUS), ("read", 1),
        # status between a program's address and its data: 85h + column then continues
        # the page the 80h address bound
        ("cmd", Cmd.PROGRAM), ("addr", a2), ("cmd", Cmd.READ_STATUS), ("read", 1),
        ("cmd", Cmd.CHANGE_WRITE_COLUMN), ("addr", bytes(g.column_cycles)), ("write", data),
        ("cmd", Cmd.PROGRAM_CONFIRM), ("wait", None), ("cmd", Cmd.READ_STATUS), ("read", 1),
        ("cmd", Cmd.READ), ("addr", a2), ("cmd", Cmd.READ_CONFIRM), ("wait", None),
        ("read", 32),
        ("cmd", Cmd.READ_STATUS_ENHANCED), ("addr", a[g.column_cycles:]), ("read", 1),
        ("cmd", Cmd.READ), ("addr", a), ("cmd", Cmd.READ_CONFIRM), ("read", 8),
        ("wait", None), ("read", page),
        ("cmd", Cmd.CHANGE_READ_COLUMN), ("addr", (7).to_bytes(g.column_cycles, "little")),
        ("cmd", Cmd.CHANGE_READ_COLUMN_CONFIRM), ("read", 16),
        ("addr", b"\x12\x34"), ("read", 4),
    ]


def _run(die: VirtualDie, script: list[Step], addr: Callable[[VirtualDie, bytes], None]) -> list:
    """Per step (what it returned, the clock after it), then the supply current trace."""
    out: list = []
    for kind, arg in script:
        got: object = None
        if kind == "cmd":
            die.cmd(arg)  # type: ignore[arg-type]
        elif kind == "addr":
            addr(die, arg)  # type: ignore[arg-type]
        elif kind == "write":
            die.write(arg)  # type: ignore[arg-type]
        elif kind == "read":
            got = die.read(arg)  # type: ignore[arg-type]
        else:
            got = die.wait_ready(MS)
        out.append((got, die.now_ns))
    out.append(die.current_trace(0, die.now_ns, 1000).tolist())
    return out


def _per_byte(die: VirtualDie, data: bytes) -> None:
    for b in data:
        die.addr(b)


@pytest.mark.parametrize("profile", ["mlc-64l", "slc-search"])
def test_addr_cycles_equal_byte_by_byte(profile: str) -> None:
    p = load_profile(profile)
    one, whole = VirtualDie(p, seed=2), VirtualDie(p, seed=2)
    script = _bus_script(one)
    by_byte = _run(one, script, _per_byte)
    at_once = _run(whole, script, VirtualDie.addr_cycles)
    assert at_once == by_byte
    # the script did program and read back the page (not an all-FFh / empty run)
    g = p.geometry
    page = by_byte[script.index(("read", g.page_bytes + g.spare_bytes))][0]
    assert page.count(0xFF) < len(page) // 2
