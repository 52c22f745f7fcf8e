"""INA226 / INA228 drivers on their register models, power windows and energy alignment."""

from __future__ import annotations

import time

import pytest

from nandlab.boards import load_board
from nandlab.instruments import (
    Ina2xxMonitor,
    Ina226,
    Ina228,
    InstrumentError,
    PowerTrace,
    VirtualIna226,
    VirtualIna228,
    make_monitor,
    window_energy_nJ,
)
from nandlab.ops import PowerRecord, Program
from nandlab.vusb.bench import virtual_ftdi_bench


@pytest.mark.parametrize(("driver", "model"), [(Ina226, VirtualIna226), (Ina228, VirtualIna228)])
def test_current_bus_and_power(driver: type[Ina226], model: type[VirtualIna226]) -> None:
    chip = model(lambda: 25_000.0, shunt_mOhm=100, bus_mV=3300)
    ina = driver(chip, shunt_mOhm=100, max_current_mA=400)
    ina.configure()
    assert ina.current_uA() == pytest.approx(25_000, rel=0.01)
    assert ina.bus_mV() == pytest.approx(3300, rel=0.001)
    assert ina.power_uW() == pytest.approx(25_000 * 3.3, rel=0.02)
    chip.current_uA = lambda: -1_000.0  # reverse current reads negative
    assert ina.current_uA() == pytest.approx(-1_000, rel=0.05)


def test_ina226_calibration_and_config_registers() -> None:
    chip = VirtualIna226(lambda: 0.0, shunt_mOhm=100)
    Ina226(chip, shunt_mOhm=100, max_current_mA=400).configure()
    assert chip.writes[0] == (0x00, b"\x80\x00")  # reset first
    cal = int.from_bytes(dict(chip.writes)[0x05], "big")
    assert cal == round(0.00512 / (0.4 / 2**15 * 0.1))


def test_wrong_chip_and_bad_calibration() -> None:
    with pytest.raises(InstrumentError, match="IDs 0000h/000h, expected 5449h/228h"):
        Ina228(VirtualIna226(lambda: 0.0, 100), shunt_mOhm=100, max_current_mA=400).configure()
    with pytest.raises(InstrumentError, match="calibration .* out of range"):
        Ina226(VirtualIna226(lambda: 0.0, 0.01), shunt_mOhm=0.01, max_current_mA=1).configure()


def test_monitor_sums_rails_over_a_window() -> None:
    board = load_board("ft2232h-bga")
    pm = board.power_monitor
    assert pm is not None
    rails = [VirtualIna226(lambda: 20_000.0, 100), VirtualIna226(lambda: 5_000.0, 100)]
    monitor = Ina2xxMonitor([make_monitor(pm.kind, port, ch)
                             for port, ch in zip(rails, pm.channels, strict=True)], 1200)
    monitor.start()
    time.sleep(0.02)
    period, samples = monitor.stop()
    assert period == 1_200_000 and samples
    assert all(s == pytest.approx(25_000, rel=0.01) for s in samples)
    assert monitor.last_trace is not None and monitor.last_trace.voltage_mV == pytest.approx(3300)
    with pytest.raises(InstrumentError, match="before it was started"):
        monitor.stop()


def test_energy_of_a_window_weights_partial_samples() -> None:
    trace = PowerTrace(start_ns=1_000, period_ns=1_000, samples_uA=(10.0, 20.0, 30.0),
                       voltage_mV=1000.0)
    # [1500, 3500): half of sample 0, all of 1, half of 2 -> (5 + 20 + 15) µA*µs at 1 V
    assert window_energy_nJ(trace, 1_500, 3_500) == pytest.approx(40 * 1000 * 1000 * 1e-9)
    assert window_energy_nJ(trace, 0, 500) == 0.0
    assert window_energy_nJ(trace, 3_000, 3_000) == 0.0
    assert trace.end_ns == 4_000


def test_power_window_of_an_ftdi_bench_from_the_ina_monitor() -> None:
    with virtual_ftdi_bench() as (bench, device):
        board = bench.board
        pm = board.power_monitor
        assert pm is not None
        die = device.die
        ports = [VirtualIna226(lambda: float(die.current_trace(die.now_ns, die.now_ns + 1000,
                                                               1000)[0]), 100)]
        bench.power = Ina2xxMonitor([make_monitor(pm.kind, ports[0], pm.channels[0])], 1200)
        results = bench.run(Program().ce(0).power_start().cmd(0x70).delay(120).dout(1)
                            .delay(30_000).power_stop())
        results.raise_for_errors()
        (power,) = results.of_type(PowerRecord)
        assert power.period_ns == 1_200_000 and len(power.samples_uA) >= 1


def test_ina_monitor_end_to_end_through_pyftdi_i2c_on_the_virtual_ft2232h() -> None:
    from nandlab.instruments import open_ina_monitor
    from nandlab.profiles import load_profile
    from nandlab.vchip.die import VirtualDie
    from nandlab.vusb import VirtualFt2232h, plugged

    board = load_board("ft2232h-bga")
    device = VirtualFt2232h(board, VirtualDie(load_profile("mlc-64l")))
    device.i2c_slaves[0x40] = VirtualIna226(lambda: 20_000.0, 100)
    with plugged(device):
        with pytest.raises(InstrumentError, match="rail VCCQ at I2C address 0x41"):
            open_ina_monitor(board)  # the VCCQ monitor is missing: NACK
        device.i2c_slaves[0x41] = VirtualIna226(lambda: 3_000.0, 100)
        monitor = open_ina_monitor(board)
        assert monitor.current_uA() == pytest.approx(23_000, rel=0.01)
        assert monitor.monitors[1].bus_mV() == pytest.approx(3300)
