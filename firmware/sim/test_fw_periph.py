"""Firmware in the loop, the board CPU's peripherals: the I2C master and the PWM
of hw/rtl/nandlab_cpu_periph.sv, driven by the cross-built firmware on PicoRV32,
with datasheet models of an INA226 (0x40) and a TMP117 (0x48) on the I2C pins and
a thermal plant on the PWM pin (nandlab.rtlsim.fw_i2c). The host is the unchanged
nandlab.firmware.Mailbox.

Proofs: the firmware's current reading is the model's within the INA226's
resolution, and 0 before its first conversion; the temperature read is the
sensor's to the bit; a temperature limit stops work; the PI loop brings the plant
to its setpoint as the native test (firmware/tests/test_thermal.c) does, with the
same socket run 1000 times faster and the gains set to match over the mailbox;
the bus keeps I2C fast-mode timing throughout. And the loader: a build of another
version, sent through LOAD, is the firmware that answers afterwards.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import cocotb
import pytest
from cocotb.simtime import get_sim_time
from cocotb.task import bridge, resume
from cocotb.triggers import Timer
from nandlab.firmware import FirmwareLimit, Mailbox, Monitor
from nandlab.firmware.image import load_elf
from nandlab.rtlsim import fw_harness
from nandlab.rtlsim.ctrl_bench import BenchConfig
from nandlab.rtlsim.fw_harness import HostPort
from nandlab.rtlsim.fw_i2c import I2cTargets, ThermalPlant, TimedIna226, Tmp117
from nandlab.rtlsim.programs import Programs

MODULE = Path(__file__).stem
INA_ADDR, TMP_ADDR = 0x40, 0x48
SHUNT_MOHM, MAX_MA = 100.0, 500
# Native test's socket, 1000 x faster: tau 60 s -> 60 ms, dead time 2 s -> 2 ms
SCALE = 1e-3
LOADED_MINOR = 0x7F
IMAGE_ENV = "NANDLAB_FW_LOAD_ELF"


async def _boot(dut: Any) -> tuple[HostPort, Programs]:
    profile = BenchConfig().load_profile()
    await fw_harness.boot(dut, profile, 1)
    return HostPort(dut), Programs(profile)


@resume
async def _sleep_ns(ns: float) -> None:
    await Timer(ns, unit="ns")


@cocotb.test(timeout_time=40, timeout_unit="ms")
async def test_power_and_temperature_over_i2c(dut: Any) -> None:
    port, progs = await _boot(dut)
    current_uA = 123_456.0
    ina = TimedIna226(lambda: current_uA, SHUNT_MOHM)
    tmp = Tmp117(lambda: 31.25)
    targets = I2cTargets(dut, {INA_ADDR: ina, TMP_ADDR: tmp})
    targets.start()

    @bridge
    def host() -> tuple[int, int, float]:
        mb = Mailbox(port, port, port.wait)
        # the firmware set the TMP117 converting at boot (~1 ms ago): its first result
        # takes 15.5 ms, and until then it reads 8000h, which is no reading
        mb.limits(max_C=40.0)
        with pytest.raises(FirmwareLimit, match="NO_SENSOR") as info:
            mb.run_program(progs.read_id(0x20, 4).encode())
        assert info.value.detail == 1
        mb.end_session()
        mb.monitor(Monitor.INA226, INA_ADDR, shunt_mOhm=SHUNT_MOHM, max_current_mA=MAX_MA)
        before = mb.current_uA()   # the first conversion (1.18 ms) has not ended
        _sleep_ns(2 * (ina.conversion_ns() or 0))
        after = mb.current_uA()
        _sleep_ns(16e6)
        mb.limits(max_C=40.0)
        mb.run_program(progs.read_id(0x20, 4).encode())   # 31.25 °C: under the limit
        mb.limits(max_C=30.0)
        with pytest.raises(FirmwareLimit, match="OVER_TEMP") as info:
            mb.run_program(progs.read_id(0x20, 4).encode())
        assert info.value.detail == 31250
        mb.end_session()
        read_C = mb.thermal(20.0)
        mb.thermal(None)
        return before, after, read_C

    before, after, read_C = await host()
    # the INA226's resolution here: its shunt ADC (2.5 uV over 100 mOhm = 25 uA) and
    # the current register's LSB (500 mA / 2^15 = 15.3 uA)
    tolerance = 2.5 / (SHUNT_MOHM / 1000) + MAX_MA * 1000 / 2**15
    assert before == 0
    assert abs(after - current_uA) <= tolerance, (after, current_uA, tolerance)
    assert read_C == 31.25   # 4000 x 7.8125 m°C
    assert (0x01, b"\x00\x00") in tmp.writes   # continuous, no averaging: 15.5 ms cycle
    assert targets.errors == []
    cocotb.log.info("current read %d uA, model %d uA", after, current_uA)


@cocotb.test(timeout_time=200, timeout_unit="ms")
async def test_thermal_loop_settles_on_the_pins(dut: Any) -> None:
    port, _ = await _boot(dut)
    plant = ThermalPlant(dut, temp_C=25.0, ambient_C=25.0, gain_K=50.0, tau_ns=60e9 * SCALE,
                         dead_ns=2e9 * SCALE, step_ns=10_000)
    sensor = Tmp117(plant.temp_C, time_scale=SCALE)
    targets = I2cTargets(dut, {TMP_ADDR: sensor})
    targets.start()
    plant.start()
    run_ns = 150e6   # 150 s of the native test's socket

    @bridge
    def host() -> float:
        mb = Mailbox(port, port, port.wait)
        # the native tuning (Kc 200 ‰/K, Ti 24 s, step 100 ms), its times scaled
        mb.thermal_gains(200.0, ti_s=24 * SCALE, period_s=0.1 * SCALE)
        start_C = mb.thermal(55.0)
        _sleep_ns(run_ns)
        return start_C

    t0 = float(get_sim_time("ns"))
    start_C = await host()
    trace = [(t - t0, c) for t, c in plant.trace if t >= t0]
    settled_ns = next(t for i, (t, _) in enumerate(trace)
                      if all(abs(c - 55.0) <= 0.5 for _, c in trace[i:]))
    peak = max(c for _, c in trace)
    cocotb.log.info("thermal: %d sensor reads in %.0f ms; every 10 ms: %s", sensor.result_reads,
                    run_ns / 1e6, [round(c, 2) for t, c in trace[::1000]])
    cocotb.log.info("thermal: settled within 0.5 C after %.1f ms (native 90 s), peak %.3f C, "
                    "end %.3f C", settled_ns / 1e6, peak, trace[-1][1])
    assert start_C == 25.0
    # the native test's bounds, scaled: settled within 120 s, overshoot under 2 °C,
    # on the setpoint to 0.1 °C at the end
    assert settled_ns < 120e6
    assert peak < 57.0
    assert abs(trace[-1][1] - 55.0) < 0.1
    assert targets.errors == []


@cocotb.test(timeout_time=30, timeout_unit="ms")
async def test_load_boots_another_image(dut: Any) -> None:
    port, progs = await _boot(dut)
    image = load_elf(Path(os.environ[IMAGE_ENV]).read_bytes())

    @bridge
    def host() -> tuple[tuple[int, int, int] | None, tuple[int, int, int] | None, list[int]]:
        mb = Mailbox(port, port, port.wait)
        before = mb.version()
        mb.load_firmware(image)
        after = mb.version()
        words = mb.run_program(progs.read_id(0x20, 4).encode())   # the new image serves
        return before, after, words

    before, after, words = await host()
    assert before == (1, 0, 1) and after == (1, 0, LOADED_MINOR)
    assert b"ONFI" in b"".join(w.to_bytes(4, "little") for w in words)
    assert int(dut.trap.value) == 0


@pytest.mark.parametrize("sim", ["verilator"])
def test_nandlab_fw_periph(tmp_path: Path, sim: str) -> None:
    """The cocotb tests above on the harness (Verilator: the thermal test simulates
    150 ms of a 100 MHz design); the loader's image is a build of version minor 0x7F."""
    other = tmp_path / "other"
    subprocess.run(["make", "-s", "-C", str(Path(__file__).resolve().parents[1]), "all",
                    f"BUILD={other}", f"FW_CFLAGS=-DFW_VERSION_MINOR={LOADED_MINOR}u"],
                   check=True, capture_output=True)
    total, failed, log = fw_harness.run_tests(MODULE, tmp_path, sim,
                                              extra_env={IMAGE_ENV: str(other / "nandlab.elf")})
    assert total == 3 and failed == 0, log.read_text()[-4000:]
