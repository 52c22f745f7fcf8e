"""SCPI temperature control through pyvisa, on pyvisa-sim's simulated chamber."""

from __future__ import annotations

import pytest

from nandlab.boards import load_board
from nandlab.errors import RangeError
from nandlab.instruments import InstrumentError, ScpiTemperature
from nandlab.instruments.scpi import sim_resource_manager


@pytest.fixture
def chamber() -> ScpiTemperature:
    settings = load_board("ft2232h-bga").temperature
    assert settings is not None
    chamber = ScpiTemperature(settings, sim_resource_manager())
    chamber.set_C(25.0)  # pyvisa-sim keeps the device's state for the whole process
    return chamber


def test_read_set_and_settle(chamber: ScpiTemperature) -> None:
    assert chamber.identify().startswith("NANDLAB,VirtualChamber")
    assert chamber.read_C() == 25.0
    assert chamber.settle(85.0, poll_s=0.0) == 85.0
    chamber.close()


def test_setpoint_outside_the_board_range(chamber: ScpiTemperature) -> None:
    with pytest.raises(RangeError, match=r"200 °C is outside -20.0..125.0 °C"):
        chamber.set_C(200)


def test_settle_times_out(chamber: ScpiTemperature, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chamber, "read_C", lambda: 30.0)  # the chamber never gets there
    with pytest.raises(InstrumentError, match="did not settle at 60.0 °C within 0.05 s"):
        chamber.settle(60.0, poll_s=0.01, timeout_s=0.05)


@pytest.mark.filterwarnings("ignore")  # pyvisa-sim warns about the unknown resource
def test_silent_resource_and_non_numeric_answer(chamber: ScpiTemperature) -> None:
    settings = load_board("ft2232h-bga").temperature
    assert settings is not None
    silent = ScpiTemperature(
        settings.model_copy(update={"resource": "TCPIP::10.9.9.9::5025::SOCKET"}),
        sim_resource_manager(), timeout_ms=100)
    with pytest.raises(InstrumentError, match="answered '' to MEAS:TEMP\\?, not a number"):
        silent.read_C()
    chamber.settings = settings.model_copy(update={"read_command": "*IDN?"})
    with pytest.raises(InstrumentError, match="not a number"):
        chamber.read_C()


def test_ftdi_bench_declares_the_chamber_as_its_thermal_role(chamber: ScpiTemperature) -> None:
    from nandlab.bench import Bench, MissingRole
    from nandlab.vusb.bench import virtual_ftdi_bench

    with virtual_ftdi_bench() as (transport, _device):
        with pytest.raises(MissingRole, match="no temperature controller"):
            Bench(transport).thermal  # noqa: B018 - the access raises
        transport.temperature = chamber
        chamber.set_C(55.0)
        assert Bench(transport).thermal.read_C() == 55.0
        described = Bench(transport).snapshot()["instruments"]["thermal"]
        assert described["kind"] == "scpi" and described["idn"]


def test_no_visa_library_is_an_instrument_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import pyvisa

    def no_visa(*args: object) -> None:
        raise ValueError("Could not locate a VISA implementation")

    monkeypatch.setattr(pyvisa, "ResourceManager", no_visa)
    settings = load_board("ft2232h-bga").temperature
    assert settings is not None
    with pytest.raises(InstrumentError, match="cannot open temperature controller.*VISA"):
        ScpiTemperature(settings)
