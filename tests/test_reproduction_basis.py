"""Fitted or predicted (issue 17 item 4): every claim row of every reproduction report under
characterization/ says whether a model parameter was tuned to land it (naming it) or not,
at least half of each paper's rows are predicted, and every parameter named exists in the
paper's profile. That the reports are rebuilt from the committed rows is checked per paper
in tests/test_reproductions.py and host/tests/test_{cox_pm,sim_search}_campaign.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from nandlab.dataset.basis import (
    FITTED,
    PREDICTED,
    basis_counts,
    fitted,
    fitted_parameters,
    mark_tables,
)
from nandlab.profiles import load_profile

REPO = Path(__file__).resolve().parents[1]
PAPERS = {
    "flashcosmos": ("tlc-48l",),
    "mcflash": ("mlc-64l", "mlc-176l"),
    "parabit": ("mlc-planar",),
    "pif": ("tlc-coxpm",),
    "sim": ("slc-search",),
}


def _reports(paper: str) -> list[Path]:
    return sorted((REPO / "characterization" / paper).glob("report*.md"))


def _claim_rows(text: str) -> list[list[str]]:
    """Cells of every row of every claim table (header's last cell before `basis` a verdict)."""
    rows, in_claims = [], False
    for line in text.splitlines():
        if not line.startswith("|"):
            in_claims = False
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[-1] == "basis":
            in_claims = True
        elif in_claims and not set("".join(cells)) <= set("-"):
            rows.append(cells)
    return rows


@pytest.mark.parametrize("paper", list(PAPERS))
def test_every_claim_row_is_marked_and_half_are_predicted(paper: str) -> None:
    predicted = marked = 0
    assert _reports(paper), f"no report under characterization/{paper}"
    for path in _reports(paper):
        text = path.read_text()
        rows = _claim_rows(text)
        assert rows, f"{path.name}: no claim table with a basis column"
        for cells in rows:
            mark = cells[-1]
            ok = mark in (PREDICTED, "-") or (mark.startswith(FITTED) and len(mark) > len(FITTED))
            assert ok, f"{path.name}: row {cells[:2]} has no fitted / predicted mark: {mark!r}"
        p, m = basis_counts(text.splitlines())
        assert f"Basis: {p} of {m} rows predicted" in text, path.name
        predicted, marked = predicted + p, marked + m
    assert predicted >= marked / 2, f"{paper}: {predicted} of {marked} rows predicted"


def _resolve(obj: object, dotted: str) -> object:
    for name in dotted.split("."):
        obj = getattr(obj, name)
    return obj


@pytest.mark.parametrize("paper", list(PAPERS))
def test_fitted_parameters_exist_in_the_profile(paper: str) -> None:
    profiles = [load_profile(name) for name in PAPERS[paper]]
    for path in _reports(paper):
        for name in fitted_parameters(path.read_text().splitlines()):
            for profile in profiles:
                assert _resolve(profile, name) is not None, f"{path.name}: {name}"


def test_mark_tables_marks_claim_tables_only() -> None:
    lines = [
        "### Fig. 1",
        "| n | value |",
        "|---|---|",
        "| 1 | 2 |",
        "",
        "| claim | paper | measured | within |",
        "|---|---|---|---|",
        "| tuned | 1 | 1 | yes |",
        "| free | 2 | 2 | yes |",
        "| a point of a curve | (curve) | 3 | - |",
    ]

    def basis(heading: str, row: str) -> str | None:
        assert heading == "Fig. 1"
        return fitted("physics.x") if "tuned" in row else None

    out = mark_tables(lines, basis)
    assert out[:5] == lines[:5]
    assert out[5:] == [
        "| claim | paper | measured | within | basis |",
        "|---|---|---|---|---|",
        "| tuned | 1 | 1 | yes | fitted: physics.x |",
        "| free | 2 | 2 | yes | predicted |",
        "| a point of a curve | (curve) | 3 | - | - |",
    ]
    assert basis_counts(out) == (1, 2)
    assert fitted_parameters(out) == {"physics.x"}
