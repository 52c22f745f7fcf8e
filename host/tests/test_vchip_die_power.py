"""VirtualDie supply current: phase log, current trace, energy."""

from __future__ import annotations

import pytest
from test_vchip_die import MS, Host

from nandlab.analysis import read_energy_uJ
from nandlab.onfi_spec.opcodes import Cmd
from nandlab.profiles import load_profile
from nandlab.vchip.die import VirtualDie


@pytest.fixture
def host() -> Host:
    return Host(VirtualDie(load_profile("mlc-64l"), seed=2))


def test_read_trace_shows_sensing_and_transfer(host):
    die, pw = host.die, host.die.profile.power
    t0 = die.now_ns
    die.cmd(Cmd.READ)
    host.address(0, 0)
    die.cmd(Cmd.READ_CONFIRM)
    t_busy = die.now_ns
    die.wait_ready(MS)
    die.read(host.nbytes)
    t1 = die.now_ns
    trace = die.current_trace(t0, t1, 1000)
    assert len(trace) == (t1 - t0) // 1000
    setup_us = round(die.profile.timing.t_read_base_us)
    first = (t_busy - t0) // 1000 + 1  # the sample after the confirm cycle
    setup = trace[first : (t_busy - t0) // 1000 + setup_us]
    sensing = trace[(t_busy - t0) // 1000 + setup_us + 1 : (t_busy - t0) // 1000 + 39]
    setup_mA = pw.read_mA if pw.read_setup_mA is None else pw.read_setup_mA
    assert (setup == round(setup_mA * 1000)).all()  # pump ramp, WL / bitline precharge
    assert (sensing == round(pw.read_mA * 1000)).all()
    assert trace[-2] == round(pw.io_mA * 1000)  # data out at 100 ns a byte
    after = die.current_trace(t1 + 1000, t1 + 11_000, 1000)
    assert (after == round(pw.idle_mA * 1000)).all()


def test_energy_of_read_and_program_is_plausible(host):
    die, pw = host.die, host.die.profile.power
    die.cmd(Cmd.READ)
    host.address(0, 1)
    die.cmd(Cmd.READ_CONFIRM)
    t0 = die.now_ns
    busy = die.wait_ready(MS)
    e_read = die.energy_nJ(t0, t0 + busy)
    setup_ns = round(die.profile.timing.t_read_base_us * 1000)
    assert e_read == pytest.approx(read_energy_uJ(pw, busy, setup_ns) * 1000)  # ~3 uJ, 70 us
    # the samples integrate to the same charge
    trace = die.current_trace(t0, t0 + busy, 500)
    assert trace.sum() * 500 * pw.vcc_V / 1e6 == pytest.approx(e_read, rel=1e-3)

    host.program_page(0, 0, host.random_page(1))
    busy = die.last_busy_ns
    end = die.now_ns
    e_prog = die.energy_nJ(end - busy, end)
    assert 10_000 < e_prog < 60_000  # tens of uJ for a few hundred us at ~24 mA


def test_phase_log_is_bounded(host):
    die = host.die
    for _ in range(2000):
        die.cmd(Cmd.READ_STATUS)
        die.read(1)
    assert len(die.power) == 1  # contiguous bus cycles merge into one phase
    for _ in range(50):
        host.read_page(0, 0)
    n = len(die.power)
    die.power.discard_before(die.now_ns - 1)
    assert len(die.power) < n
