"""Pin-level ONFI adapter: virtual dies on a DUT's ONFI pins (cocotb).

`OnfiPins` watches the controller's pins and plays one `VirtualDie` per chip
enable, the way a real die sees the bus:

- WE# rising: CLE=1 latches a command (`die.cmd`), ALE=1 an address byte
  (`die.addr`), else a data byte (`die.write`). CLE, ALE and DQ are taken as
  they were just before the edge (a change in the same instant is a hold
  violation the timing checker reports).
- RE# falling: the die's next byte (`die.read(1)`) appears on `nand_dq_i`
  tREA later; from tRLOH after the fall until tREA the pins carry the
  inverted byte, so a controller that samples too early reads wrong data.
  The byte stays until tRHOH after RE# rises (or tRLOH after the next fall,
  whichever comes first), then the pins carry its inverse again, so a
  controller that samples too late reads wrong data too.
- R/B#: low 1 ps after the bus cycle that starts a busy period until the die
  is ready again (the die's own busy time; tWB is not added, as in
  VirtualDie). A controller must still not start a cycle within tWB.
- WP#: drives every die's WP#.

The dies' virtual clock follows simulation time: before each bus cycle every
die is advanced so that the cycle ends at the edge that latches it (a die
charges tWC / tRC per cycle itself), so busy times, status and the dies' power
log line up with the simulation.

Every edge also goes to the ONFI SDR timing checker of the host package
(`nandlab.vchip.pin_timing.SdrTimingChecker`, the one the virtual FT2232H
uses too) in the selected die's current SDR timing mode (the die switches on
SET FEATURES 01h); the first violation fails the test with the parameter,
measured and required values.

When SET FEATURES 01h has put the selected die in NV-DDR2 / NV-DDR3, the
edges go to `nandlab.vchip.pin_timing_ddr.DdrTimingChecker` instead, and the
die moves data on strobes (`DdrDie` below): command and address cycles stay
WE# cycles; after a command or address, the first RE# fall is the read
preamble and every later RE# edge gets one byte (`die.read(1)`), with the
die's DQS edge `dqs_out_ps` after the RE# edge (the RE# level, edge-aligned
with DQ). DQ carries the byte from tDQSQ to tQH after that edge (shifted by
`dq_skew_ps`, a skew injected on the byte lane) and its inverse outside, so
a capture outside the eye reads wrong data. On data in, every DQS edge the
controller drives after its preamble latches DQ (`die.write`).

When the DUT holds nandlab_core (itself, `u_core` or `u_ctrl.u_core`), the
controller's own sample points go to the checker too: the clock edge its PHY
latches DQ (`u_phy.rd_valid` rises on it) and the edges its sequencer looks
at R/B# (`u_seq.state_q` in S_RDY), so a capture outside the die's valid
window or an R/B# look within tWB fails like a pin violation. The checker's
`margins` then include tREA / tCEA / tRHOH / tRLOH of those samples.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cocotb
from cocotb.handle import LogicArrayObject, LogicObject, SimHandleBase
from cocotb.triggers import First, ReadOnly, Timer

from nandlab.ops import Interface
from nandlab.rtlsim.onfi_pins_ddr import DdrDiePins
from nandlab.vchip.die import VirtualDie
from nandlab.vchip.pin_timing import PS_PER_NS as PS
from nandlab.vchip.pin_timing import OnfiTimingError, SdrTimingChecker, TimingViolation
from nandlab.vchip.pin_timing_ddr import DdrTimingChecker

RESET_CMD = 0xFF
SEQ_S_RDY = 13
"""nandlab_seq's WAIT_RDY state that looks at R/B# (localparam S_RDY in hw/rtl/nandlab_seq.sv)."""
CORE_PATHS = ((), ("u_core",), ("u_ctrl", "u_core"))
"""Where nandlab_core sits below a testbench toplevel (itself, nandlab_ctrl, nandlab_top_xdma)."""


