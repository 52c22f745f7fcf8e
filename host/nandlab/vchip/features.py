"""Feature registers of a virtual die (SET / GET FEATURES), volatile until RESET.

Each implemented feature address (`profiles.features.declared_features`)
holds 4 parameter bytes (P1..P4), zeros until written. The read-offset
registers hold signed DAC codes (two's complement), clamped to the profile's
code range and scaled by its step.

Writes a real part ignores are ignored here too, and GET FEATURES then
returns what the register held before: an address the part does not
implement (reads back zeros), a test-mode register (ESP, sensing time, MWS
override) outside the test mode, and a timing mode (01h) the part does not
list or a data interface it lacks (its profile's `interfaces`), and an
NV-DDR2 / NV-DDR3 configuration (02h) asking for ODT, complementary RE / DQS
or warm-up cycles it does not offer. Datasheets specify no error for these:
SET FEATURES always ends with R/B# high after tFEAT and an unchanged status,
so a controller learns of it only by reading back (Linux does for 01h). The
host therefore checks the write before sending it (`onfi.target`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from nandlab.onfi_spec.ddr_features import (
    REPEAT_IN_COMMANDS,
    REPEAT_OUT_COMMANDS,
    WARMUP_CYCLES,
    DdrConfig,
    decode_timing_mode,
)
from nandlab.onfi_spec.nvddr_timing import ddr
from nandlab.onfi_spec.opcodes import Feature
from nandlab.profiles.features import declared_features, testmode_features
from nandlab.profiles.model import Profile, ReadReference

FEATURE_BYTES = 4
DDR_COMMAND_SDR_MODE = 4
"""NV-DDR2 / NV-DDR3 latch commands and addresses with WE_n at tWC 25 ns, SDR mode 4's cycle:
the die's clock runs those cycles (and the benches' SDR syncs) in that mode."""


def signed_code(raw: int) -> int:
    """A feature byte read as a two's complement DAC code."""
    return raw - 256 if raw & 0x80 else raw


