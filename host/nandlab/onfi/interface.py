"""Data interface negotiation: the fastest interface and mode both the part and the bench run.

A Toggle (JEDEC) part lists Toggle DDR speed grades instead: it is switched by the
bench's TIMING alone and verified by reading READ ID 40h back at the new rate.

The part says what it supports in its parameter page (SDR modes, bytes
129-130; NV-DDR2, 142 / 162; NV-DDR3, 160-161; ODT and complementary
signals, 158; warm-up, 159). The bench says what its controller and board
can drive (`BusModes`: a board file's `interfaces`, narrowed to what the
transport declares). `negotiate` picks the highest data rate in both,
configures NV-DDR2 / NV-DDR3 with SET FEATURES 02h, switches with SET
FEATURES 01h, tells the bench (TIMING) and reads both features back, as
Linux does for 01h. A part that does not take a write keeps its old value
and says nothing, so every step is verified; on any refusal the target is
put back in SDR and the reason is logged and returned, never raised: a
slower interface still measures. Without a DDR interface the SDR mode is left
as it is (a bench that never declared DDR sees no change), unless the part,
the bench or the rate cap rule it out.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from nandlab.errors import RangeError
from nandlab.onfi.errors import FeatureNotAccepted
from nandlab.onfi_spec import jedec_parampage as jp
from nandlab.onfi_spec import parampage as pp
from nandlab.onfi_spec.ddr_features import (
    WARMUP_CYCLES,
    DdrConfig,
    decode_timing_mode,
    timing_mode_p1,
)
from nandlab.onfi_spec.nvddr_timing import DDR_MODES, DdrInterface, ddr
from nandlab.onfi_spec.opcodes import Feature
from nandlab.onfi_spec.sdr_timing import SDR_MODES, sdr
from nandlab.ops import Interface, Program
from nandlab.sequences import core

if TYPE_CHECKING:
    from nandlab.onfi.target import Target

log = logging.getLogger(__name__)

DDR_ORDER = (DdrInterface.NV_DDR3, DdrInterface.NV_DDR2, DdrInterface.TOGGLE2)
OP_INTERFACE = {"sdr": Interface.SDR, "nv-ddr2": Interface.NV_DDR2, "nv-ddr3": Interface.NV_DDR3,
                "toggle2": Interface.TOGGLE}
ALL_SDR = tuple(range(len(SDR_MODES)))


@dataclass(frozen=True)
class BusModes:
    """Interface modes a bench (controller + board) can drive."""

    sdr: tuple[int, ...] = ALL_SDR
    nv_ddr2: tuple[int, ...] = ()
    nv_ddr3: tuple[int, ...] = ()
    toggle2: tuple[int, ...] = ()  # Toggle DDR 2.0 speed grades (a JEDEC part's page)
    warmup_out: int = 0
    """NV-DDR2/3 warm-up code (0..3 = 0, 1, 2, 4 cycles) the board wants before data out."""
    warmup_in: int = 0

    def modes(self, interface: str) -> tuple[int, ...]:
        return {"sdr": self.sdr, "nv-ddr2": self.nv_ddr2, "nv-ddr3": self.nv_ddr3,
                "toggle2": self.toggle2}[interface]

    def narrowed(self, other: BusModes) -> BusModes:
        """The modes both offer, with the warm-up either wants."""
        def both(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
            return tuple(sorted(set(a) & set(b)))
        return BusModes(both(self.sdr, other.sdr), both(self.nv_ddr2, other.nv_ddr2),
                        both(self.nv_ddr3, other.nv_ddr3), both(self.toggle2, other.toggle2),
                        max(self.warmup_out, other.warmup_out),
                        max(self.warmup_in, other.warmup_in))

    def describe(self) -> str:
        parts = [f"{name} {_span(self.modes(name))}" for name in OP_INTERFACE if self.modes(name)]
        return ", ".join(parts) or "none"


def _span(modes: tuple[int, ...]) -> str:
    if modes == tuple(range(modes[0], modes[-1] + 1)):
        return f"{modes[0]}-{modes[-1]}" if len(modes) > 1 else str(modes[0])
    return ",".join(map(str, modes))


def _bits(mask: int) -> tuple[int, ...]:
    return tuple(m for m in range(16) if mask >> m & 1)


def part_modes(fields: dict[str, Any]) -> BusModes:
    """The interfaces and modes a parameter page advertises (a JEDEC page: SDR and Toggle)."""
    if fields["standard"] == "jedec":
        return BusModes(sdr=_bits(int(fields["sdr_timing_modes"]) & 0x3F),
                        toggle2=tuple(fields["toggle_modes"]))
    features = int(fields["features"])
    nv_ddr2 = int(fields["nv_ddr2_timing_modes"]) | int(fields["nv_ddr2_timing_modes_high"]) << 8
    return BusModes(
        sdr=_bits(int(fields["sdr_timing_modes"]) & 0x3F),
        nv_ddr2=_bits(nv_ddr2) if features & pp.PP_FEATURE_NV_DDR2 else (),
        nv_ddr3=_bits(int(fields["nv_ddr3_timing_modes"])) if features & pp.PP_FEATURE_NV_DDR3
        else (),
    )


class ModeLists(Protocol):
    """A board file's `interfaces` section (`nandlab.boards.model.BoardInterfaces`)."""

    sdr_modes: list[int]
    nv_ddr2_modes: list[int]
    nv_ddr3_modes: list[int]
    toggle_modes: list[int]

    @property
    def warmup_out_cycles(self) -> int: ...

    @property
    def warmup_in_cycles(self) -> int: ...


