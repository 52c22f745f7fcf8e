"""`rtl://<profile>?firmware=<elf>`: the board CPU's firmware in the loop, as a bench.

The cross-built ELF runs on PicoRV32 beside the real `nandlab_core`
(firmware/sim/nandlab_fw_soc.sv) with a virtual die on the ONFI pins, under
Icarus; the host talks to it only through the mailbox registers and shared
RAM (`nandlab.firmware.Mailbox`), as it would to a board over PCIe. Op
programs the host runs go through RUN_PROGRAM; the bench declares the
`firmware` role (`nandlab.firmware.loops.MailboxLoops`), so campaign loops
(`pe_loop` and the others of `nandlab.campaign.steps.onboard`) run on the CPU.

    rtl://?profile=host/nandlab/rtlsim/slc-tb-tiny.yaml&firmware=firmware/build/nandlab.elf

Options as `rtl://` (profile, seed; one die) plus firmware=PATH (an ELF from
`make -C firmware`). As on a board, the CPU boots the image its BRAM was built
with (here the checkout's firmware/build/nandlab.elf, made if missing) and the
host loads PATH through the mailbox (`Mailbox.load_firmware`, the LOAD command)
when it differs. Needs a repository checkout, Icarus (`iverilog`), cocotb,
`pythondata-cpu-picorv32` and the RISC-V toolchain (for the boot image).
The session holds every permit for the host's own programs. Slow: the CPU
and the bus are simulated clock by clock (a minute or more to boot and run a
few loops on the test die).
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nandlab.errors import TransportError
from nandlab.firmware import Mailbox, Permit
from nandlab.firmware.image import load_elf, readmemh
from nandlab.firmware.loops import MailboxLoops
from nandlab.ops import Program, Results, decode_results
from nandlab.profiles import Profile, load_profile
from nandlab.rtlsim import frames
from nandlab.transport.base import Transport
from nandlab.transport.roles import Roles

TOPLEVEL = "nandlab_fw_soc"
SIM = "icarus"
CLK_PS = 10_000
CSR_BASE, SHARED_BASE = 0x4000_0000, 0x3000_0000
CONNECT_TIMEOUT_S = 600.0
POLL_CLOCKS = 200
SOCKET_ENV = "NANDLAB_FW_SOCKET"
"""Where nandlab.rtlsim.fw_server connects (its frames are this module's `_Port`'s)."""
_U32 = struct.Struct("<I")


def harness_dir() -> Path:
    """firmware/sim of the checkout this package runs from."""
    return Path(__file__).resolve().parents[3] / "firmware" / "sim"


def _boot_image() -> list[int]:
    """The BRAM's image at power-up: the checkout's own firmware build (as the
    bitstream's, hw/vivado/kcu105/cpu.tcl), made if it is not there."""
    elf = harness_dir().parent / "build" / "nandlab.elf"
    if not elf.is_file():
        if shutil.which("riscv64-unknown-elf-gcc") is None:
            raise TransportError("rtl://...?firmware= needs the RISC-V toolchain for its boot "
                                 "image (Debian: gcc-riscv64-unknown-elf, make setup)")
        subprocess.run(["make", "-s", "-C", str(elf.parents[1]), "all"], check=True,
                       capture_output=True)
    return load_elf(elf.read_bytes())


class _Port:
    """RegisterIO and SharedRAM over the simulation's socket (fw_server.py frames)."""

    def __init__(self, sock: socket.socket, log: Path) -> None:
        self.sock, self.log = sock, log

    def _call(self, payload: bytes) -> bytes:
        try:
            return frames.request(self.sock, payload)
        except frames.FrameError as exc:
            raise TransportError(str(exc)) from None
        except OSError as exc:
            raise TransportError(f"the firmware simulation stopped ({exc}); log: {self.log}") \
                from None

    def read32(self, offset: int) -> int:
        return int(_U32.unpack(self._call(b"R" + _U32.pack(CSR_BASE + offset)))[0])

    def write32(self, offset: int, value: int) -> None:
        self._call(b"W" + _U32.pack(CSR_BASE + offset) + _U32.pack(value))

    def read_words(self, offset: int, n: int) -> list[int]:
        return [int(_U32.unpack(self._call(b"R" + _U32.pack(SHARED_BASE + offset + 4 * i)))[0])
                for i in range(n)]

    def write_words(self, offset: int, words: Sequence[int]) -> None:
        for i, w in enumerate(words):
            self._call(b"W" + _U32.pack(SHARED_BASE + offset + 4 * i) + _U32.pack(w))

    def wait(self) -> None:
        self._call(b"C" + _U32.pack(POLL_CLOCKS))


class FirmwareRtlTransport(Transport):
    """The firmware-in-the-loop harness with one die of `profile` and `seed` on CE 0."""

    def __init__(self, profile: str | Path, *, seed: int, firmware: Path,
                 url: str | None = None) -> None:
        from nandlab.rtlsim import sim_env

        profile_ref = str(profile)
        if Path(profile_ref).suffix in (".yaml", ".yml"):
            profile_ref = str(Path(profile_ref).resolve())
        self._profile = load_profile(profile_ref)
        self.url = url or f"rtl://?profile={profile_ref}&seed={seed}&firmware={firmware}"
        elf = Path(firmware).resolve()
        if not elf.is_file():
            raise TransportError(f"no firmware ELF at {elf}: build it with make -C firmware")
        try:
            sim_env.check_simulator(SIM)
            import pythondata_cpu_picorv32
        except (sim_env.SimulatorMissing, ImportError) as exc:
            raise TransportError(f"rtl://...?firmware= cannot simulate: {exc}") from None
        wanted = load_elf(elf.read_bytes())
        boot = _boot_image()
        self._tmp = tempfile.TemporaryDirectory(prefix="nandlab-fw-rtl-")
        tmp = Path(self._tmp.name)
        image = tmp / "boot.hex"
        image.write_text(readmemh(boot))
        parameters = {"CLK_PERIOD_PS": CLK_PS}
        folder = sim_env.build_dir_for(TOPLEVEL, SIM, parameters)
        runner = sim_env.runner_for(SIM)
        try:
            runner.build(
                sources=[*sim_env.rtl_sources(None),
                         Path(pythondata_cpu_picorv32.data_location) / "picorv32.v",
                         harness_dir() / f"{TOPLEVEL}.sv"],
                includes=[sim_env.RTL_DIR / "include"], hdl_toplevel=TOPLEVEL,
                build_dir=folder, parameters=parameters, timescale=sim_env.TIMESCALE,
                log_file=folder / "build.log")
        except (RuntimeError, SystemExit):
            raise TransportError(f"Icarus failed to build {TOPLEVEL}; log: "
                                 f"{folder / 'build.log'}") from None
        path = str(tmp / "host.sock")
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(path)
        self._listener.listen(1)
        from nandlab.rtlsim.ctrl_bench import BenchConfig

        env = {**BenchConfig(profile=profile_ref, seed=seed, clk_ps=CLK_PS).to_env(),
               SOCKET_ENV: path}
        self.log_path = tmp / "sim.log"
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._simulate, args=(runner, folder, tmp, image, env),
            name="fw-rtl-sim", daemon=True)
        self._thread.start()
        self._sock = self._accept()
        self._closed = False
        port = _Port(self._sock, self.log_path)
        self.mailbox = Mailbox(port, port, port.wait)
        if wanted != boot:
            self.mailbox.load_firmware(wanted)
        self.mailbox.session(Permit.ERASE | Permit.PROGRAM | Permit.TEST_MODE)
        self._roles = Roles(firmware=MailboxLoops(
            self.mailbox, standing=Permit.ERASE | Permit.PROGRAM | Permit.TEST_MODE))

    def _simulate(self, runner: Any, folder: Path, tmp: Path, image: Path,
                  env: dict[str, str]) -> None:
        try:
            runner.test(hdl_toplevel=TOPLEVEL, hdl_toplevel_lang="verilog",
                        test_module="nandlab.rtlsim.fw_server", build_dir=folder,
                        test_dir=tmp / "run",
                        extra_env=env, timescale=("1ns", "1ps"),
                        plusargs=[f"+firmware={image}"], log_file=self.log_path)
        except BaseException as exc:  # reported by the next access / close()
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
                    raise TransportError(f"the firmware simulation ended before it booted "
                                         f"({self._error}); log: {self.log_path}") from None
                continue
            conn.settimeout(None)
            return conn
        raise TransportError(f"the firmware simulation did not connect; log: {self.log_path}")

    @property
    def targets(self) -> int:
        return 1

    @property
    def profile(self) -> Profile:
        return self._profile

    @property
    def roles(self) -> Roles:
        """`firmware`: the loops of firmware/src/loops.c, through the mailbox."""
        return self._roles

    def run(self, program: Program) -> Results:
        """Through the firmware's RUN_PROGRAM (permit check, watchdog, the sequencer)."""
        if self._closed:
            raise TransportError(f"bench {self.url} is closed")
        words = self.mailbox.run_program(program.encode(), stream_errors=True)
        return decode_results(b"".join(w.to_bytes(4, "little") for w in words))

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "firmware": self.mailbox.version()}

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