class FeatureRegisters:
    def __init__(self, profile: Profile) -> None:
        self._ro = profile.read_offsets
        self._modes = {
            "sdr": list(profile.timing.sdr_modes),
            "nv-ddr2": profile.interfaces.nv_ddr2_modes,
            "nv-ddr3": profile.interfaces.nv_ddr3_modes,
        }
        self._interfaces = profile.interfaces
        self._toggle: int | None = None  # Toggle speed grade the bench drives (no feature)
        self._command: int | None = None  # the last command latched (its bytes may repeat)
        self._warm = False  # a data burst is under way: no warm-up until a command / address
        self._implemented = frozenset(declared_features(profile))
        self._test_registers = testmode_features(profile)
        self._params: dict[int, bytes] = {}

    def get(self, fa: int) -> bytes:
        """P1..P4 of feature address `fa` (zeros if never written)."""
        return self._params.get(fa, bytes(FEATURE_BYTES))

    def set(self, fa: int, params: bytes, test_mode: bool) -> bool:
        """SET FEATURES `fa`; False when the die ignores the write."""
        if fa not in self._implemented:
            return False
        if fa in self._test_registers and not test_mode:
            return False
        if fa == Feature.TIMING_MODE and not self._timing_ok(params):
            return False  # an interface or mode the part lacks: ignored, as silicon does
        if fa == Feature.NV_DDR_CONFIG and not self._ddr_config_ok(params):
            return False
        self._params[fa] = params
        return True

    def _timing_ok(self, params: bytes) -> bool:
        decoded = decode_timing_mode(params[0])
        if decoded is None or any(params[1:4]):
            return False
        interface, mode = decoded
        return mode in self._modes.get(interface, [])

    def _ddr_config_ok(self, params: bytes) -> bool:
        c, offer = DdrConfig.decode(params), self._interfaces
        return c is not None and not (
            (c.odt and not offer.odt)
            or (c.re_c and not offer.differential_re)
            or (c.dqs_c and not offer.differential_dqs)
            or max(c.warmup_out, c.warmup_in) > offer.warmup_code
        )

    def follow_toggle(self, mode: int | None) -> bool:
        """The bench drives Toggle DDR at speed grade `mode` (None: it left Toggle). A Toggle
        part has no interface feature: it moves data at the rate the host strobes, within
        the grades its profile lists; False (and no change) for a grade it lacks."""
        if mode is not None and mode not in self._interfaces.toggle_modes:
            return False
        self._toggle = mode
        return True

    def data_interface(self) -> tuple[str, int]:
        """(interface, mode) feature 01h selects: ("sdr", 0) after power-on and RESET; on a
        Toggle part the speed grade the bench drives (`follow_toggle`)."""
        if self._toggle is not None:
            return "toggle2", self._toggle
        decoded = decode_timing_mode(self.get(Feature.TIMING_MODE)[0])
        assert decoded is not None  # set() stores only decodable values
        return decoded

    def byte_ps(self, sdr_cycle_ns: int) -> int:
        """Time of one data byte (ps): the SDR cycle `sdr_cycle_ns` (tRC out, tWC in), or half
        the selected DDR mode's tRC (two bytes per RE_n / DQS cycle)."""
        interface, mode = self.data_interface()
        return sdr_cycle_ns * 1000 if interface == "sdr" else ddr(interface, mode).tRC // 2

    def bus_command(self, byte: int) -> None:
        """A command cycle: it ends the data burst and says whether the next one repeats."""
        self._command, self._warm = byte, False

    def bus_address(self) -> None:
        """An address cycle ends the data burst (the next one warms up again)."""
        self._warm = False

    def data_burst(self, sdr_cycle_ns: int, out: bool) -> tuple[int, int]:
        """(lead, step) in ps of a run of data bytes: byte k starts lead + k x step after the
        run starts. In NV-DDR2 / NV-DDR3 the first run after a command or an address leads
        with the warm-up cycles feature 02h asks for (data out or in; two edges a cycle), and
        each byte of a command whose bytes repeat (REPEAT_OUT_COMMANDS / REPEAT_IN_COMMANDS)
        takes two edges. SDR and Toggle: no lead, one `byte_ps` a byte."""
        byte_ps = self.byte_ps(sdr_cycle_ns)
        interface = self.data_interface()[0]
        if interface not in ("nv-ddr2", "nv-ddr3"):
            return 0, byte_ps
        config = self.ddr_config()
        cycles = 0 if self._warm else WARMUP_CYCLES[config.warmup_out if out else config.warmup_in]
        self._warm = True
        repeat = 2 if self._command in (REPEAT_OUT_COMMANDS if out else REPEAT_IN_COMMANDS) else 1
        return 2 * cycles * byte_ps, repeat * byte_ps

    def command_sdr_mode(self) -> int:
        """The SDR mode whose cycles the die's clock runs commands and addresses in."""
        interface, mode = self.data_interface()
        return mode if interface == "sdr" else DDR_COMMAND_SDR_MODE

    def ddr_config(self) -> DdrConfig:
        """The NV-DDR2 / NV-DDR3 configuration feature 02h holds."""
        decoded = DdrConfig.decode(self.get(Feature.NV_DDR_CONFIG))
        assert decoded is not None
        return decoded

    def clear(self) -> None:
        self._params = {}
        self._toggle = None
        self._command, self._warm = None, False

    def offset_mV(self, fa: int, param: int) -> float:
        """Read offset (mV) that parameter `param` of feature `fa` sets."""
        ro = self._ro
        code = signed_code(self.get(fa)[param])
        return min(max(code, ro.code_min), ro.code_max) * ro.step_mV

    def reference_mV(self, ref: ReadReference) -> float:
        """A read reference with its offset register applied."""
        return ref.default_mV + self.offset_mV(ref.feature, ref.param)

    def state(self) -> dict[str, list[int]]:
        return {str(fa): list(v) for fa, v in sorted(self._params.items())}

    def load(self, saved: Mapping[str, Sequence[int]]) -> None:
        self._params = {int(fa): bytes(int(b) & 0xFF for b in v) for fa, v in saved.items()}
