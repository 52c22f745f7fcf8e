"""The host's side of the board CPU's mailbox (firmware/, docs/firmware.md).

- `protocol`: command codes, firmware error codes, permits, loop descriptors
  and ring records, the numbers of firmware/src/fw.h.
- `mailbox`: `Mailbox`, which posts commands through the generated register
  map (`nandlab.regs`) and reads results back from the result ring.
"""

from nandlab.firmware.mailbox import Mailbox, RegisterIO, SharedRAM
from nandlab.firmware.protocol import (
    Command,
    FirmwareError,
    FirmwareLimit,
    FirmwareRefused,
    FwError,
    LoopDescriptor,
    LoopKind,
    Monitor,
    Permit,
    State,
)

__all__ = [
    "Command",
    "FirmwareError",
    "FirmwareLimit",
    "FirmwareRefused",
    "FwError",
    "LoopDescriptor",
    "LoopKind",
    "Mailbox",
    "Monitor",
    "Permit",
    "RegisterIO",
    "SharedRAM",
    "State",
]
