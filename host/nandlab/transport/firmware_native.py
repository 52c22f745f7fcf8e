"""The firmware built for the build machine, its sequencer bridged to a transport.

`firmware/` builds `libnandlab_fw_bridge.so` (`make -C firmware host-lib`): the
command server and loops of the board CPU, unchanged, over a HAL whose
register file and shared RAM live in the library and whose sequencer hands
each op program to this module, which runs it on a host transport (`sim://`,
`rtl://`). So the firmware's own loops drive the same seeded virtual die that
host-driven loops drive, and their rows can be compared one for one.

`FirmwareBoard` wraps a transport as a bench whose roles include `firmware`
(`nandlab.firmware.loops.MailboxLoops`): op programs the host runs go straight
to the wrapped transport, loops go through the mailbox to the firmware.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from nandlab.errors import TransportError
from nandlab.firmware.loops import MailboxLoops
from nandlab.firmware.mailbox import Layout, Mailbox
from nandlab.ops import EndRecord, Program, Results, decode_results
from nandlab.profiles import Profile
from nandlab.transport.base import Transport
from nandlab.transport.roles import Roles

LIB_NAME = "libnandlab_fw_bridge.so"

_RUN = ctypes.CFUNCTYPE(
    ctypes.c_uint32,
    ctypes.POINTER(ctypes.c_uint32),
    ctypes.c_uint32,
    ctypes.POINTER(ctypes.c_uint32),
    ctypes.c_uint32,
    ctypes.POINTER(ctypes.c_uint64),
)


class _FakeCfg(ctypes.Structure):
    """hal_host_reset's argument (struct fake_cfg); the bridge ignores the fake die's part."""

    _fields_ = [(name, ctypes.c_uint32) for name in (
        "blocks", "pages", "page_bytes", "flips_per_kpe", "best_offset", "flips_per_step",
        "endurance", "offset_feature", "flips_per_kread")]


class NativeFirmware:
    """One instance of the bridge library: registers, shared RAM and the CPU's poll.

    The library holds one firmware (static state), so a process opens it once:
    opening it again reboots that firmware onto the new transport.
    """

    def __init__(self, lib_path: Path, transport: Transport) -> None:
        if not lib_path.is_file():
            raise TransportError(f"no firmware library at {lib_path}: build it with "
                                 "make -C firmware host-lib")
        self.lib = ctypes.CDLL(str(lib_path))
        self.lib.hal_host_regs.restype = ctypes.POINTER(ctypes.c_uint32)
        self.lib.hal_shared.restype = ctypes.POINTER(ctypes.c_uint32)
        self.lib.hal_shared_words.restype = ctypes.c_uint32
        self.transport = transport
        self._failure: BaseException | None = None
        self._callback = _RUN(self._run)  # kept alive as long as the library may call it
        self.lib.seq_bridge_attach(self._callback)
        self.lib.hal_host_reset(ctypes.byref(_FakeCfg()))
        self.regs = self.lib.hal_host_regs()
        self.shared = self.lib.hal_shared()
        self.shared_words = int(self.lib.hal_shared_words())
        self.lib.fw_init()

    def _run(self, prog: Any, n: int, out: Any, cap: int, elapsed: Any) -> int:
        """The sequencer: one op program on the transport, its result stream back."""
        try:
            program = Program.decode(bytes(ctypes.string_at(prog, 4 * n)))
            stream = self.transport.run(program).encode()
        except Exception as exc:  # a callback cannot raise into C: the host gets it later
            self._failure = exc
            return 0
        words = len(stream) // 4
        if words > cap:
            self._failure = TransportError(f"a result stream of {words} words outgrew the "
                                           f"bridge's {cap}")
            return 0
        ctypes.memmove(out, stream, 4 * words)
        ends = [r for r in decode_results(stream) if isinstance(r, EndRecord)]
        elapsed[0] = ends[-1].elapsed_ns if ends else 0
        return words

    def step(self) -> None:
        """One poll of the firmware's mailbox (a command runs to completion inside it)."""
        self.lib.fw_poll()
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise TransportError(f"the bridged sequencer failed: {failure}") from failure

    def read32(self, offset: int) -> int:
        return int(self.regs[offset // 4])

    def write32(self, offset: int, value: int) -> None:
        self.regs[offset // 4] = value

    def read_words(self, offset: int, n: int) -> list[int]:
        self._check(offset, n)
        return [int(self.shared[offset // 4 + i]) for i in range(n)]

    def write_words(self, offset: int, words: Sequence[int]) -> None:
        self._check(offset, len(words))
        for i, w in enumerate(words):
            self.shared[offset // 4 + i] = w

    def _check(self, offset: int, n: int) -> None:
        if offset % 4 or offset // 4 + n > self.shared_words:
            raise TransportError(f"shared RAM has {self.shared_words} words: "
                                 f"{n} at byte {offset} do not fit")


class FirmwareBoard(Transport):
    """A transport plus the firmware: roles of the wrapped bench and `firmware`."""

    def __init__(self, inner: Transport, lib_path: Path, layout: Layout | None = None) -> None:
        self.inner = inner
        self.native = NativeFirmware(lib_path, inner)
        self.mailbox = Mailbox(self.native, self.native, self.native.step, layout or Layout())
        self._roles = replace(inner.roles, firmware=MailboxLoops(self.mailbox))
        self.url = inner.url

    @property
    def targets(self) -> int:
        return self.inner.targets

    @property
    def profile(self) -> Profile | None:
        return self.inner.profile

    @property
    def roles(self) -> Roles:
        return self._roles

    def run(self, program: Program) -> Results:
        return self.inner.run(program)

    def supports(self, capability: str) -> bool:
        return self.inner.supports(capability)

    def describe(self) -> dict[str, Any]:
        return {**self.inner.describe(), "firmware": self.mailbox.version()}

    def close(self) -> None:
        self.inner.close()
