"""Retention strings (AGE@TEMP) and the Arrhenius bake conversion."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nandlab.characterize.retention import (
    acceleration_factor,
    bake_hours,
    parse_retention,
)
from nandlab.errors import UsageError


@pytest.mark.parametrize(
    ("text", "age_h", "temp_C", "label"),
    [
        ("1y@30C", 8760.0, 30.0, "1y@30C"),
        ("6mo@30C", 4380.0, 30.0, "6mo@30C"),
        ("2w@40C", 336.0, 40.0, "2w@40C"),
        ("3d@85C", 72.0, 85.0, "3d@85C"),
        ("12h@55C", 12.0, 55.0, "12h@55C"),
        ("1.5y@30C", 13140.0, 30.0, "1.5y@30C"),
        (" 1Y @ 30c ", 8760.0, 30.0, "1y@30C"),
        ("0h@30C", 0.0, 30.0, "0h@30C"),
    ],
)
def test_parse(text, age_h, temp_C, label):
    r = parse_retention(text)
    assert r.age_h == pytest.approx(age_h)
    assert r.temp_C == temp_C
    assert r.label == label


@pytest.mark.parametrize(
    "text",
    ["", "1y", "@30C", "1year@30C", "1y@30", "1y@30K", "-1y@30C", "1m@30C", "y@30C", "1y@@30C"],
)
def test_malformed_names_the_form(text):
    with pytest.raises(UsageError, match=r"AGE@TEMP.*1y@30C"):
        parse_retention(text)


def test_one_year_at_30C_is_13_6_hours_at_85C():
    assert bake_hours(parse_retention("1y@30C"), 85.0, 1.1) == pytest.approx(13.6, abs=0.05)


def test_same_temperature_is_no_acceleration():
    assert acceleration_factor(55.0, 55.0, 1.1) == pytest.approx(1.0)
    assert bake_hours(parse_retention("3d@85C"), 85.0, 1.1) == pytest.approx(72.0)


@given(
    age=st.floats(0.0, 1e4, allow_nan=False),
    use=st.floats(-20.0, 80.0),
    hotter=st.floats(1.0, 100.0),
)
def test_hotter_bake_is_shorter(age, use, hotter):
    r = parse_retention(f"{age:.3f}h@{use:.2f}C")
    assert bake_hours(r, use + hotter, 1.1) <= r.age_h + 1e-9
