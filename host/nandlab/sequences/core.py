"""The ONFI datasheet operations as op program fragments.

Each function returns the instructions of one operation with the delays ONFI
requires between them, in the SDR timing mode `t`: tWB after a command that
starts a busy period, tWHR before status / ID bytes, tADL between the last
address cycle and data in, tRR (covered by tWHR, which is longer in every SDR
mode) between ready and data out, tCCS after a column change. Fragments carry
no CE instruction, so they compose with `+`; the caller selects the target.
Instructions are frozen values, so the parts of the most frequent fragments that
depend only on the timing mode, length and timeout (all of READ STATUS, a page
read after its address, the confirm and busy of a page program or a block erase) are
built once and shared by the programs made from them.
Addresses are the address cycles as the target takes them (column cycles then
row cycles, or row cycles alone), first cycle first. WAIT_RDY timeouts are the
caller's: it knows the part's tR / tPROG / tBERS / tFEAT, and its tCCS (the
parameter page's, else ONFI's 500 ns).

Example (READ STATUS on CE 0 in SDR mode 0)::

    >>> from nandlab.onfi_spec.sdr_timing import sdr
    >>> Program().ce(0) + read_status(sdr(0))
    Program([Ce(target=0), Cmd(byte=<Cmd.READ_STATUS: 112>), Delay(ns=120), Dout(n=1)])
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from nandlab.onfi_spec.opcodes import Cmd, Feature
from nandlab.onfi_spec.sdr_timing import SdrTiming
from nandlab.ops import MAX_ADDR_BYTES, DinPattern, DoutCompare, Instruction, Program

GPIO_WP_N = 0x01
"""GPIO bit 0: the WP# level (1 = writes allowed)."""

DataIn = bytes | DinPattern
"""What a program sends: bytes from the host, or the on-board pattern generator."""
DataOut = int | DoutCompare
"""What a read takes: that many bytes to the host, or the on-board comparator."""


def address(cycles: bytes) -> Program:
    """ADDR instructions for any number of address cycles (at most 8 per instruction)."""
    return _append_address(Program(), cycles)


def _append_address(prog: Program, cycles: bytes) -> Program:
    for i in range(0, len(cycles), MAX_ADDR_BYTES):
        prog.addr(bytes(cycles[i : i + MAX_ADDR_BYTES]))
    return prog


def busy(t: SdrTiming, timeout_ns: int) -> Program:
    """tWB, then WAIT_RDY: what follows a command that starts an array operation."""
    return Program().delay(t.tWB).wait_rdy(timeout_ns)


def data_out(t: SdrTiming, out: DataOut) -> Program:
    """tRR after ready, then the data out."""
    prog = Program().delay(t.tWHR)
    return prog.append(out) if isinstance(out, DoutCompare) else prog.dout(out)


def data_in(t: SdrTiming, data: DataIn) -> Program:
    """tADL after the last address cycle, then the data in."""
    prog = Program().delay(t.tADL)
    return prog.append(data) if isinstance(data, DinPattern) else prog.din(bytes(data))


# ------------------------------------------------------------- identification


def reset(t: SdrTiming, timeout_ns: int) -> Program:
    """RESET (FFh): busy tRST; the target returns to SDR mode 0 and so does the bench."""
    return Program().cmd(Cmd.RESET) + busy(t, timeout_ns) + Program().timing(0)


def read_id(t: SdrTiming, id_address: int, n: int) -> Program:
    """READ ID (90h) at `id_address` (00h JEDEC, 20h ONFI signature): `n` bytes after tWHR."""
    return Program().cmd(Cmd.READ_ID).addr(bytes([id_address])).delay(t.tWHR).dout(n)


def read_parameter_page(t: SdrTiming, n: int, timeout_ns: int, address: int = 0x00) -> Program:
    """READ PARAMETER PAGE (ECh) at `address` (00h ONFI, 256 bytes a copy; 40h JEDEC, 512):
    busy tR, then `n` bytes."""
    prog = Program().cmd(Cmd.READ_PARAMETER_PAGE).addr(bytes([address])) + busy(t, timeout_ns)
    return prog + data_out(t, n)


def read_unique_id(t: SdrTiming, n: int, timeout_ns: int) -> Program:
    """READ UNIQUE ID (EDh, address 00h): busy tR, then `n` bytes (32 per copy)."""
    prog = Program().cmd(Cmd.READ_UNIQUE_ID).addr(b"\x00") + busy(t, timeout_ns)
    return prog + data_out(t, n)


# ------------------------------------------------------ status and features


def read_status(t: SdrTiming) -> Program:
    """READ STATUS (70h): the status byte after tWHR."""
    return Program(_read_status(t))


