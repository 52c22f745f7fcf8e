"""`Target`: one ONFI target behind a transport: running its op programs, identification,
status, features, timing mode, write protection and read offsets.

The operations themselves come from the sequence library (`nandlab.sequences`);
this class adds what only a live target knows: its chip enable, its timing
mode, the timeouts its parameter page declares, and the checks of what comes
back. The array operations build on it (`onfi.array`, `onfi.chip`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from nandlab.errors import (
    AddressError,
    ChipStatusFail,
    NandTimeout,
    RangeError,
    RefusedOperation,
    TransportError,
    UnsupportedCapability,
)
from nandlab.onfi.address import ChipGeometry
from nandlab.onfi.errors import FeatureNotAccepted
from nandlab.onfi.identify import identify_target
from nandlab.onfi.results import Identification, busy_steps, data_records
from nandlab.onfi.wear import WearTally
from nandlab.onfi_spec import parampage
from nandlab.onfi_spec.opcodes import PARAMETER_PAGE_BYTES, UNIQUE_ID_BYTES, Feature, Status
from nandlab.onfi_spec.reset_timing import T_RST_POWER_ON_US
from nandlab.onfi_spec.sdr_timing import SdrTiming, sdr
from nandlab.ops import WAIT_TIMEOUT_MARGIN, ErrorCode, Program, Results
from nandlab.profiles import Profile
from nandlab.profiles.features import FeatureRole, declared_features
from nandlab.profiles.model import ReadReference
from nandlab.sequences import core
from nandlab.sequences.testmode import in_test_mode
from nandlab.sequences.vendor import array_mode

if TYPE_CHECKING:
    from nandlab.boards import Board

TIMEOUT_SAFETY = WAIT_TIMEOUT_MARGIN
"""WAIT_RDY timeouts = this x the parameter page maximum (tR, tPROG, tBERS)."""
DEFAULT_TIMEOUT_NS = 50_000_000
"""Timeout of array operations before the parameter page is known."""
RESET_TIMEOUT_NS = round(TIMEOUT_SAFETY * T_RST_POWER_ON_US * 1000)
"""Timeout of RESET: the margin x the longest tRST (the first RESET after power-on)."""
U32_MAX = 0xFFFFFFFF


class Controller(Protocol):
    """What the chip layer needs of a bench: run op programs on its targets.

    Every transport (`nandlab.transport`) is one; the chip layer asks nothing else
    of it, so it does not depend on any of them.
    """

    url: str

    @property
    def targets(self) -> int: ...

    @property
    def profile(self) -> Profile | None: ...

    def run(self, program: Program) -> Results: ...

    @property
    def board(self) -> Board | None:
        """The board file the bench names, if any (its interface modes and warm-up)."""
        ...

    def supports(self, capability: str) -> bool: ...

    def cannot(self, capability: str) -> str:
        """That the bench does not offer `capability`, why and what to use (a message)."""
        ...


@dataclass(frozen=True)
class Timeouts:
    """WAIT_RDY timeouts (ns) of the target's busy periods: the declared maximum x a margin."""

    read: int
    program: int
    erase: int
    feature: int


