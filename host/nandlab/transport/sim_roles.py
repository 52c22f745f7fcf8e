"""The roles a sim bench declares besides its clock, oven and wear: its power monitor (the
dies' own current log) and its fault injector."""

from __future__ import annotations

from typing import Any

from nandlab.errors import RangeError, TransportError


class VirtualSupply:
    """The power monitor of a sim bench: the virtual dies' own current log, summed over dies."""

    def __init__(self, dies: int, vcc_V: float) -> None:
        self._dies = dies
        self._vcc_V = vcc_V

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "virtual",
            "model": "virtual die current log",
            "rail": f"VCC {self._vcc_V:g} V, {self._dies} dies summed",
        }


class SimFaults:
    """The fault injector of a sim bench."""

    faults = ("link_lost",)

    def __init__(self, url: str) -> None:
        self._url = url
        self._countdown: int | None = None

    def inject(self, fault: str, *, after_programs: int = 0) -> None:
        if fault not in self.faults:
            raise RangeError(f"fault '{fault}' is unknown: a sim bench injects {self.faults}")
        if after_programs < 0:
            raise RangeError(f"after_programs {after_programs} must be >= 0")
        self._countdown = after_programs

    def before_program(self) -> None:
        """Raise the armed fault when its program comes."""
        if self._countdown is None:
            return
        if self._countdown > 0:
            self._countdown -= 1
            return
        self._countdown = None
        raise TransportError(f"bench {self._url}: link lost (injected fault)")
