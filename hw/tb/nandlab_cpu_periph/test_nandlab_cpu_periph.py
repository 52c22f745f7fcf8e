"""Testbench of nandlab_cpu_periph: the board CPU's I2C master and PWM, alone.

The testbench is the CPU (one register access per clock on the block's bus, offsets
from the generated map nandlab.firmware._cpu_regs) and the bus's pull-ups: each line
is high unless the master's *_oe or a target pulls it. The targets are the datasheet
models of nandlab.rtlsim.fw_i2c (a TMP117 at 0x48), which also check fast-mode timing.
Checks: a register read with repeated START and a pointer write read back, a NACK from
an absent address, and the PWM's duty, period boundary and TEC direction pin.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, First, ReadOnly, RisingEdge
from nandlab.firmware._cpu_regs import REGISTERS
from nandlab.rtlsim.fw_i2c import I2cTargets, Tmp117
from nandlab.rtlsim.sim_env import build, run

TOPLEVEL = "nandlab_cpu_periph"
MODULE = Path(__file__).stem
MODULES = ["nandlab_i2c_master", "nandlab_pwm", "nandlab_cpu_periph"]
REG = {r.name: r for r in REGISTERS}
QUARTER = 65   # clocks of 10 ns: 650 ns, as the firmware sets for fast mode
TMP = 0x48


class _Pull:
    """A target's pull on one line (I2cTargets sets `.value`); the bus follows."""

    def __init__(self, bus: _Bus) -> None:
        self.bus, self._value = bus, 0

    @property
    def value(self) -> int:
        return self._value

    @value.setter
    def value(self, v: int) -> None:
        self._value = int(v)
        self.bus.update()


class _Bus:
    """The open-drain lines with their pull-ups, under the names I2cTargets uses."""

    def __init__(self, dut: Any) -> None:
        self.dut = dut
        self.i2c_scl, self.i2c_sda = dut.i2c_scl_i, dut.i2c_sda_i
        self.i2c_scl_pull, self.i2c_sda_pull = _Pull(self), _Pull(self)

    def update(self) -> None:
        self.dut.i2c_scl_i.value = int(not int(self.dut.i2c_scl_oe.value)
                                       and not self.i2c_scl_pull.value)
        self.dut.i2c_sda_i.value = int(not int(self.dut.i2c_sda_oe.value)
                                       and not self.i2c_sda_pull.value)

    async def follow(self) -> None:
        while True:
            await First(self.dut.i2c_scl_oe.value_change, self.dut.i2c_sda_oe.value_change)
            self.update()


async def _reset(dut: Any) -> _Bus:
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.sel.value, dut.we.value, dut.addr.value, dut.wdata.value = 0, 0, 0, 0
    dut.i2c_scl_i.value, dut.i2c_sda_i.value = 1, 1
    dut.rst.value = 1
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0
    bus = _Bus(dut)
    cocotb.start_soon(bus.follow())
    return bus


async def _write(dut: Any, reg: str, value: int) -> None:
    dut.sel.value, dut.we.value, dut.addr.value, dut.wdata.value = 1, 1, REG[reg].offset, value
    await RisingEdge(dut.clk)
    dut.sel.value, dut.we.value = 0, 0


async def _read(dut: Any, reg: str) -> int:
    dut.addr.value = REG[reg].offset
    await ReadOnly()
    value = int(dut.rdata.value)
    await RisingEdge(dut.clk)
    return value


async def _step(dut: Any, **fields: int) -> int:
    """One I2C_CMD (fields by name); waits until done; the I2C_STATUS word."""
    cmd = REG["I2C_CMD"]
    word = 0
    for name, value in fields.items():
        word = cmd.field(name).put(word, value)
    await _write(dut, "I2C_CMD", word)
    busy = REG["I2C_STATUS"].field("BUSY")
    while busy.get(status := await _read(dut, "I2C_STATUS")):
        await ClockCycles(dut.clk, 8)
    return status


async def _read16(dut: Any, addr: int, reg: int) -> int | None:
    st = REG["I2C_STATUS"]
    if st.field("NACKED").get(await _step(dut, START=1, WRITE=1, DATA=addr << 1)):
        await _step(dut, STOP=1)
        return None
    await _step(dut, WRITE=1, DATA=reg)
    await _step(dut, START=1, WRITE=1, DATA=addr << 1 | 1)
    hi = st.field("RX_DATA").get(await _step(dut, READ=1))
    lo = st.field("RX_DATA").get(await _step(dut, READ=1, NACK=1, STOP=1))
    return hi << 8 | lo


@cocotb.test(timeout_time=5, timeout_unit="ms")
async def test_i2c_register_access(dut: Any) -> None:
    bus = await _reset(dut)
    tmp = Tmp117(lambda: 21.5)
    targets = I2cTargets(bus, {TMP: tmp})
    targets.start()
    assert await _read(dut, "ID") == 0x4350_5550
    await _write(dut, "I2C_CLOCK", QUARTER)
    assert await _read16(dut, TMP, 0x0F) == 0x0117          # Device_ID
    # a pointer write of THigh_Limit (02h), read back
    await _step(dut, START=1, WRITE=1, DATA=TMP << 1)
    await _step(dut, WRITE=1, DATA=0x02)
    await _step(dut, WRITE=1, DATA=0x12)
    await _step(dut, WRITE=1, DATA=0x34, STOP=1)
    assert (0x02, b"\x12\x34") in tmp.writes
    assert await _read16(dut, TMP, 0x02) == 0x1234
    assert await _read16(dut, 0x49, 0x00) is None            # nobody at 0x49: NACK
    assert await _read16(dut, TMP, 0x0F) == 0x0117          # and the bus still works
    assert targets.errors == []
    assert targets.transfers == 7   # address bytes acknowledged: 2 + 1 + 2 + 0 + 2


@cocotb.test(timeout_time=1, timeout_unit="ms")
async def test_pwm_duty_period_and_direction(dut: Any) -> None:
    await _reset(dut)
    duty = REG["PWM_DUTY"]
    await _write(dut, "PWM_PERIOD", 100)
    await _write(dut, "PWM_DUTY", 25)
    await ClockCycles(dut.clk, 150)   # past the first period boundary

    async def high_clocks(n: int) -> int:
        high = 0
        for _ in range(n):
            await RisingEdge(dut.clk)
            high += int(dut.pwm_o.value)
        return high

    assert await high_clocks(1000) == 250
    assert int(dut.pwm_cool_o.value) == 0
    await _write(dut, "PWM_DUTY", duty.field("COOL").put(duty.field("CLOCKS").put(0, 60), 1))
    await ClockCycles(dut.clk, 150)
    assert await high_clocks(1000) == 600
    assert int(dut.pwm_cool_o.value) == 1
    await _write(dut, "PWM_DUTY", 100)    # duty >= period: always on
    await ClockCycles(dut.clk, 150)
    assert await high_clocks(300) == 300
    await _write(dut, "PWM_PERIOD", 0)    # off
    await ClockCycles(dut.clk, 150)
    assert await high_clocks(300) == 0


@pytest.mark.rtl
@pytest.mark.parametrize("sim", ["icarus"])
def test_nandlab_cpu_periph(sim: str) -> None:
    folder = build(TOPLEVEL, sim, modules=MODULES)
    run(TOPLEVEL, sim, folder, MODULE, folder / "run")
