"""Generated FPGA files are up to date, and the generators compute what they claim."""

from __future__ import annotations

from types import ModuleType

import pytest

from nandlab.hwgen import __main__ as cli
from nandlab.hwgen import regs, timing, xdc
from nandlab.onfi_spec.sdr_timing import SDR_MODES
from nandlab.regs import ID_MAGIC, REG


@pytest.mark.parametrize("gen", [regs, timing, xdc], ids=["regs", "timing", "xdc"])
def test_generated_files_are_fresh(gen: ModuleType) -> None:
    stale = [str(o.path) for o in gen.outputs() if o.stale]
    assert not stale, f"stale, run `python -m nandlab.hwgen`: {stale}"


def test_check_mode_exit_code() -> None:
    assert cli.main(["all", "--check"]) == 0


def test_register_map_starts_with_id_and_version() -> None:
    assert REG["ID"].offset == 0 and ID_MAGIC == 0x4E414E44
    assert REG["VERSION"].offset == 4
    offsets = [r.offset for r in REG.values()]
    assert offsets == sorted(offsets) and len(set(offsets)) == len(offsets)
    field = REG["TIMING_READ"].field("T_REA")
    assert field.get(field.put(0, 7)) == 7


@pytest.mark.parametrize("period_ps", timing.CLOCK_PERIODS_PS)
def test_presets_meet_every_onfi_minimum(period_ps: int) -> None:
    for mode in SDR_MODES:
        values = dict(zip((f for f, _, _ in timing.FIELDS), timing.preset(mode, period_ps),
                          strict=True))
        for field, param, kind in timing.FIELDS:
            ns = getattr(mode, param)
            if kind == "capture":
                assert values[field] * period_ps > ns * 1000
            else:
                assert values[field] * period_ps >= ns * 1000


def test_presets_round_up() -> None:
    assert timing.cycles(45, 10000, "min") == 5
    assert timing.cycles(40, 10000, "capture") == 5
    assert timing.cycles(1, 5000, "min") == 1
    with pytest.raises(ValueError):
        timing.cycles(5000, 5000, "min")


def test_xdc_places_every_known_pin() -> None:
    text = xdc.outputs()[0].text
    assert "PACKAGE_PIN W23 " in text and "{nand_dq[0]}" in text
    assert "# TODO nand_cle" in text