class Target:
    """One ONFI target: chip enable `ce` of `transport`.

    The target identifies itself on first need (READ ID, parameter page) without
    a RESET, so settings made by an earlier session (timing mode, read
    offsets) survive; call `identify()` (which resets by default) to start
    clean.
    """

    def __init__(self, transport: Controller, ce: int = 0) -> None:
        if not 0 <= ce < transport.targets:
            raise AddressError(
                f"chip enable {ce} is not on this bench: allowed 0..{transport.targets - 1}"
            )
        self.transport = transport
        self.ce = ce
        self._ident: Identification | None = None
        self._geometry: ChipGeometry | None = None
        self._timing_mode = 0
        # (identification, timing mode, profile, their Timeouts): every array operation asks
        self._timeouts: tuple[Identification | None, int, Profile | None, Timeouts] | None = None
        self.wear = WearTally()
        """Erases of every program run on this target since the chip ledger last took them."""

    # ------------------------------------------------------------------ basics

    @property
    def profile(self) -> Profile:
        """The profile the bench declares (needed for offsets and vendor operations)."""
        profile = self.transport.profile
        if profile is None:
            raise UnsupportedCapability(
                f"bench {self.transport.url} declares no chip profile: read offsets and vendor "
                "operations need one (give ?profile=... in the bench URL)"
            )
        return profile

    @property
    def identification(self) -> Identification:
        """What identification learned (identifies on first use)."""
        return self._identified()[0]

    @property
    def geometry(self) -> ChipGeometry:
        """Geometry decoded from the parameter page (identifies on first use)."""
        return self._identified()[1]

    def _identified(self) -> tuple[Identification, ChipGeometry]:
        if self._ident is None or self._geometry is None:
            self.identify(reset=False)
        assert self._ident is not None and self._geometry is not None
        return self._ident, self._geometry

    @property
    def timing_mode(self) -> int:
        """SDR timing mode the chip layer believes the target is in."""
        return self._timing_mode

    @property
    def sdr(self) -> SdrTiming:
        """The ONFI delays of the current SDR timing mode."""
        return sdr(self._timing_mode)

    @property
    def timeouts(self) -> Timeouts:
        """tR / tPROG / tBERS from the parameter page (a default before it is read), and tFEAT
        (ONFI's 1 us, or the profile's when longer), each x TIMEOUT_SAFETY."""
        kept, profile = self._timeouts, self.transport.profile
        if (kept is not None and kept[0] is self._ident and kept[1] == self._timing_mode
                and kept[2] is profile):
            return kept[3]
        feat_ns = self.sdr.tFEAT
        if profile is not None:
            feat_ns = max(feat_ns, round(profile.timing.t_feat_us * 1000))
        timeouts = Timeouts(
            read=self._declared_timeout("t_r_us"),
            program=self._declared_timeout("t_prog_us"),
            erase=self._declared_timeout("t_bers_us"),
            feature=feat_ns * TIMEOUT_SAFETY,
        )
        self._timeouts = (self._ident, self._timing_mode, profile, timeouts)
        return timeouts

    def _declared_timeout(self, field: str) -> int:
        if self._ident is None:
            return DEFAULT_TIMEOUT_NS
        us = int(self._ident.fields.get(field) or 0)
        if us <= 0:
            return DEFAULT_TIMEOUT_NS
        return min(U32_MAX, us * 1000 * TIMEOUT_SAFETY)

    @property
    def t_ccs(self) -> int:
        """tCCS (ns): the parameter page's, else ONFI's for the current mode."""
        if self._ident is not None and self._ident.fields.get("t_ccs_ns"):
            return int(self._ident.fields["t_ccs_ns"])
        return self.sdr.tCCS

    def run(self, program: Program, what: str) -> Results:
        """Run `program` (a sequence without CE) on this target; raise on any error record.

        NandTimeout when R/B# stayed low past a WAIT_RDY timeout, TransportError for
        any other error the bench reports; `what` names the operation in the message.
        """
        results = self.transport.run(Program().ce(self.ce) + program)
        # an erase that ends in an error record may still have stressed the block: count it
        self.wear.count(program, self._geometry)
        return self.raise_errors(results, what)

    def raise_errors(self, results: Results, what: str) -> Results:
        """`results` when they hold no error record; else NandTimeout or TransportError."""
        for err in results.errors:
            if err.code == ErrorCode.TIMEOUT:
                raise NandTimeout(
                    f"{what}: R/B# stayed low past the timeout (CE {self.ce}, "
                    f"instruction {err.index})"
                )
            raise TransportError(
                f"{what}: the bench reported error {ErrorCode(err.code).name} at "
                f"instruction {err.index} (CE {self.ce})"
            )
        return results

    def require(self, capability: str, what: str) -> None:
        """Raise UnsupportedCapability unless the profile declares the vendor operation
        `capability` and the bench supports it; `what` names the caller's operation."""
        profile = self.transport.profile
        section = getattr(profile.vendor, capability, None) if profile is not None else None
        if section is None:
            name = profile.name if profile is not None else "(none)"
            raise UnsupportedCapability(
                f"{what} needs the vendor operation '{capability}', but the profile {name} has "
                f"no vendor.{capability} section"
            )
        if not self.transport.supports(capability):
            raise UnsupportedCapability(
                f"{what} needs '{capability}', which bench {self.transport.url} does not support"
            )

    def array_op(self, body: Program, *, slc: bool, what: str) -> Program:
        """`body` as an SLC operation (needs vendor.slc_mode) or a native one.

        The vendor SLC mode is sticky on the die, so an SLC operation enters and
        leaves it; a native one first leaves it, in case an aborted program left
        the die in SLC mode.
        """
        if slc:
            self.require("slc_mode", f"SLC mode for {what}")
        profile = self.transport.profile
        return array_mode(profile.vendor.slc_mode if profile is not None else None, slc, body)

    def run_array(self, body: Program, *, slc: bool, what: str) -> Results:
        """Run `body` as an SLC or native array operation (`array_op`)."""
        return self.run(self.array_op(body, slc=slc, what=what), what)

    def check_status(self, results: Results, what: str, *, cache: bool = False) -> int:
        """The last data record's status byte; ChipStatusFail on FAIL (and FAILC with cache=True,
        the previous cached page)."""
        status = data_records(results)[-1][0]
        if status & (Status.FAIL | (Status.FAILC if cache else 0)):
            wp = "" if status & Status.WP_N else " (WP# is low: the target is write protected)"
            raise ChipStatusFail(f"{what}: status {status:02X}h reports FAIL{wp}")
        return status

    # ------------------------------------------------------------ identify

    def identify(self, *, reset: bool = True) -> Identification:
        """RESET (optional), READ ID 00h / 20h, parameter page, READ UNIQUE ID.

        Afterwards the chip addresses with the decoded geometry. Without
        reset, the target keeps its timing mode, which is read back (GET
        FEATURES 01h) so the bench switches to it too. Raises NotOnfiChip,
        ParameterPageCRCError, UniqueIdError, and ProfileMismatch when the
        parameter page disagrees with the bench's profile.
        """
        if reset:
            self.reset()
        ident, geometry = identify_target(self, self.transport.profile)
        self._ident, self._geometry = ident, geometry
        if not reset:
            mode = self.get_feature(Feature.TIMING_MODE)[0] & 0x0F
            if mode != self._timing_mode and mode in _supported_modes(ident.fields):
                self.run(Program().timing(mode), f"TIMING mode {mode}")
                self._timing_mode = mode
        return ident

    def reset(self) -> int:
        """RESET (FFh); the target returns to SDR timing mode 0. Returns busy ns."""
        results = self.run(core.reset(self.sdr, RESET_TIMEOUT_NS), "RESET")
        self._timing_mode = 0
        return sum(busy_steps(results))

    def read_id(self, address: int, n: int) -> bytes:
        """READ ID (90h) at `address` (00h JEDEC, 20h ONFI): `n` bytes."""
        return self._read_bytes(core.read_id(self.sdr, address, n), f"READ ID {address:02X}h")

    def read_parameter_pages(self, copies: int) -> bytes:
        """READ PARAMETER PAGE (ECh): `copies` x 256 bytes as read."""
        n = PARAMETER_PAGE_BYTES * copies
        seq = core.read_parameter_page(self.sdr, n, self.timeouts.read)
        return self._read_bytes(seq, "READ PARAMETER PAGE")

    def read_parameter_bytes(self, address: int, n: int) -> bytes:
        """READ PARAMETER PAGE (ECh) at `address` (40h: the JEDEC page): `n` bytes as read."""
        seq = core.read_parameter_page(self.sdr, n, self.timeouts.read, address)
        return self._read_bytes(seq, f"READ PARAMETER PAGE {address:02X}h")

    def read_unique_id_raw(self, copies: int) -> bytes:
        """READ UNIQUE ID (EDh): `copies` x (16 id bytes + 16 complement bytes)."""
        n = 2 * UNIQUE_ID_BYTES * copies
        seq = core.read_unique_id(self.sdr, n, self.timeouts.read)
        return self._read_bytes(seq, "READ UNIQUE ID")

    def _read_bytes(self, program: Program, what: str) -> bytes:
        return data_records(self.run(program, what))[0]

    # ------------------------------------------------------- status, features

    def status(self) -> int:
        """READ STATUS (70h): the status byte (see onfi_spec.opcodes.Status)."""
        return self._read_bytes(core.read_status(self.sdr), "READ STATUS")[0]

    def status_enhanced(self, block: int) -> int:
        """READ STATUS ENHANCED (78h) of the plane / LUN holding `block`."""
        geo = self.geometry
        geo.check_block(block)
        seq = core.read_status_enhanced(self.sdr, geo.row_bytes(block))
        return self._read_bytes(seq, f"READ STATUS ENHANCED block {block}")[0]

    def get_feature(self, fa: int) -> bytes:
        """GET FEATURES (EEh) at feature address `fa`: P1..P4."""
        _check_byte("feature address", fa)
        seq = core.get_features(self.sdr, fa, self.timeouts.feature)
        return self._read_bytes(seq, f"GET FEATURES {fa:02X}h")

    def set_feature(self, fa: int, params: bytes, *, allow_test_mode: bool = False) -> int:
        """SET FEATURES (EFh) at `fa` with P1..P4 (4 bytes). Returns busy ns (tFEAT).

        A real part ignores a write it cannot take (an address it does not implement, a
        timing mode it does not list) and says nothing, so the write is checked here
        before anything is sent: RangeError for those, RefusedOperation for a test-mode
        address (ESP, sensing time, MWS override) without `allow_test_mode`. With it, such
        a write is sent inside the test mode, the only place the part takes it.
        """
        _check_byte("feature address", fa)
        if len(params) != 4:
            raise RangeError(f"SET FEATURES takes 4 parameter bytes (P1..P4), got {len(params)}")
        role = self._check_feature_write(fa, bytes(params), allow_test_mode)
        what = f"SET FEATURES {fa:02X}h"
        seq = core.set_features(self.sdr, fa, bytes(params), self.timeouts.feature)
        if role is FeatureRole.TEST_MODE:
            self.require("test_mode", what)
            mode = self.profile.vendor.test_mode
            assert mode is not None  # require() raised otherwise
            seq = in_test_mode(mode, seq)
        return sum(busy_steps(self.run(seq, what)))

    def _check_feature_write(self, fa: int, params: bytes, allow_test_mode: bool) -> FeatureRole:
        fields = self.identification.fields
        if not int(fields["optional_commands"]) & parampage.PP_OPT_FEATURES:
            raise UnsupportedCapability(
                "the parameter page does not list GET / SET FEATURES among the optional commands"
            )
        if fa == Feature.TIMING_MODE:
            self._check_timing_mode(params[0] & 0x0F, params[0] >> 4)
            return FeatureRole.TIMING_MODE
        declared = declared_features(self.profile)
        role = declared.get(fa)
        if role is None:
            known = ", ".join(f"{a:02X}h ({r.value})" for a, r in sorted(declared.items()))
            raise RangeError(
                f"feature address {fa:02X}h is not implemented by {self.profile.name} (a real "
                f"part ignores such a write without an error): implemented {known}"
            )
        if role is FeatureRole.TEST_MODE and not allow_test_mode:
            raise RefusedOperation(
                f"feature address {fa:02X}h is a test-mode setting of {self.profile.name}: "
                "pass allow_test_mode (--allow-test-mode) to write it"
            )
        return role

    def _check_timing_mode(self, mode: int, interface: int) -> None:
        allowed = _supported_modes(self.identification.fields)
        if interface:
            name = {1: "NV-DDR", 2: "NV-DDR2", 3: "NV-DDR3"}.get(interface, "reserved")
            raise RangeError(
                f"interface bits {interface:#x} ({name}): a data interface is switched together "
                "with the bench and its 02h configuration, by interface negotiation "
                "(Chip.negotiate_interface / use_interface; nandlab info shows what it takes)"
            )
        if mode not in allowed:
            raise RangeError(
                f"SDR timing mode {mode} is not supported by this part (per its parameter "
                f"page): allowed {', '.join(map(str, allowed))}"
            )

    def set_timing_mode(self, mode: int) -> None:
        """Switch the target and the bench to SDR timing `mode` (one the parameter page lists).

        Reads feature 01h back, as Linux does, since a part ignores a mode it cannot take;
        FeatureNotAccepted when the target did not switch.
        """
        if not isinstance(mode, int) or not 0 <= mode <= 0x0F:
            raise RangeError(f"SDR timing mode {mode!r} is not one of 0..5")
        self._check_timing_mode(mode, 0)
        seq = core.set_timing_mode(self.sdr, mode, self.timeouts.feature)
        self.run(seq, f"SET FEATURES timing mode {mode}")
        self._timing_mode = mode
        now = self.get_feature(Feature.TIMING_MODE)[0]
        if now != mode:
            raise FeatureNotAccepted(
                f"the target did not take SDR timing mode {mode}: feature 01h reads {now:02X}h"
            )

    def set_write_protect(self, protect: bool) -> None:
        """Drive WP# (low = protected): program and erase then fail with status FAIL."""
        self.run(core.write_protect(protect), "GPIO WP#")

    # ---------------------------------------------------------- read offsets

    def _reference(self, ref_index: int, slc: bool) -> ReadReference:
        offsets = self.profile.read_offsets
        if slc:
            return offsets.slc_reference
        refs = offsets.references
        if not 0 <= ref_index < len(refs):
            raise RangeError(
                f"read reference {ref_index} does not exist on {self.profile.name}: "
                f"allowed 0..{len(refs) - 1} ({', '.join(r.name for r in refs)})"
            )
        return refs[ref_index]

    def read_offsets_mV(self) -> dict[str, float]:
        """Current offset of every read reference (native ones, then the SLC one), in mV."""
        offsets = self.profile.read_offsets
        out: dict[str, float] = {}
        cache: dict[int, bytes] = {}
        for ref in [*offsets.references, offsets.slc_reference]:
            if ref.feature not in cache:
                cache[ref.feature] = self.get_feature(ref.feature)
            code = int(np.int8(np.uint8(cache[ref.feature][ref.param])))
            out[ref.name] = code * offsets.step_mV
        return out

    def set_read_offset_code(self, ref_index: int, code: int, *, slc: bool = False) -> None:
        """Set read reference `ref_index` (or the SLC one) to offset `code` DAC steps."""
        offsets = self.profile.read_offsets
        ref = self._reference(ref_index, slc)
        step = offsets.step_mV
        if not isinstance(code, int) or not offsets.code_min <= code <= offsets.code_max:
            raise RangeError(
                f"read offset code {code} for {ref.name} is out of range: allowed codes "
                f"{offsets.code_min}..{offsets.code_max}, i.e. {offsets.code_min * step:g}.."
                f"{offsets.code_max * step:g} mV in steps of {step:g} mV"
            )
        params = bytearray(self.get_feature(ref.feature))
        params[ref.param] = code & 0xFF
        self.set_feature(ref.feature, bytes(params))

    def set_read_offset_mV(self, ref_index: int, mV: float, *, slc: bool = False) -> None:
        """Set a read reference offset in mV (a whole number of DAC steps)."""
        offsets = self.profile.read_offsets
        ref = self._reference(ref_index, slc)
        if not math.isfinite(mV):
            raise RangeError(f"read offset {mV} mV for {ref.name}: give a finite number")
        code = round(mV / offsets.step_mV)
        lo, hi = offsets.code_min * offsets.step_mV, offsets.code_max * offsets.step_mV
        if abs(code * offsets.step_mV - mV) > 1e-6 or not lo <= mV <= hi:
            raise RangeError(
                f"read offset {mV:g} mV for {ref.name} is not allowed: {lo:g}..{hi:g} mV "
                f"in steps of {offsets.step_mV:g} mV"
            )
        self.set_read_offset_code(ref_index, code, slc=slc)

    def reset_read_offsets(self) -> None:
        """Set every read reference offset (native and SLC) back to 0."""
        offsets = self.profile.read_offsets
        touched: dict[int, bytearray] = {}
        for ref in [*offsets.references, offsets.slc_reference]:
            if ref.feature not in touched:
                touched[ref.feature] = bytearray(self.get_feature(ref.feature))
            touched[ref.feature][ref.param] = 0
        for fa, params in touched.items():
            self.set_feature(fa, bytes(params))


def _supported_modes(fields: dict[str, object]) -> list[int]:
    """SDR timing modes the parameter page declares (bit per mode)."""
    bits = int(fields.get("sdr_timing_modes") or 1)  # type: ignore[call-overload]
    return [m for m in range(6) if bits >> m & 1]


def _check_byte(what: str, value: int) -> None:
    if not isinstance(value, int) or not 0 <= value <= 0xFF:
        raise RangeError(f"{what} {value!r} is not a byte: allowed 0x00..0xFF")