@lru_cache(maxsize=16)
def _read_status(t: SdrTiming) -> tuple[Instruction, ...]:
    return tuple(Program().cmd(Cmd.READ_STATUS).delay(t.tWHR).dout(1))


def read_status_enhanced(t: SdrTiming, row: bytes) -> Program:
    """READ STATUS ENHANCED (78h) of the LUN / plane of the `row` address cycles."""
    return Program().cmd(Cmd.READ_STATUS_ENHANCED) + address(row) + Program().delay(t.tWHR).dout(1)


def get_features(t: SdrTiming, feature: int, timeout_ns: int) -> Program:
    """GET FEATURES (EEh) at `feature`: busy tFEAT, then P1..P4 after tRR."""
    prog = Program().cmd(Cmd.GET_FEATURES).addr(bytes([feature])) + busy(t, timeout_ns)
    return prog + data_out(t, 4)


def set_features(t: SdrTiming, feature: int, params: bytes, timeout_ns: int) -> Program:
    """SET FEATURES (EFh) at `feature`: P1..P4 after tADL, then busy tFEAT."""
    prog = Program().cmd(Cmd.SET_FEATURES).addr(bytes([feature])) + data_in(t, params)
    return prog + busy(t, timeout_ns)


def set_timing_mode(t: SdrTiming, mode: int, timeout_ns: int) -> Program:
    """SET FEATURES 01h = SDR `mode` in the current mode `t`, then the bench follows (TIMING)."""
    prog = set_features(t, Feature.TIMING_MODE, bytes([mode, 0, 0, 0]), timeout_ns)
    return prog.timing(mode)


def write_protect(protect: bool) -> Program:
    """Drive WP# low (protect) or high (writes allowed)."""
    return Program().gpio(0 if protect else GPIO_WP_N, GPIO_WP_N)


# --------------------------------------------------------------------- read


def page_read(
    t: SdrTiming,
    cycles: bytes,
    out: DataOut,
    timeout_ns: int,
    *,
    confirm: int = Cmd.READ_CONFIRM,
) -> Program:
    """READ 00h-30h (or another `confirm`, e.g. a vendor soft-bit read): busy tR, data out."""
    prog = _append_address(Program(_READ), cycles)
    if isinstance(out, int):
        return prog.extend(_read_tail(t, out, timeout_ns, confirm))
    return prog + Program().cmd(confirm) + busy(t, timeout_ns) + data_out(t, out)


_READ = tuple(Program().cmd(Cmd.READ))
"""The READ (00h) instruction, built once: an instruction checks its fields when made."""


@lru_cache(maxsize=64)
def _read_tail(t: SdrTiming, n: int, timeout_ns: int, confirm: int) -> tuple[Instruction, ...]:
    """A page read after its address cycles: confirm, busy tR, `n` bytes out."""
    return tuple(Program().cmd(confirm) + busy(t, timeout_ns) + data_out(t, n))


def change_read_column(column: bytes, t_ccs_ns: int, n: int) -> Program:
    """CHANGE READ COLUMN (05h-E0h) to the `column` cycles: `n` bytes after tCCS."""
    return _column_change(Cmd.CHANGE_READ_COLUMN, column, t_ccs_ns, n)


def change_read_column_enhanced(cycles: bytes, t_ccs_ns: int, n: int) -> Program:
    """CHANGE READ COLUMN ENHANCED (06h-E0h): `n` bytes of the plane of the full `cycles`."""
    return _column_change(Cmd.CHANGE_READ_COLUMN_ENHANCED, cycles, t_ccs_ns, n)


def _column_change(first: int, cycles: bytes, t_ccs_ns: int, n: int) -> Program:
    prog = Program().cmd(first) + address(cycles) + Program().cmd(Cmd.CHANGE_READ_COLUMN_CONFIRM)
    return prog.delay(t_ccs_ns).dout(n)


def cache_read(t: SdrTiming, cycles: bytes, count: int, n: int, timeout_ns: int) -> Program:
    """READ CACHE SEQUENTIAL: 00h-30h, then 31h per page and 3Fh for the last, `n` bytes each.

    `count` >= 2 pages; every 31h / 3Fh is followed by busy tRCBSY and the data out.
    """
    prog = Program().cmd(Cmd.READ) + address(cycles) + Program().cmd(Cmd.READ_CONFIRM)
    prog += busy(t, timeout_ns)
    for i in range(count):
        last = i == count - 1
        prog.cmd(Cmd.READ_CACHE_END if last else Cmd.READ_CACHE_SEQUENTIAL)
        prog += busy(t, timeout_ns) + data_out(t, n)
    return prog