def board_modes(lists: ModeLists) -> BusModes:
    """The modes a board file lists and the warm-up it wants."""
    return BusModes(tuple(lists.sdr_modes), tuple(lists.nv_ddr2_modes), tuple(lists.nv_ddr3_modes),
                    tuple(lists.toggle_modes), WARMUP_CYCLES.index(lists.warmup_out_cycles),
                    WARMUP_CYCLES.index(lists.warmup_in_cycles))


def bench_modes(supports: Any, board: BusModes | None = None) -> BusModes:
    """What a bench drives, narrowed to the board's list when one is known. A transport
    declares bench capability "nv-ddr3" for every tabled mode of NV-DDR3, or "nv-ddr3 mode
    N" for each mode it runs (a PHY limited by its clock); likewise NV-DDR2 and "toggle2"."""

    def offered(iface: DdrInterface) -> tuple[int, ...]:
        every = range(len(DDR_MODES[iface]))
        if supports(iface.value):
            return tuple(every)
        return tuple(m for m in every if supports(f"{iface.value} mode {m}"))

    offer = BusModes(nv_ddr2=offered(DdrInterface.NV_DDR2), nv_ddr3=offered(DdrInterface.NV_DDR3),
                     toggle2=offered(DdrInterface.TOGGLE2))
    return offer if board is None else offer.narrowed(board)


@dataclass(frozen=True)
class NegotiatedInterface:
    """Where negotiation left the target (and the bench)."""

    interface: str
    mode: int
    data_rate_mts: float
    config: DdrConfig | None = None
    reason: str = ""
    """Why this interface: the choice, or why a faster one was given up."""
    tried: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        rate = f"{self.data_rate_mts:g} MT/s"
        return f"{self.interface} mode {self.mode} ({rate})"


def sdr_rate(mode: int) -> float:
    """SDR moves one byte per tRC."""
    return 1000.0 / sdr(mode).tRC


def _config_for(fields: dict[str, Any], bus: BusModes) -> DdrConfig:
    """Complementary RE / DQS where the part has them (needed above 200 MT/s by most parts);
    the warm-up the board wants, up to the part's most (parameter page byte 159); ODT off:
    the board's termination is not known here."""
    f, most = int(fields["nv_ddr23_features"]), int(fields["nv_ddr23_warmup"])
    return DdrConfig(re_c=bool(f & pp.PP_DDR_DIFFERENTIAL_RE),
                     dqs_c=bool(f & pp.PP_DDR_DIFFERENTIAL_DQS),
                     warmup_out=min(bus.warmup_out, most & 0x0F),
                     warmup_in=min(bus.warmup_in, most >> 4))


def negotiate(target: Target, bus: BusModes, *, max_rate_mts: float | None = None
              ) -> NegotiatedInterface:
    """Switch `target` to the fastest interface and mode in both its parameter page and `bus`
    (at most `max_rate_mts`); verified by GET FEATURES, SDR with a logged reason otherwise."""
    fields = target.identification.fields
    part = part_modes(fields)
    common = part.narrowed(bus)
    reasons: list[str] = []
    tried: list[str] = []
    for iface in DDR_ORDER:
        modes = [m for m in common.modes(iface.value)
                 if max_rate_mts is None or ddr(iface, m).data_rate_mts <= max_rate_mts]
        if not modes:
            reasons.append(_why_not(iface.value, part, bus))
            continue
        mode = modes[-1]
        tried.append(f"{iface.value} mode {mode}")
        done = _switch(target, iface.value, mode, fields, bus)
        if isinstance(done, NegotiatedInterface):
            return replace(done, reason="; ".join([*reasons, done.reason]), tried=tried)
        reasons.append(done)
    # no DDR: the SDR mode stays unless part, bench or cap rule it out (then the fastest left)
    allowed = [m for m in common.sdr or (0,) if max_rate_mts is None or sdr_rate(m) <= max_rate_mts]
    mode = target.timing_mode if target.timing_mode in allowed else max(allowed, default=0)
    if mode != target.timing_mode:
        target.set_timing_mode(mode)
    reason = "; ".join(reasons)
    log.info("data interface: SDR mode %d (%s)", mode, reason)
    return NegotiatedInterface("sdr", mode, sdr_rate(mode), None, reason, tried)


