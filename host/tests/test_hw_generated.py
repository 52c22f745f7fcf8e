"""Generated FPGA files are up to date, and the generators compute what they claim."""

from __future__ import annotations

from types import ModuleType

import pytest

from nandlab.boards import Board, load_board
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
    assert timing.cycles(45, 10000) == 5
    assert timing.cycles(40, 10000) == 4
    assert timing.cycles(0, 5000) == 1
    with pytest.raises(ValueError):
        timing.cycles(5000, 5000)


def test_read_plan_centres_the_capture_in_the_valid_window() -> None:
    # mode 0 at 100 MHz: RE# low 50 ns would leave the byte valid only 40..50 ns
    # (tRHOH 0): RE# low 60 ns, capture at 50 ns, 10 ns each side, still tRC 100 ns
    assert timing.read_plan(SDR_MODES[0], 10000) == {"T_RP": 6, "T_REH": 4, "T_RC": 10,
                                                     "T_REA": 5}
    # mode 3 at 100 MHz: 3 clocks (tRC 30 ns) give valid 20..30 ns (tRLOH 0), no
    # whole clock inside it; 4 clocks, RE# low 30 ns: valid 20..40 ns, capture at 30
    assert timing.read_plan(SDR_MODES[3], 10000) == {"T_RP": 3, "T_REH": 1, "T_RC": 4,
                                                     "T_REA": 3}
    # mode 5 at 200 MHz: valid 16..25 ns (tRHOH after a 10 ns RE# low, tRLOH after
    # the next fall at 20 ns): capture at 20 ns
    assert timing.read_plan(SDR_MODES[5], 5000)["T_REA"] == 4


def test_xdc_places_every_known_pin() -> None:
    text = xdc.outputs()[0].text
    assert "PACKAGE_PIN AA22 " in text and "{nand_dq[0]}" in text
    board = load_board("kcu105-fmc-nand").model_dump()
    board["controller"]["pins"]["nand_cle"] = "TBD"  # a pin not looked up: a TODO line
    assert "# TODO nand_cle" in xdc.render(Board.model_validate(board), "b.yaml")
