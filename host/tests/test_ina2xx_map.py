"""The INA226 / INA228 register maps have one source (nandlab.instruments.ina2xx_map),
from which the firmware's header is generated; the host driver and the firmware's are
compared on one register model in test_firmware_mailbox."""

from __future__ import annotations

from nandlab.instruments.ina2xx_map import HEADER, INA226, INA228, render_c


def test_firmware_header_is_generated_from_the_map() -> None:
    assert HEADER.read_text() == render_c(), (
        f"{HEADER} is stale: run python -m nandlab.instruments.ina2xx_map")


def test_map_has_the_datasheets_addresses() -> None:
    assert [INA226.regs[r] for r in ("CURRENT", "CALIBRATION", "DIE_ID")] == [0x04, 0x05, 0xFF]
    assert [INA228.regs[r] for r in ("SHUNT_CAL", "CURRENT", "DIE_ID")] == [0x02, 0x07, 0x3F]
