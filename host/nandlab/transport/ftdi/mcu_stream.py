"""Compiles an op program into FT2232H MCU host bus command bytes.

The bytes (FTDI AN_108, MCU host bus emulation): WRITE_EXTENDED 93h hi lo d
for the first cycle of a CMD / ADDR / DIN (A[15:8] = CLE / ALE bits from the
board file), WRITE_SHORT 92h lo d for the rest of a run, READ_EXTENDED 91h
hi lo then READ_SHORT 90h lo per DOUT byte, SEND_IMMEDIATE 87h as a timed
no-op for DELAYs and turnaround gaps, GET_BITS_HIGH 83h to sample R/B#
(I/O1) and WAIT_ON_HIGH 88h to wait for it inside the stream.

WP# is on I/O0, set by SET_BITS_HIGH 82h between bus cycles and followed by
tWW of no-ops, so WE# never falls within tWW of a WP# change (on an A[15:8]
bit it would change in the address phase of the very cycle whose WR# pulse
follows ~50 ns later). The level is the transport's state across programs,
like the timing mode: `wp_setup()` drives it after every mode entry (the
FT2232H releases I/O0 there, and the board's pull-down protects the chip).

A WAIT_RDY becomes: a tWB gap, K back-to-back R/B# samples (83h, one every
`rb_sample_ns`), then 88h. The samples measure the busy time in the stream
(resolution one sample period); K covers 1.25x the longest busy time the chip
declares for the confirm command (ONFI's tDBSY / tFEAT for the short ones),
capped by the board's `rb_max_samples`
(8192 x 100 ns = 819 µs: reads and programs; an erase outlasts it and its
busy time is then a lower bound plus host time). 88h guarantees the stream
goes on only once R/B# is high, whatever the samples saw. Time in the stream
costs command bytes (a sample or a no-op per ~100 ns) except 88h's wait, so
with `sample_busy=False` (URL busy=wait) K is 0: the chip waits on R/B# for
free and the busy time is not measured.

The controller owns the bus turnarounds the chip layer does not write as
DELAYs: tRHW (data out to a write cycle), tWHR (command / address to data
out) and tADL (address to data in) are padded with no-ops when the program's
own DELAYs are shorter. Time estimates use the board's `nop_ns` and
`rb_sample_ns`, so the gaps are as long as the board's calibration says.

The result is a list of `Step`s (bytes to send + how many reply bytes they
produce + what those replies mean), which `McuRunner` packs into USB round
trips.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from nandlab import ops
from nandlab.boards.model import FtdiController
from nandlab.onfi_spec.reset_timing import T_RST_US
from nandlab.onfi_spec.sdr_timing import SdrTiming, sdr
from nandlab.profiles import Profile

READ_SHORT, READ_EXTENDED, WRITE_SHORT, WRITE_EXTENDED = 0x90, 0x91, 0x92, 0x93
SET_BITS_HIGH, GET_BITS_HIGH, SEND_IMMEDIATE, WAIT_ON_HIGH = 0x82, 0x83, 0x87, 0x88
CLK_DIV5_OFF = 0x8A
IO0 = 0x01  # SET_BITS_HIGH bit of I/O0, the WP# pin
GPIO_WP_N = 0x01
LONG_DELAY_NS = 20_000
"""DELAYs longer than this end the round trip and wait on the host instead of in-stream."""


@dataclass
class Step:
    """Command bytes for one instruction (or part of one) and what their replies are.

    kind: "bus" (no reply), "data" (DOUT / DOUT_CMP bytes), "busy" (R/B#
    samples then a wait), "host" (run on the host between round trips:
    long DELAY, MARK, POWER), "error" (the program stops here with `code`).
    """

    index: int
    kind: str
    ins: ops.Instruction
    cmd: bytes = b""
    reply: int = 0
    busy_gap_ns: float = 0.0
    busy_period_ns: float = 0.0
    est_ns: float = 0.0
    code: ops.ErrorCode | None = None


@dataclass
class _State:
    addr_hi: int | None = None
    last: str = ""  # "cmd", "addr", "din", "dout" of the last bus cycle
    last_cmd: int | None = None
    gap_ns: float = 0.0  # time spent since the last bus cycle (DELAYs, no-ops)
    mode: int = 0
    selected: int | None = None
    steps: list[Step] = field(default_factory=list)


SHORT_BUSY_US = {
    0x32: 1.0, 0x11: 1.0, 0xD1: 1.0,  # tDBSY: ONFI's maximum after a multi-plane confirm
    0xEF: 1.0, 0xEE: 1.0,  # tFEAT: ONFI's maximum after SET / GET FEATURES
    0xEC: 25.0, 0xED: 25.0,  # parameter page / unique ID, asked before the page is known
    0xFF: T_RST_US["idle"],  # tRST: the chip layer resets an idle target
}
"""Busy periods planned from ONFI's fixed figures, not from the chip's declared maxima (us)."""
BUSY_WINDOW_MARGIN = 1.25
"""R/B# samples cover this x the declared maximum: a part slower than it says is still measured."""


