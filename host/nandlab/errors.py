"""Typed errors shared by every layer.

Each error carries what a person needs to act: what was wrong and what is
allowed. `UsageError` subclasses are mistakes in what the user asked for (the
CLI exits with code 2 for them); the others are faults of the bench or chip
(exit code 1). `Interrupted` is no error but a signal that stopped a command.
"""

from __future__ import annotations

import signal


class NandlabError(Exception):
    """Base of every nandlab error."""


class UsageError(NandlabError):
    """The request itself is wrong (bad URL, profile, address, value)."""


class ProfileError(UsageError):
    """A chip profile is unknown or does not validate."""


class BenchURLError(UsageError):
    """A bench URL is malformed or names an unknown transport."""


class AddressError(UsageError):
    """A block / page / plane / column is outside the die's geometry."""


class RangeError(UsageError):
    """A value (read offset, timing mode, feature) is outside its allowed range."""


class RefusedOperation(UsageError):
    """A risky operation was refused because it was not explicitly asked for."""


class InUseError(UsageError):
    """A chip or run folder is held by another command (its lock names who holds it)."""


class ReadOnlyDataError(RefusedOperation):
    """A command that changes a chip or a run was given a data folder it cannot write."""


class DamagedFileError(UsageError):
    """A stored file (die image, checkpoint, run file, ledger) is missing, truncated or
    fails its checksum; the message names the file and what to do. Never silently replaced."""


class UnsupportedCapability(NandlabError):
    """The chip profile or the transport lacks an operation that was requested."""


class UncorrectableData(NandlabError):
    """Data read from the chip failed its ECC after every read-retry; nothing was returned."""


class OpProgramError(NandlabError):
    """An op program or result stream is malformed."""


class NandTimeout(NandlabError):
    """R/B# did not return high within the timeout."""


class ParameterPageCRCError(NandlabError):
    """Every copy of the ONFI parameter page failed its CRC and no majority could be formed."""


class ChipStatusFail(NandlabError):
    """The chip reported FAIL in its status after an operation."""


class TransportError(NandlabError):
    """The bench could not carry out a program (link lost, device gone)."""


class Interrupted(KeyboardInterrupt):
    """A signal (SIGINT from Ctrl-C, or SIGTERM) stopped the command; `signum` names it.

    A KeyboardInterrupt, not an Exception: `except Exception` in library code lets it
    through, and clean-up written for Ctrl-C runs for SIGTERM too. The CLI exits with
    128 + signum (130, 143), the status a shell reports for a death by that signal.
    """

    def __init__(self, signum: int, message: str | None = None) -> None:
        super().__init__(message or f"interrupted by {signal.Signals(signum).name}")
        self.signum = signum