def switch_to(target: Target, interface: str, mode: int, bus: BusModes) -> NegotiatedInterface:
    """Switch to one given interface mode (a scan's or a user's choice, not the fastest):
    RangeError unless both the part and `bus` offer it, FeatureNotAccepted when the part
    does not take it (target and bench are then back in SDR)."""
    if interface == "sdr":
        target.set_timing_mode(mode)
        return NegotiatedInterface("sdr", mode, sdr_rate(mode))
    part = part_modes(target.identification.fields)
    if interface not in OP_INTERFACE or mode not in part.narrowed(bus).modes(interface):
        raise RangeError(
            f"{interface} mode {mode} is not offered by both the part ({part.describe()}) and "
            f"the bench ({bus.describe()})"
        )
    done = _switch(target, interface, mode, target.identification.fields, bus)
    if isinstance(done, str):
        raise FeatureNotAccepted(done)
    return done


def _why_not(iface: str, part: BusModes, bus: BusModes) -> str:
    if not part.modes(iface):
        return f"the part does not offer {iface}"
    if not bus.modes(iface):
        return f"the bench does not drive {iface}"
    return f"no {iface} mode both run (part {_span(part.modes(iface))}, " \
           f"bench {_span(bus.modes(iface)) if bus.modes(iface) else 'none'})"


def _switch(target: Target, iface: str, mode: int, fields: dict[str, Any], bus: BusModes
            ) -> NegotiatedInterface | str:
    if iface == DdrInterface.TOGGLE2:
        return _switch_toggle(target, mode)
    return _switch_ddr(target, iface, mode, _config_for(fields, bus))


def _switch_toggle(target: Target, mode: int) -> NegotiatedInterface | str:
    """A Toggle part has no interface feature: the bench strobes at the grade (TIMING) and
    READ ID 40h is read back at that rate to verify; the bench returns to SDR otherwise."""
    target.run(Program().timing(mode, Interface.TOGGLE), f"TIMING toggle2 mode {mode}")
    got = target.read_id(jp.READ_ID_JEDEC_ADDRESS, len(jp.JEDEC_ID_SIGNATURE))
    if got != jp.JEDEC_ID_SIGNATURE:
        target.run(Program().timing(target.timing_mode), f"TIMING SDR mode {target.timing_mode}")
        return f"toggle2 mode {mode}: READ ID 40h read {got!r} at that rate, not 'JEDEC'"
    rate = ddr(DdrInterface.TOGGLE2, mode).data_rate_mts
    log.info("data interface: toggle2 mode %d (%d MT/s)", mode, rate)
    return NegotiatedInterface("toggle2", mode, float(rate), None,
                               "fastest Toggle speed grade both the part and the bench run")


def _switch_ddr(target: Target, iface: str, mode: int, config: DdrConfig
                ) -> NegotiatedInterface | str:
    """Configure (02h), switch (01h + TIMING), verify; the reason as text when refused."""
    t, timeout = target.sdr, target.timeouts.feature
    params = config.params()
    target.run(core.set_features(t, Feature.NV_DDR_CONFIG, params, timeout), "SET FEATURES 02h")
    got = target.get_feature(Feature.NV_DDR_CONFIG)
    if got != params:
        return (f"{iface}: the part did not take configuration {params.hex()} (feature 02h "
                f"reads {got.hex()})")
    p1 = timing_mode_p1(iface, mode)
    switch = core.set_features(t, Feature.TIMING_MODE, bytes([p1, 0, 0, 0]), timeout)
    target.run(switch.timing(mode, OP_INTERFACE[iface], config.warmup_out, config.warmup_in),
               f"SET FEATURES 01h {iface} mode {mode}")
    now = target.get_feature(Feature.TIMING_MODE)[0]
    if decode_timing_mode(now) != (iface, mode):
        # the part stayed where it was (SDR): the bench goes back with it
        back = decode_timing_mode(now)
        sdr_mode = back[1] if back is not None and back[0] == "sdr" else 0
        target.run(Program().timing(sdr_mode), f"TIMING SDR mode {sdr_mode}")
        return f"{iface} mode {mode}: the part did not switch (feature 01h reads {now:02X}h)"
    rate = ddr(iface, mode).data_rate_mts
    log.info("data interface: %s mode %d (%d MT/s)", iface, mode, rate)
    return NegotiatedInterface(iface, mode, float(rate), config,
                               "fastest mode both the part and the bench run")