def multiplane_read(
    t: SdrTiming, planes: Sequence[bytes], n: int, t_ccs_ns: int, timeout_ns: int
) -> Program:
    """MULTI-PLANE READ: 00h-32h per plane, 00h-30h for the last, then each plane's data.

    Each plane's `n` bytes are selected with CHANGE READ COLUMN ENHANCED (06h-E0h).
    """
    bodies = [address(cycles) for cycles in planes]
    prog = chained(t, Cmd.READ, bodies, Cmd.READ_MULTIPLANE, Cmd.READ_CONFIRM, timeout_ns)
    for cycles in planes:
        prog += change_read_column_enhanced(cycles, t_ccs_ns, n)
    return prog


# ------------------------------------------------------------------ program


def page_program(t: SdrTiming, cycles: bytes, data: DataIn, timeout_ns: int) -> Program:
    """PROGRAM 80h-10h: data in after tADL, busy tPROG."""
    prog = _append_address(Program(_PROGRAM), cycles).delay(t.tADL)
    prog.append(data) if isinstance(data, DinPattern) else prog.din(bytes(data))
    return prog.extend(_confirm_busy(t, Cmd.PROGRAM_CONFIRM, timeout_ns))


_PROGRAM = tuple(Program().cmd(Cmd.PROGRAM))
_ERASE = tuple(Program().cmd(Cmd.ERASE))
"""The PROGRAM (80h) and ERASE (60h) instructions, built once (see `_READ`)."""


@lru_cache(maxsize=64)
def _confirm_busy(t: SdrTiming, confirm: int, timeout_ns: int) -> tuple[Instruction, ...]:
    """A confirm command, then busy: the end of a page program or a block erase."""
    return tuple(Program().cmd(confirm) + busy(t, timeout_ns))


def cache_program(t: SdrTiming, pages: Sequence[tuple[bytes, DataIn]], timeout_ns: int) -> Program:
    """CACHE PROGRAM: 80h-15h for every page but the last, 80h-10h for the last."""
    return program_pages(t, pages, Cmd.PROGRAM_CACHE, timeout_ns)


def multiplane_program(
    t: SdrTiming, planes: Sequence[tuple[bytes, DataIn]], timeout_ns: int
) -> Program:
    """MULTI-PLANE PROGRAM: 80h-11h per plane, 80h-10h for the last."""
    return program_pages(t, planes, Cmd.PROGRAM_MULTIPLANE, timeout_ns)


def program_pages(
    t: SdrTiming, pages: Sequence[tuple[bytes, DataIn]], between: int, timeout_ns: int
) -> Program:
    """80h + address + data per page, confirmed by `between` (10h for the last), busy after each."""
    bodies = [address(cycles) + data_in(t, data) for cycles, data in pages]
    return chained(t, Cmd.PROGRAM, bodies, between, Cmd.PROGRAM_CONFIRM, timeout_ns)


def copyback(
    t: SdrTiming, source: bytes, destination: bytes, read_timeout_ns: int, program_timeout_ns: int
) -> Program:
    """COPYBACK: 00h-35h reads `source` into the page register, 85h + tADL + 10h programs it."""
    prog = Program().cmd(Cmd.READ) + address(source) + Program().cmd(Cmd.COPYBACK_READ)
    prog += busy(t, read_timeout_ns)
    prog += Program().cmd(Cmd.CHANGE_WRITE_COLUMN) + address(destination)
    prog.delay(t.tADL).cmd(Cmd.PROGRAM_CONFIRM)
    return prog + busy(t, program_timeout_ns)


# -------------------------------------------------------------------- erase


def erase(t: SdrTiming, row: bytes, timeout_ns: int) -> Program:
    """ERASE 60h-D0h of the block of the `row` cycles: busy tBERS."""
    prog = _append_address(Program(_ERASE), row)
    return prog.extend(_confirm_busy(t, Cmd.ERASE_CONFIRM, timeout_ns))


def multiplane_erase(t: SdrTiming, rows: Sequence[bytes], timeout_ns: int) -> Program:
    """MULTI-PLANE ERASE: 60h-D1h per plane, 60h-D0h for the last."""
    bodies = [address(row) for row in rows]
    return chained(t, Cmd.ERASE, bodies, Cmd.ERASE_MULTIPLANE, Cmd.ERASE_CONFIRM, timeout_ns)


def chained(
    t: SdrTiming, first: int, bodies: Sequence[Program], between: int, last: int, timeout_ns: int
) -> Program:
    """Per body: `first`, the body, a confirm (`last` for the last body, else `between`), busy.

    The shape of every multi-plane / cache operation (ONFI: all but the last
    command of a chain end in their "more follows" confirm).
    """
    prog = Program()
    for i, body in enumerate(bodies):
        confirm = last if i == len(bodies) - 1 else between
        prog += Program().cmd(first) + body + Program().cmd(confirm) + busy(t, timeout_ns)
    return prog