def expected_busy_ns(confirm: int | None, timeout_ns: int) -> float:
    """The busy time to plan R/B# samples for after confirm command `confirm` (ns).

    Only what the chip or ONFI says: the short busy periods from ONFI's figures, the
    array operations from the chip's declared maximum, which the chip layer put into the
    WAIT_RDY timeout (`ops.WAIT_TIMEOUT_MARGIN` x the parameter page's tR / tPROG / tBERS).
    """
    if confirm in SHORT_BUSY_US:
        return 1000.0 * SHORT_BUSY_US[confirm]
    return timeout_ns / ops.WAIT_TIMEOUT_MARGIN


class McuCompiler:
    """Turns op programs into MCU host bus `Step`s for one board and profile."""

    def __init__(self, ctrl: FtdiController, profile: Profile | None, targets: int,
                 sample_busy: bool = True) -> None:
        self.ctrl = ctrl
        self.sample_busy = sample_busy
        self.profile = profile
        self.targets = targets
        self.wiring = ctrl.mcu
        self.mode = 0
        self.wp_n = True  # writes allowed, as on the other benches; wp_setup() drives it

    def _hi(self, cle: bool = False, ale: bool = False) -> int:
        w = self.wiring
        return (w.cle if cle else 0) | (w.ale if ale else 0)

    def wp_setup(self) -> bytes:
        """Drive WP# (I/O0, I/O1 left an input for R/B#) at the current level, then hold
        it tWW before any WE# fall may follow."""
        return bytes((SET_BITS_HIGH, IO0 if self.wp_n else 0, IO0)) + self._nops(
            sdr(self.mode).tWW)

    def _nops(self, ns: float) -> bytes:
        return bytes((SEND_IMMEDIATE,)) * max(0, math.ceil(ns / self.ctrl.nop_ns))

    def _pad(self, st: _State, need_ns: float) -> bytes:
        missing = need_ns - st.gap_ns
        if missing <= 0:
            return b""
        st.gap_ns = need_ns
        return self._nops(missing)

    def compile(self, program: list[ops.Instruction]) -> list[Step]:
        st = _State(mode=self.mode)
        for index, ins in enumerate(program):
            step = self._one(st, index, ins)
            st.steps.append(step)
            if step.kind == "error":
                break
        self.mode = st.mode
        return st.steps

    def _timing(self, st: _State) -> SdrTiming:
        return sdr(st.mode)

    def _one(self, st: _State, index: int, ins: ops.Instruction) -> Step:
        s = self._timing(st)
        if isinstance(ins, ops.Ce):
            if ins.target >= self.targets:
                return Step(index, "error", ins, code=ops.ErrorCode.NO_TARGET)
            st.selected = ins.target
            return Step(index, "bus", ins)
        if isinstance(ins, ops.Delay):
            if ins.ns > LONG_DELAY_NS:
                st.gap_ns += ins.ns
                return Step(index, "host", ins, est_ns=ins.ns)
            st.gap_ns += ins.ns
            return Step(index, "bus", ins, cmd=self._nops(ins.ns), est_ns=ins.ns)
        if isinstance(ins, (ops.Mark, ops.Power)):
            return Step(index, "host", ins)
        if isinstance(ins, ops.Timing):
            if ins.interface != ops.Interface.SDR or ins.mode > ops.MAX_SDR_MODE:
                return Step(index, "error", ins, code=ops.ErrorCode.BAD_ARG)
            st.mode = ins.mode
            return Step(index, "bus", ins)
        if isinstance(ins, ops.Gpio):
            if ins.mask & ~GPIO_WP_N:
                return Step(index, "error", ins, code=ops.ErrorCode.BAD_ARG)
            if not ins.mask & GPIO_WP_N:
                return Step(index, "bus", ins)
            # driven even when the level looks unchanged: a program that stopped early may
            # never have sent a GPIO the compiler already counted
            self.wp_n = bool(ins.value & GPIO_WP_N)
            st.gap_ns += s.tWW
            return Step(index, "bus", ins, cmd=self.wp_setup(), est_ns=s.tWW)
        if st.selected is None:
            return Step(index, "error", ins, code=ops.ErrorCode.NO_TARGET)
        if isinstance(ins, ops.Cmd):
            return self._writes(st, index, ins, bytes((ins.byte,)), "cmd", s)
        if isinstance(ins, ops.Addr):
            return self._writes(st, index, ins, ins.data, "addr", s)
        if isinstance(ins, ops.Din):
            return self._writes(st, index, ins, ins.data, "din", s)
        if isinstance(ins, ops.DinPattern):
            return self._writes(st, index, ins, ops.pattern_bytes(ins.pattern, ins.seed, ins.n),
                                "din", s)
        if isinstance(ins, (ops.Dout, ops.DoutCompare)):
            return self._reads(st, index, ins, ins.n, s)
        if isinstance(ins, ops.WaitRdy):
            return self._wait(st, index, ins, s)
        return Step(index, "error", ins, code=ops.ErrorCode.BAD_OPCODE)

    def _writes(self, st: _State, index: int, ins: ops.Instruction, data: bytes, kind: str,
                s: SdrTiming) -> Step:
        out = bytearray()
        if st.last == "dout":
            out += self._pad(st, s.tRHW)
        if kind == "din" and st.last == "addr":
            out += self._pad(st, s.tADL)
        hi = self._hi(cle=kind == "cmd", ale=kind == "addr")
        out += bytes((WRITE_EXTENDED, hi, 0, data[0]))
        if len(data) > 1:
            body = bytearray(3 * (len(data) - 1))
            body[0::3] = bytes((WRITE_SHORT,)) * (len(data) - 1)
            body[2::3] = data[1:]
            out += body
        st.addr_hi, st.last, st.gap_ns = hi, kind, 0.0
        if kind == "cmd":
            st.last_cmd = data[0]
        return Step(index, "bus", ins, cmd=bytes(out), est_ns=200.0 * len(data))

    def _reads(self, st: _State, index: int, ins: ops.Instruction, n: int, s: SdrTiming) -> Step:
        out = bytearray()
        if st.last in ("cmd", "addr"):
            out += self._pad(st, s.tWHR)
        hi = self._hi()
        out += bytes((READ_EXTENDED, hi, 0))
        out += bytes((READ_SHORT, 0)) * (n - 1)
        st.addr_hi, st.last, st.gap_ns = hi, "dout", 0.0
        return Step(index, "data", ins, cmd=bytes(out), reply=n, est_ns=200.0 * n)

    def _wait(self, st: _State, index: int, ins: ops.WaitRdy, s: SdrTiming) -> Step:
        c = self.ctrl
        out = bytearray()
        gap_before = st.gap_ns
        if st.last == "cmd":
            out += self._pad(st, s.tWB)
        gap = st.gap_ns if st.last == "cmd" else gap_before
        window = BUSY_WINDOW_MARGIN * expected_busy_ns(st.last_cmd, ins.timeout_ns)
        period = c.rb_sample_ns
        samples = min(c.rb_max_samples, math.ceil(window / period)) if self.sample_busy else 0
        out += bytes((GET_BITS_HIGH,)) * samples
        out += bytes((WAIT_ON_HIGH,))
        st.gap_ns = 0.0
        st.last = "wait"
        return Step(index, "busy", ins, cmd=bytes(out), reply=samples, busy_gap_ns=gap,
                    busy_period_ns=period, est_ns=min(ins.timeout_ns, window))
