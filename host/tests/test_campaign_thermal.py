"""Campaign temperature, bake and wait steps on a real bench's temperature controller.

The bench is the virtual FT2232H (a pyusb backend; pyftdi and everything above it
unchanged) and the controller a SCPI chamber simulated by pyvisa-sim: the steps
set and settle it, a bake holds it for real time, and the dataset records what
the chamber measured and where busy times came from.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from nandlab.boards import load_board
from nandlab.campaign.runner import read_meta, start_run
from nandlab.dataset.store import RunStore
from nandlab.errors import UsageError
from nandlab.instruments.scpi import ScpiTemperature, sim_resource_manager
from nandlab.profiles import load_profile
from nandlab.transport.ftdi import FtdiTransport
from nandlab.vchip.die import VirtualDie
from nandlab.vusb import VirtualFt2232h, plugged

URL = "ftdi://ftdi:2232h/1?board=ft2232h-bga&profile=mlc-64l"
CAMPAIGN = f"""\
name: thermal
bench: {URL}
seed: 1
blocks: [10]
steps:
  - cycle: {{pec: 1}}
  - program: {{wls: 0, mode: slc}}
  - temperature: {{temp_C: 55}}
  - measure: {{what: [rber]}}
  - bake: {{hours: 0.0002, temp_C: 85}}
  - measure: {{what: [rber]}}
"""


class Chamber(ScpiTemperature):
    """The simulated chamber, with every setpoint it was given."""

    def __init__(self) -> None:
        board = load_board("ft2232h-bga")
        assert board.temperature is not None
        super().__init__(
            board.temperature.model_copy(update={"settle_poll_s": 0.01}), sim_resource_manager()
        )
        super().set_C(25.0)  # pyvisa-sim keeps the device's state for the whole process
        self.setpoints: list[float] = []

    def set_C(self, value: float) -> None:
        self.setpoints.append(value)
        super().set_C(value)


def _rows(run_dir: Path) -> list[dict[str, Any]]:
    store = RunStore(run_dir)
    try:
        return store.rows()
    finally:
        store.close()


def test_steps_drive_the_chamber_and_rows_carry_its_readings(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(CAMPAIGN)
    chamber = Chamber()
    device = VirtualFt2232h(load_board("ft2232h-bga"), VirtualDie(load_profile("mlc-64l"), 3, 0))
    with plugged(device):
        result = start_run(
            tmp_path / "c.yaml",
            tmp_path / "runs",
            run_id="t",
            opener=lambda url: FtdiTransport.from_url(url, temperature=chamber),
        )
    assert result.status == "complete"
    # 55 °C set, then the bake at 85 °C and back to the run's 55 °C
    assert chamber.setpoints == [55.0, 85.0, 55.0]
    rows = _rows(result.run_dir)
    by_op: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_op.setdefault(str(r["operation"]), []).append(r)
    (temp,) = by_op["temperature"]
    assert temp["temp_C"] == pytest.approx(55.0) and temp["setpoint_C"] == 55.0
    (bake,) = by_op["bake"]
    assert bake["setpoint_C"] == 85.0 and bake["temp_C"] == pytest.approx(85.0)
    rber = by_op["rber"]
    assert len(rber) == 2 and all(r["temp_C"] == pytest.approx(55.0) for r in rber)
    # before the temperature step the rows carry the chamber's reading then (25 °C)
    assert by_op["erase"][0]["temp_C"] == pytest.approx(25.0)
    meta = read_meta(result.run_dir)
    assert meta["temperatures_C"]["measured_at_start"] == pytest.approx(25.0)
    assert meta["busy_source"].startswith("stream:in-stream R/B#")
    snap = meta["bench"]
    assert snap["transport"] == "ftdi" and snap["board"]["name"] == "ft2232h-bga"
    assert snap["roles"] == ["thermal"] and snap["instruments"]["thermal"]["kind"] == "scpi"
    assert snap["temperatures_C"]["measured"] == pytest.approx(25.0)


def test_without_a_controller_the_run_does_not_start(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(CAMPAIGN)
    device = VirtualFt2232h(load_board("ft2232h-bga"), VirtualDie(load_profile("mlc-64l"), 3, 0))
    with plugged(device), pytest.raises(UsageError) as info:
        start_run(tmp_path / "c.yaml", tmp_path / "runs", run_id="n")
    assert "no temperature control for the campaign's bake and temperature steps" in str(info.value)
    assert "instruments=1" in str(info.value)
    assert not (tmp_path / "runs" / "n").exists()
