"""The parameter page's interface fields against the rules, on pages broken one field at a time."""

from __future__ import annotations

from typing import Any

import pytest

from nandlab.onfi_spec import onfi_rules
from nandlab.onfi_spec import parampage as pp
from nandlab.profiles import load_profile
from nandlab.vchip import identity


def broken(name: str, **change: Any) -> list[str]:
    values = identity.parameter_page_values(load_profile(name))
    values.update(change)
    page = pp.build(values)
    return [v.rule for v in onfi_rules.check(page) if v.field.startswith(("feat", "nv"))]


def test_every_built_in_page_keeps_the_interface_rules() -> None:
    for name in ("tlc-48l", "tlc-coxpm", "mlc-planar", "slc-search"):
        assert broken(name) == []


@pytest.mark.parametrize(
    ("name", "change", "rule"),
    [("tlc-coxpm", {"nv_ddr2_timing_modes": 0x0F}, "bit 10 (NV-DDR2)"),
     ("tlc-48l", {"nv_ddr2_timing_modes": 0, "nv_ddr2_timing_modes_high": 0}, "bit 10"),
     ("mlc-planar", {"nv_ddr3_timing_modes": 0x7}, "bit 13 (NV-DDR3, ONFI 4.0)"),
     ("tlc-coxpm", {"revision": pp.revisions_through("3.2")}, "bit 13"),
     ("mlc-planar", {"features": 0x58, "nv_ddr2_timing_modes": 0}, "bytes (158-159) are 0")],
)
def test_a_page_whose_interface_fields_disagree_breaks_a_rule(
    name: str, change: dict[str, Any], rule: str
) -> None:
    assert any(rule in text for text in broken(name, **change))
