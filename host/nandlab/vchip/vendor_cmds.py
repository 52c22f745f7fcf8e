"""The vendor command engines of one die (Search-in-Memory, CoX-PM), behind one interface.

`VirtualDie` hands every command cycle to `VendorCommands.cmd` first; the
engine that claims the byte receives the address, data in and data out cycles
that follow. A profile declares at most one set of bytes per command, so at
most one engine claims a byte.
"""

from __future__ import annotations

from nandlab.vchip.array_ops import ArrayOps
from nandlab.vchip.coxpm import CoxPmEngine
from nandlab.vchip.parts import DieParts
from nandlab.vchip.search import SearchEngine


class VendorCommands:
    """Dispatch to the engine that took the last vendor command."""

    def __init__(self, parts: DieParts, ops: ArrayOps) -> None:
        self.search = SearchEngine(parts, ops)
        self.coxpm = CoxPmEngine(parts, ops)
        self._current: SearchEngine | CoxPmEngine = self.search

    def cmd(self, byte: int) -> bool:
        """A command cycle; False when no engine takes it (each engine's open sequence ends)."""
        taken = False
        for engine in (self.search, self.coxpm):
            if engine.cmd(byte) and not taken:
                self._current, taken = engine, True
        return taken

    def addr(self, byte: int) -> None:
        self._current.addr(byte)

    def write(self, data: bytes) -> None:
        self._current.write(data)

    def read(self, n: int) -> bytes:
        return self._current.read(n)

    def reset(self) -> None:
        self.search.reset()
        self.coxpm.reset()