def find_core(dut: SimHandleBase) -> Any:
    """The nandlab_core instance under `dut` (one with u_phy and u_seq), or None."""
    for path in CORE_PATHS:
        handle: Any = dut
        try:
            for name in path:
                handle = getattr(handle, name)
            handle.u_phy.rd_valid  # noqa: B018 (probe: raises AttributeError if absent)
            handle.u_seq.state_q  # noqa: B018
        except AttributeError:
            continue
        return handle
    return None


def _int(handle: LogicObject | LogicArrayObject, default: int) -> int:
    try:
        return int(handle.value)
    except ValueError:  # X / Z before reset
        return default


class OnfiPins(DdrDiePins):
    """Virtual dies on the `nand_*` pins of `dut`.

    Args:
        dut: the toplevel with nand_ce_n[NUM_CE-1:0], nand_cle, nand_ale, nand_we_n,
            nand_re_n, nand_wp_n, nand_dq_o, nand_dq_oe (outputs) and nand_rb_n,
            nand_dq_i (inputs).
        dies: die k answers chip enable k; targets without a die float (R/B# high, DQ FFh).
        strict: fail on the first timing violation (else collect in `violations`).
        prefix: pin name prefix.
        probes: the controller's sample points: "capture" (high on the edges DQ
            was latched) and "seq_state" (nandlab_seq's state); default: those of
            the nandlab_core under `dut`, none without one.
        clk_ps: the controller's clock period; R/B# passes two synchroniser flops,
            so a look at R/B# sees the pin as it was one clock before it.
        dqs_out_ps: the die's RE# edge to DQS edge delay on DDR data out (<= tDQSRE).
        dq_skew_ps: delay of DQ behind the die's DQS edge (byte lane 0): moves the eye.
    """

    def __init__(
        self,
        dut: SimHandleBase,
        dies: Sequence[VirtualDie],
        *,
        strict: bool = True,
        prefix: str = "nand_",
        probes: dict[str, Any] | None = None,
        clk_ps: int = 0,
        dqs_out_ps: int = 2500,
        dq_skew_ps: int = 0,
    ) -> None:
        self.dut = dut
        self.dies = list(dies)
        self.pin = {
            n: getattr(dut, prefix + n)
            for n in (
                "ce_n",
                "cle",
                "ale",
                "we_n",
                "re_n",
                "wp_n",
                "dq_o",
                "dq_oe",
                "rb_n",
                "dq_i",
            )
        }
        self.pin.update({n: getattr(dut, prefix + n) for n in ("dqs_o", "dqs_oe", "dqs_i")})
        self.num_ce = len(self.pin["ce_n"])
        t_ccs = dies[0].profile.timing.t_ccs_ns if dies else None
        self.sdr_checker = SdrTimingChecker(0, strict=False, t_ccs_ns=t_ccs)
        self.ddr_checker = DdrTimingChecker("nv-ddr2", 0, strict=False)
        self.checker: SdrTimingChecker | DdrTimingChecker = self.sdr_checker
        """The checker of the selected die's interface (SDR until SET FEATURES 01h says DDR)."""
        self.ddr_iface: str | None = None
        self.dqs_out_ps = dqs_out_ps
        self.dq_skew_ps = dq_skew_ps
        self._rd_burst = False    # DDR: the read preamble has been seen, RE# edges carry data
        self._wr_burst = False    # DDR: the controller drove DQS low, its edges latch DQ
        self._die_dqs = 0
        self.strict = strict
        self.rb_bits = (1 << self.num_ce) - 1
        self._rb_tasks: list[cocotb.task.Task | None] = [None] * self.num_ce
        self._dq_task: cocotb.task.Task | None = None
        self._dq_byte = 0xFF
        self._dq_rise_ps: int | None = None
        self._task: cocotb.task.Task | None = None
        self.selected: int | None = None
        self.log = dut._log
        self.strobes: list[tuple[int, str]] = []
        """(t_ps, "cmd" / "addr" / "din" / "dout") of every bus cycle: WE# rise, RE# fall."""
        if probes is None:
            core = find_core(dut)
            probes = {} if core is None else {
                "capture": core.u_phy.rd_valid, "seq_state": core.u_seq.state_q,
                "ddr_capture": core.u_phy.u_io.dqs_dly,
                "seq_interface": core.u_seq.interface_q, "seq_mode": core.u_seq.timing_mode_q}
        self.probes = probes
        self.clk_ps = clk_ps
        """The controller's sample points (empty when the DUT has no nandlab_core)."""
        self.samples = {"dq": 0, "rb": 0}
        """How many DQ captures and R/B# looks the checker has seen."""

    # ------------------------------------------------------------ control

    def start(self) -> None:
        """Drive R/B# high and DQ FFh, then start watching the pins."""
        self.pin["rb_n"].value = self.rb_bits
        self.pin["dq_i"].value = 0xFF
        self.pin["dqs_i"].value = 0
        self._task = cocotb.start_soon(self._watch())

    def stop(self) -> None:
        for task in [self._task, self._dq_task, *self._rb_tasks]:
            if task is not None and not task.done():
                task.cancel()

    @property
    def violations(self) -> list[TimingViolation]:
        """Every timing violation seen so far (SDR first, then DDR)."""
        return [*self.sdr_checker.violations, *self.ddr_checker.violations]

    def check(self) -> None:
        """Raise the first timing violation seen so far (for non-strict use)."""
        if self.violations:
            raise OnfiTimingError(self.violations[0])

    # ------------------------------------------------------------ time

    def _sync_dies(self, t_ns: int) -> None:
        """Advance every die's clock to `t_ns` (dies never move backwards)."""
        for die in self.dies:
            if die.now_ns < t_ns:
                die.advance(t_ns - die.now_ns)

    # ------------------------------------------------------------ watcher

    def _sample(self) -> dict[str, int]:
        p = self.pin
        return {
            "ce": _int(p["ce_n"], (1 << self.num_ce) - 1),
            "cle": _int(p["cle"], 0),
            "ale": _int(p["ale"], 0),
            "we_n": _int(p["we_n"], 1),
            "re_n": _int(p["re_n"], 1),
            "wp_n": _int(p["wp_n"], 1),
            "dq": _int(p["dq_o"], 0),
            "dq_oe": _int(p["dq_oe"], 0),
            "dqs": _int(p["dqs_o"], 0),
            "dqs_oe": _int(p["dqs_oe"], 0),
        }

    async def _watch(self) -> None:
        watched = [
            self.pin[n]
            for n in ("ce_n", "cle", "ale", "we_n", "re_n", "wp_n", "dq_o", "dq_oe", "dqs_o",
                      "dqs_oe")
        ] + list(self.probes.values())
        await ReadOnly()
        prev = self._sample()
        self._apply_wp(prev["wp_n"])
        self.sdr_checker.edge(self.now_ps(), "wp_n", prev["wp_n"])
        self.ddr_checker.edge(self.now_ps(), "wp_n", prev["wp_n"])
        probed = self._probe()
        while True:
            await First(*(h.value_change for h in watched))
            await ReadOnly()
            now = self._sample()
            t = self.now_ps()
            self._step(t, prev, now)
            prev = now
            probed = self._controller_samples(t, probed)

    def _probe(self) -> dict[str, int]:
        return {name: _int(h, 0) for name, h in self.probes.items()}

    def _controller_samples(self, t: int, prev: dict[str, int]) -> dict[str, int]:
        """Pass the controller's DQ capture and R/B# look at `t` (after the pin edges of t)."""
        now = self._probe()
        if self.ddr_iface is not None:
            if "ddr_capture" in now and now["ddr_capture"] != prev.get("ddr_capture"):
                self.ddr_checker.sample_dq(t)
                self.samples["dq"] += 1
        # a read cycle is at least two clocks, so rd_valid never stays high two edges
        elif now.get("capture") and not prev.get("capture"):
            self.sdr_checker.sample_dq(t)
            self.samples["dq"] += 1
        if now.get("seq_state") == SEQ_S_RDY and prev.get("seq_state") != SEQ_S_RDY:
            self.sdr_checker.sample_rb(t - self.clk_ps)
            self.samples["rb"] += 1
        self._raise_new()
        return now

    def _step(self, t: int, prev: dict[str, int], now: dict[str, int]) -> None:
        if self.ddr_iface is not None:
            self._step_ddr(t, prev, now)
            return
        chk = self.sdr_checker
        all_high = (1 << self.num_ce) - 1
        if now["ce"] != prev["ce"]:
            low = [k for k in range(self.num_ce) if not now["ce"] >> k & 1]
            if len(low) > 1:
                chk.rule(False, "CE#", t, f"targets {low} selected at once")
            self.selected = low[0] if low else None
            chk.edge(t, "ce_n", int(now["ce"] == all_high))
            if self.selected is not None:  # R/B# as the newly selected target drives it
                chk.edge(t, "rb_n", self.rb_bits >> self.selected & 1)
            self._update_mode()
        if now["wp_n"] != prev["wp_n"]:
            self._apply_wp(now["wp_n"])
            chk.edge(t, "wp_n", now["wp_n"])
        # hold rules: pins that change together with a strobe edge change after it
        strobe_we = now["we_n"] != prev["we_n"]
        strobe_re = now["re_n"] != prev["re_n"]
        if strobe_we:
            chk.edge(t, "we_n", now["we_n"])
        if strobe_re:
            chk.edge(t, "re_n", now["re_n"])
        for pin in ("cle", "ale", "dq", "dq_oe"):
            if now[pin] != prev[pin]:
                chk.edge(t, pin, now[pin])
        if strobe_we and now["we_n"] == 1:
            kind = "cmd" if prev["cle"] else "addr" if prev["ale"] else "din"
            self.strobes.append((t, kind))
            self._latch(t, prev)
        if strobe_re and now["re_n"] == 0:
            self.strobes.append((t, "dout"))
            self._read(t)
        if strobe_re and now["re_n"] == 1:
            self._hold_after_rise(t)
        self._raise_new()

    def _raise_new(self) -> None:
        if self.strict and self.violations:
            raise OnfiTimingError(self.violations[0])

    def _apply_wp(self, wp_n: int) -> None:
        for die in self.dies:
            die.set_wp(not wp_n)

    def _die(self) -> VirtualDie | None:
        k = self.selected
        return self.dies[k] if k is not None and k < len(self.dies) else None

    def _update_mode(self) -> None:
        die = self._die()
        if die is None:
            return
        self._follow_toggle(die)
        iface, mode = die.data_interface
        if iface == "sdr":  # the SDR mode the die's bus timing runs in
            self.ddr_iface = None
            self.checker = self.sdr_checker
            self.sdr_checker.set_mode(die.timing_mode)
        else:
            self.ddr_iface = iface
            self.checker = self.ddr_checker
            self.ddr_checker.set_mode(iface, mode)

    def _follow_toggle(self, die: VirtualDie) -> None:
        """A Toggle die has no interface feature: it runs at the grade the controller strobes,
        which the sequencer's TIMING registers hold (the die's view of the bus rate, as
        sim:// gives it)."""
        iface, mode = self.probes.get("seq_interface"), self.probes.get("seq_mode")
        if iface is None or mode is None or die.profile.identity.standard != "jedec":
            return
        toggle = _int(iface, 0) == Interface.TOGGLE
        die.follow_toggle(_int(mode, 0) if toggle else None)

    # ------------------------------------------------------------ die cycles

    def _latch(self, t: int, pins: dict[str, int]) -> None:
        die = self._die()
        if die is None:
            return
        k = self.selected
        assert k is not None
        t_ns = t // PS
        self._sync_dies(t_ns - die.timing.tWC)
        was_ready, was_busy_ns = die.ready, die.last_busy_ns
        byte = pins["dq"]
        if pins["cle"]:
            die.cmd(byte)
        elif pins["ale"]:
            die.addr(byte)
        else:
            die.write(bytes([byte]))
        self._sync_dies(die.now_ns)
        # A busy period starts at the end of the cycle that triggers it, so it
        # ends last_busy_ns after the die's clock now.
        restarted = pins["cle"] and byte == RESET_CMD
        if not die.ready and (
            was_ready or restarted or die.last_busy_ns != was_busy_ns
        ):
            self._go_busy(k, die.now_ns + die.last_busy_ns)
        self._update_mode()

    def _go_busy(self, k: int, until_ns: int) -> None:
        task = self._rb_tasks[k]
        if task is not None and not task.done():
            task.cancel()
        self._rb_tasks[k] = cocotb.start_soon(self._busy(k, until_ns))

    async def _busy(self, k: int, until_ns: int) -> None:
        await Timer(
            1, unit="ps"
        )  # pins cannot change in the ReadOnly phase of the edge
        self._set_rb(k, 0)
        wait_ps = until_ns * PS - self.now_ps()
        if wait_ps > 0:
            await Timer(wait_ps, unit="ps")
        self._sync_dies(until_ns)
        self._set_rb(k, 1)

    def _set_rb(self, k: int, level: int) -> None:
        if level:
            self.rb_bits |= 1 << k
        else:
            self.rb_bits &= ~(1 << k)
        self.pin["rb_n"].value = self.rb_bits
        if k == self.selected:
            self.checker.edge(self.now_ps(), "rb_n", level)
            self._raise_new()

    def _read(self, t: int) -> None:
        die = self._die()
        if die is None:
            byte = 0xFF
        else:
            self._sync_dies(t // PS)
            byte = die.read(1)[0]
        if self._dq_task is not None and not self._dq_task.done():
            self._dq_task.cancel()
        lim = self.sdr_checker.limits
        self._dq_byte, self._dq_rise_ps = byte, None
        self._dq_task = cocotb.start_soon(
            self._drive_dq(t, byte, lim.tRLOH * PS, lim.tREA * PS)
        )

    def _hold_after_rise(self, t: int) -> None:
        """The byte goes invalid tRHOH after RE# rises (not before it became valid)."""
        self._dq_rise_ps = t
        if self._dq_task is None or self._dq_task.done():
            self._dq_task = cocotb.start_soon(self._invalidate_dq(self._dq_byte))
        # else _drive_dq is still before tREA and ends the byte itself

    def _rhoh_end_ps(self) -> int:
        assert self._dq_rise_ps is not None
        return self._dq_rise_ps + max(self.sdr_checker.limits.tRHOH * PS, 1)

    async def _invalidate_dq(self, byte: int) -> None:
        wait = self._rhoh_end_ps() - self.now_ps()
        if wait > 0:
            await Timer(wait, unit="ps")
        self.pin["dq_i"].value = byte ^ 0xFF

    async def _drive_dq(self, t: int, byte: int, hold_ps: int, access_ps: int) -> None:
        invalid_at = t + max(hold_ps, 1)
        await Timer(invalid_at - self.now_ps(), unit="ps")
        self.pin["dq_i"].value = byte ^ 0xFF
        await Timer(t + access_ps - self.now_ps(), unit="ps")
        self.pin["dq_i"].value = byte
        if self._dq_rise_ps is not None:  # RE# rose before tREA (EDO): hold tRHOH from the rise
            await Timer(max(self._rhoh_end_ps() - self.now_ps(), 1), unit="ps")
            self.pin["dq_i"].value = byte ^ 0xFF
