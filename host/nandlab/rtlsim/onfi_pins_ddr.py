"""The DDR half of the pin adapter (`nandlab.rtlsim.onfi_pins.OnfiPins`).

While SET FEATURES 01h holds the selected die in NV-DDR2 / NV-DDR3, OnfiPins
hands every pin change to `_step_ddr`: command and address cycles stay WE#
rises; after a command or address the first RE# fall is the read preamble,
every later RE# edge reads one byte and the die's DQS edge follows
`dqs_out_ps` later (edge-aligned, DQ valid tDQSQ..tQH after it, shifted by
`dq_skew_ps`); every DQS edge the controller drives after its preamble
latches DQ. Every edge goes to the DDR checker (`ddr_checker`).

After a command of `REPEAT_BYTE_COMMANDS` (READ ID, GET / SET FEATURES, READ
STATUS ...) each byte takes two edges, as ONFI's repeat bytes want: the die
sends every output byte on two RE# edges (one `die.read` per pair) and keeps
the first of each pair of input bytes, latched on the pair's second DQS edge
(a controller that sends SET FEATURES bytes once gives the die half of them;
the checker reports it). A Toggle die (JESD230) repeats nothing.

Warm-up (feature 02h P2): each burst begins, after its preamble, with the
configured number of extra cycles (two edges each) that carry no data: the
die answers warm-up RE# edges with DQS edges and `WARMUP_DQ` on DQ and reads
nothing, and ignores warm-up DQS edges on data in. A burst that pauses (no
command, address or CE# change) does not warm up again.
"""

from __future__ import annotations

from typing import Any

import cocotb
from cocotb.simtime import get_sim_time
from cocotb.triggers import Timer

from nandlab.onfi_spec.ddr_features import REPEAT_BYTE_COMMANDS, WARMUP_CYCLES, DdrConfig
from nandlab.onfi_spec.opcodes import Feature
from nandlab.vchip.die import VirtualDie
from nandlab.vchip.pin_timing import PS_PER_NS as PS
from nandlab.vchip.pin_timing import SdrTimingChecker
from nandlab.vchip.pin_timing_ddr import DdrTimingChecker

WARMUP_DQ = 0xA5
"""What the die drives on DQ at its warm-up DQS edges (no data is defined there)."""


