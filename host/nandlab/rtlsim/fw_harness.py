"""The firmware-in-the-loop harness seen from cocotb: its host port, and the boot
of PicoRV32 with a virtual die on the ONFI pins (nandlab_fw_soc.sv). Shared by
the harness's tests (test_fw_soc.py) and by the server behind
`rtl://<profile>?firmware=<elf>` (fw_server.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from cocotb.clock import Clock
from cocotb.task import resume
from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge, Timer

from nandlab.profiles import Profile
from nandlab.regs import REG
from nandlab.rtlsim.onfi_pins import OnfiPins
from nandlab.vchip.die import VirtualDie

TOPLEVEL = "nandlab_fw_soc"
CLK_PS = 10_000
CSR_BASE, SHARED_BASE = 0x4000_0000, 0x3000_0000
BOOT_POLLS = 300  # x 1000 clocks: picolibc's crt0 and fw_init take ~100 000


async def read_word(dut: Any, addr: int) -> int:
    """One host-port read: the address set between clock edges, the word sampled after
    the next edge (the shared RAM is a block RAM with a registered read)."""
    await FallingEdge(dut.clk)
    dut.host_addr.value = addr
    await RisingEdge(dut.clk)
    await Timer(1, unit="ns")
    return int(dut.host_rdata.value)


async def write_word(dut: Any, addr: int, value: int) -> None:
    """One host-port write (taken on the rising edge)."""
    await FallingEdge(dut.clk)
    dut.host_addr.value, dut.host_wdata.value = addr, value
    dut.host_we.value = 1
    await RisingEdge(dut.clk)
    await Timer(1, unit="ns")
    dut.host_we.value = 0


class HostPort:
    """The harness's host port as the blocking RegisterIO / SharedRAM Mailbox takes;
    every call hands control to the simulator (cocotb.resume) and waits for it."""

    def __init__(self, dut: Any) -> None:
        self.dut = dut
        self._read = resume(lambda addr: read_word(dut, addr))
        self._write = resume(lambda addr, value: write_word(dut, addr, value))
        self.wait = resume(self._await_cycles)
        self.commands = 0  # MBX_CMD writes: host round trips

    async def _await_cycles(self) -> None:
        await ClockCycles(self.dut.clk, 200)

    def read32(self, offset: int) -> int:
        return self._read(CSR_BASE + offset)

    def write32(self, offset: int, value: int) -> None:
        self.commands += offset == REG["MBX_CMD"].offset
        self._write(CSR_BASE + offset, value)

    def read_words(self, offset: int, n: int) -> list[int]:
        return [self._read(SHARED_BASE + offset + 4 * i) for i in range(n)]

    def write_words(self, offset: int, words: list[int]) -> None:
        for i, w in enumerate(words):
            self._write(SHARED_BASE + offset + 4 * i, w)


async def boot(dut: Any, profile: Profile, seed: int) -> VirtualDie:
    """Reset the harness with a fresh die of `profile` and `seed` on CE 0; wait until
    the firmware publishes its version."""
    Clock(dut.clk, CLK_PS, unit="ps").start()
    die = VirtualDie(profile, seed, 0)
    pins = OnfiPins(dut, [die], clk_ps=CLK_PS)
    dut.host_we.value, dut.host_addr.value, dut.host_wdata.value = 0, 0, 0
    dut.prof_en.value = 0
    dut.i2c_scl_pull.value, dut.i2c_sda_pull.value = 0, 0  # no I2C target until a test adds one
    dut.rst.value = 1
    pins.start()
    await ClockCycles(dut.clk, 8)
    dut.rst.value = 0
    version = REG["MBX_FW_VERSION"].offset
    for _ in range(BOOT_POLLS):
        await ClockCycles(dut.clk, 1000)
        if await read_word(dut, CSR_BASE + version):
            break
    else:
        raise AssertionError(f"the firmware never wrote MBX_FW_VERSION (CPU at "
                             f"0x{int(dut.u_sys.u_cpu.reg_pc.value):08X}, trap {dut.trap.value})")
    assert int(dut.trap.value) == 0
    return die


def run_tests(test_module: str, test_dir: Path, sim: str, plusargs: tuple[str, ...] = (),
              extra_env: dict[str, str] | None = None, toplevel: str = TOPLEVEL,
              parameters: dict[str, int] | None = None) -> tuple[int, int, Path]:
    """Cross-build the firmware into `test_dir`, build `toplevel` (the harness; or an
    hw/rtl top with the CPU subsystem, given its `parameters`) on `sim` (kept under
    hw/tb/build/<toplevel>/ for the next run) and run the cocotb tests of `test_module`
    (a module on sys.path, the caller's folder); (tests, failed, log)."""
    import pythondata_cpu_picorv32
    from cocotb_tools.runner import get_results

    from nandlab.rtlsim import sim_env

    firmware = sim_env.REPO / "firmware"
    subprocess.run(["make", "-s", "-C", str(firmware), "all", f"BUILD={test_dir}"],
                   check=True, capture_output=True)
    runner = sim_env.runner_for(sim)
    parameters = parameters or {"CLK_PERIOD_PS": CLK_PS}
    build = sim_env.build_dir_for(toplevel, sim, parameters)
    harness = [firmware / "sim" / f"{TOPLEVEL}.sv"] if toplevel == TOPLEVEL else []
    runner.build(
        sources=[*sim_env.rtl_sources(None),
                 Path(pythondata_cpu_picorv32.data_location) / "picorv32.v", *harness],
        includes=[sim_env.RTL_DIR / "include"], hdl_toplevel=toplevel, build_dir=build,
        parameters=parameters, timescale=sim_env.TIMESCALE,
        build_args=sim_env.VERILATOR_ARGS if sim == "verilator" else [],
        log_file=build / "build.log",
    )
    log = test_dir / "sim.log"
    results = runner.test(
        hdl_toplevel=toplevel, hdl_toplevel_lang="verilog", test_module=test_module,
        build_dir=build, test_dir=test_dir / "run", timescale=sim_env.TIMESCALE,
        plusargs=[f"+firmware={test_dir / 'nandlab.hex'}", *plusargs], log_file=log,
        extra_env=extra_env or {},
    )
    total, failed = get_results(results)
    return total, failed, log
