"""Datasheet vendor operations a profile's `vendor` section declares: SLC / MLC mode, soft-bit read.

The command bytes come from the profile (contract 3), never from here. The
SLC mode of a vendor part is sticky: an SLC operation enters it and leaves it
within its own program, and a native operation on a part that has the mode
first leaves it, in case an aborted program left the die in it.
"""

from __future__ import annotations

from nandlab.errors import UnsupportedCapability
from nandlab.onfi_spec.sdr_timing import SdrTiming
from nandlab.ops import Program
from nandlab.profiles.model import SlcMode, SoftBitRead
from nandlab.sequences.core import DataOut, page_read


def in_mode(mode: SlcMode, body: Program) -> Program:
    """`body` between the mode's enter and exit commands (SLC mode, or a TLC die's MLC mode)."""
    return Program().cmd(mode.enter_cmd) + body + Program().cmd(mode.exit_cmd)


def array_mode(slc_mode: SlcMode | None, slc: bool, body: Program) -> Program:
    """`body` as an SLC operation (slc=True) or a native one on a part with `slc_mode` (or None)."""
    if slc:
        if slc_mode is None:
            raise UnsupportedCapability("an SLC operation needs the profile's vendor.slc_mode")
        return in_mode(slc_mode, body)
    if slc_mode is None:
        return body
    return Program().cmd(slc_mode.exit_cmd) + body


def soft_bit_read(
    t: SdrTiming, sbr: SoftBitRead, cycles: bytes, out: DataOut, timeout_ns: int
) -> Program:
    """Soft-bit read: 00h + address + the vendor confirm; 1 bits where both sensings agree."""
    return page_read(t, cycles, out, timeout_ns, confirm=sbr.confirm_cmd)
