"""CoX-PM sequences: set_pattern and read_when_matched (single, cache and last forms).

The byte protocol and page format are in `nandlab.onfi_spec.coxpm`; the
command bytes come from the profile's `vendor.coxpm` section (contract 3).
Each function returns an op program fragment without CE, like `sequences.core`;
a read_when_matched ends with READ STATUS (the outcome is in bits 4-3); what
the host then takes depends on it, so `outcome_data` (00h, data out) is its own
program.
"""

from __future__ import annotations

from nandlab.onfi_spec.opcodes import Cmd
from nandlab.onfi_spec.sdr_timing import SdrTiming
from nandlab.ops import Program
from nandlab.profiles.coxpm_model import CoxPm
from nandlab.sequences.core import address, busy, data_in, data_out, read_status


def set_pattern(t: SdrTiming, c: CoxPm, patterns: bytes, timeout_ns: int) -> Program:
    """set_pattern with its data in (`onfi_spec.coxpm.pattern_bytes`), then READ STATUS."""
    prog = Program().cmd(c.pattern_cmd) + data_in(t, patterns) + Program().cmd(c.pattern_confirm)
    return prog + busy(t, timeout_ns) + read_status(t)


def outcome_data(t: SdrTiming, n: int) -> Program:
    """After a read_when_matched's status: 00h (back to data output), `n` bytes from column 0."""
    return Program().cmd(Cmd.READ) + data_out(t, n)


def read_when_matched(t: SdrTiming, c: CoxPm, row: bytes, timeout_ns: int) -> Program:
    """read_when_matched of the page at `row`: busy tR + decode and match, then the status."""
    prog = Program().cmd(c.match_cmd) + address(row) + Program().cmd(c.match_confirm)
    return prog + busy(t, timeout_ns) + read_status(t)


def read_when_matched_cache(
    t: SdrTiming, c: CoxPm, row: bytes, timeout_ns: int
) -> Program:
    """Cache form: sense the page at `row` while the previously sensed page is decoded and
    matched; the status (and the data out after it) are that previous page's."""
    prog = Program().cmd(c.match_cmd) + address(row) + Program().cmd(c.match_cache_confirm)
    return prog + busy(t, timeout_ns) + read_status(t)


def read_when_matched_last(t: SdrTiming, c: CoxPm, timeout_ns: int) -> Program:
    """Decode and match the last page a cache form sensed, then its status."""
    prog = Program().cmd(c.match_last_cmd) + busy(t, timeout_ns)
    return prog + read_status(t)