class DdrDiePins:
    """DDR data cycles of the dies on the pins; OnfiPins sets the state below."""

    pin: dict[str, Any]
    num_ce: int
    selected: int | None
    strobes: list[tuple[int, str]]
    sdr_checker: SdrTimingChecker
    ddr_checker: DdrTimingChecker
    ddr_iface: str | None
    dqs_out_ps: int
    dq_skew_ps: int
    _rd_burst: bool
    _wr_burst: bool
    _die_dqs: int
    _command = -1                 # the last command latched: does it repeat its bytes?
    _first_copy: int | None = None  # the byte of a repeated pair's first edge
    _warm_left = 0                # warm-up edges still to come in this burst

    @staticmethod
    def now_ps() -> int:
        return round(get_sim_time("ps"))

    # OnfiPins' die and checker plumbing, declared for the DDR cycles below
    def _apply_wp(self, wp_n: int) -> None: ...
    def _update_mode(self) -> None: ...
    def _latch(self, t: int, pins: dict[str, int]) -> None: ...
    def _die(self) -> VirtualDie | None: ...
    def _sync_dies(self, t_ns: int) -> None: ...
    def _raise_new(self) -> None: ...
    def _go_busy(self, k: int, until_ns: int) -> None: ...

    def _step_ddr(self, t: int, prev: dict[str, int], now: dict[str, int]) -> None:
        """One change of the controller's pins while the selected die runs NV-DDR2 / NV-DDR3."""
        chk = self.ddr_checker
        all_high = (1 << self.num_ce) - 1
        if now["ce"] != prev["ce"]:
            low = [k for k in range(self.num_ce) if not now["ce"] >> k & 1]
            if len(low) > 1:
                self.sdr_checker.rule(False, "CE#", t, f"targets {low} selected at once")
            self.selected = low[0] if low else None
            chk.edge(t, "ce_n", int(now["ce"] == all_high))
            self._end_bursts(t)
            self._update_mode()
        if now["wp_n"] != prev["wp_n"]:
            self._apply_wp(now["wp_n"])
            chk.edge(t, "wp_n", now["wp_n"])
        for pin in ("we_n", "re_n", "cle", "ale", "dq", "dq_oe"):
            if now[pin] != prev[pin]:
                chk.edge(t, pin, now[pin])
                if pin == "re_n":
                    chk.edge(t, "re_c", 1 - now[pin])
        if now["we_n"] != prev["we_n"]:
            self._end_bursts(t)
            if now["we_n"] == 1 and (prev["cle"] or prev["ale"]):
                self.strobes.append((t, "cmd" if prev["cle"] else "addr"))
                if prev["cle"]:
                    self._command = prev["dq"]
                self._latch(t, prev)
        if now["dqs_oe"] != prev["dqs_oe"]:
            self._wr_burst = bool(now["dqs_oe"]) and not now["dqs"]
            self._first_copy = None
            if self._wr_burst:
                self._warm_left = self._warmup_edges(data_out=False)
            if not now["dqs_oe"]:
                self._update_mode()  # a SET FEATURES 01h burst may have left the interface
        if now["dqs_oe"] and now["dqs"] != prev["dqs"]:
            chk.edge(t, "dqs", now["dqs"])
            chk.edge(t, "dqs_c", 1 - now["dqs"])
            if self._wr_burst and self._warm_left:
                self._warm_left -= 1
            elif self._wr_burst:
                self.strobes.append((t, "din"))
                self._ddr_write(t, prev["dq"])
        if now["re_n"] != prev["re_n"]:
            if not self._rd_burst:
                self._rd_burst = now["re_n"] == 0   # the preamble's fall carries no data
                if self._rd_burst:
                    self._warm_left = self._warmup_edges(data_out=True)
            elif self._warm_left:
                self._warm_left -= 1
                cocotb.start_soon(self._drive_ddr_out(t + self.dqs_out_ps, now["re_n"], WARMUP_DQ))
            else:
                self.strobes.append((t, "dout"))
                self._ddr_read(t, now["re_n"])
        self._raise_new()

    def _warmup_edges(self, *, data_out: bool) -> int:
        """Warm-up edges the selected die's feature 02h asks at the start of a burst; the
        checker is told, so it can judge the burst."""
        die = self._die()
        config = None if die is None else DdrConfig.decode(die.feature(Feature.NV_DDR_CONFIG))
        if config is None:
            return 0
        self.ddr_checker.set_warmup(WARMUP_CYCLES[config.warmup_out],
                                    WARMUP_CYCLES[config.warmup_in])
        return 2 * WARMUP_CYCLES[config.warmup_out if data_out else config.warmup_in]

    def _repeats(self) -> bool:
        """ONFI's repeat bytes apply (NV-DDR2 / NV-DDR3); Toggle DDR moves every byte once."""
        return self._command in REPEAT_BYTE_COMMANDS and self.ddr_iface != "toggle2"

    def _ddr_write(self, t: int, byte: int) -> None:
        """Latch one data-in byte; the one that completes SET FEATURES starts tFEAT.

        The die goes busy on that byte, so R/B# must fall here as it does after a WE#
        cycle (else the controller's wait for ready passes at once and its next command
        reaches a busy die). A 01h write's new interface is taken when the burst ends.
        """
        if self._repeats():
            if self._first_copy is None:
                self._first_copy = byte
                return
            byte, self._first_copy = self._first_copy, None
        die = self._die()
        if die is None:
            return
        k = self.selected
        assert k is not None
        self._sync_dies(t // PS)
        was_ready = die.ready
        die.write(bytes([byte]))
        if was_ready and not die.ready:
            self._go_busy(k, die.now_ns + die.last_busy_ns)

    def _end_bursts(self, t: int) -> None:
        """A command, an address or CE# ends any burst; the die parks its DQS low."""
        self._rd_burst = False
        self._first_copy = None
        if self._die_dqs:
            self._die_dqs = 0
            cocotb.start_soon(self._park_dqs())

    async def _park_dqs(self) -> None:
        await Timer(1, unit="ps")  # pins cannot change in the ReadOnly phase of the edge
        self.pin["dqs_i"].value = 0
        self.ddr_checker.edge(self.now_ps(), "dqs", 0)
        self.ddr_checker.edge(self.now_ps(), "dqs_c", 1)

    def _ddr_read(self, t: int, level: int) -> None:
        repeat = self._repeats()
        die = self._die()
        if repeat and self._first_copy is not None:
            byte, self._first_copy = self._first_copy, None
        elif die is None:
            byte = 0xFF
        else:
            self._sync_dies(t // PS)
            byte = die.read(1)[0]
            if repeat:
                self._first_copy = byte
        cocotb.start_soon(self._drive_ddr_out(t + self.dqs_out_ps, level, byte))

    async def _drive_ddr_out(self, edge_ps: int, level: int, byte: int) -> None:
        """The die's DQS edge at edge_ps with DQ valid from tDQSQ to tQH after it (+ skew)."""
        lim = self.ddr_checker.limits
        await Timer(max(edge_ps - self.now_ps(), 1), unit="ps")
        self._die_dqs = level
        self.pin["dqs_i"].value = level
        self.pin["dq_i"].value = byte ^ 0xFF
        self.ddr_checker.edge(self.now_ps(), "dqs", level)
        self.ddr_checker.edge(self.now_ps(), "dqs_c", 1 - level)
        await Timer(max(lim.tDQSQ + self.dq_skew_ps, 1), unit="ps")
        self.pin["dq_i"].value = byte
        await Timer(max(lim.tQH - lim.tDQSQ, 1), unit="ps")
        self.pin["dq_i"].value = byte ^ 0xFF
