"""Data cycles of a virtual die: data in (tWC a byte) and data out (tRC a byte).

`DataPath` moves whole runs of bytes: data in goes to the selected plane's cache
register, a test-mode latch, SET FEATURES' parameters or a vendor command; data
out comes from the status register, a fixed stream (ID, parameter page,
features), the cache register or a vendor command's output. Bytes clocked out
before R/B# returns read FFh; data in while busy is dropped.
"""

from __future__ import annotations

from nandlab.onfi_spec.opcodes import Cmd
from nandlab.vchip.die_commands import BusRegisters, CommandDecoder, Out
from nandlab.vchip.features import FEATURE_BYTES
from nandlab.vchip.parts import DiePart, DieParts
from nandlab.vchip.vendor_cmds import VendorCommands


class DataPath(DiePart):
    """Data in and data out of one die over its `BusRegisters`."""

    def __init__(
        self,
        parts: DieParts,
        regs: BusRegisters,
        commands: CommandDecoder,
        search: VendorCommands,
    ) -> None:
        super().__init__(parts)
        self._regs = regs
        self._commands = commands
        self._search = search

    def write(self, data: bytes) -> None:
        """Data in cycles (tWC per byte)."""
        clock = self._clock
        busy = clock.now_ns < clock.rdy_until
        lead, step = self._features.data_burst(clock.timing.tWC, out=False) if data else (0, 0)
        clock.bus(-(-(lead + step * len(data)) // 1000))
        if busy or not data:
            return
        regs = self._regs
        self._commands.open_program()
        if regs.din_features is not None:
            regs.feature_bytes += data[: FEATURE_BYTES - len(regs.feature_bytes)]
            if len(regs.feature_bytes) == FEATURE_BYTES:
                self._commands.set_feature(regs.din_features, bytes(regs.feature_bytes))
        elif regs.din_latch is not None:
            self._buffer.planes[regs.plane].load(regs.din_latch, regs.column, data)
            regs.column += len(data)
        elif regs.din_page:
            self._buffer.planes[regs.plane].write(regs.column, data)
            regs.column += len(data)
        elif regs.out is Out.SEARCH:
            self._search.write(data)

    def read(self, n: int) -> bytes:
        """Data out cycles (tRC per byte)."""
        if n <= 0:
            return b""
        regs = self._regs
        seq = regs.seq
        if seq is not None and seq.opcode == Cmd.READ and not seq.addr:
            regs.seq = None  # 00h without address: back to data output after status
            if regs.out is Out.STATUS:
                regs.out = regs.resume_out
        clock = self._clock
        byte_ps = self._features.byte_ps(clock.timing.tRC)
        lead, step = self._features.data_burst(clock.timing.tRC, out=True)
        # data out draws the switching current of the rate it is clocked at (cox, issue 14)
        start = clock.bus(-(-(lead + step * n) // 1000), clock.power.io_out_mA(byte_ps))
        if regs.out is Out.STATUS:
            wp, plane = regs.wp, regs.status_plane
            return bytes(clock.status(start + (lead + i * step) // 1000, wp, plane)
                         for i in range(n))
        # bytes clocked before R/B# returns read FFh
        early = min(n, max(0, -(-((clock.rdy_until - start) * 1000 - lead) // step)))
        return b"\xff" * early + self._data_out(n - early)

    def _data_out(self, n: int) -> bytes:
        if n == 0:
            return b""
        regs = self._regs
        if regs.out is Out.DATA:
            out = self._buffer.planes[regs.plane].read(regs.column, n)
            regs.column += n
            return out
        if regs.out is Out.STREAM:
            return regs.stream.take(n)
        if regs.out is Out.SEARCH:
            return self._search.read(n)
        return b"\xff" * n
