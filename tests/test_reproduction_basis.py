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
    fitted_to,
    mark_tables,
    model_sources,
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
def test_fitted_parameters_exist_and_the_model_cards_say_fitted(paper: str) -> None:
    """A named parameter is a field of the paper's profile; a physics or power one is
    `fitted` in docs/model-cards/ (timing values are the datasheet's, outside the cards)."""
    sources = model_sources(REPO)
    for path in _reports(paper):
        text = path.read_text()
        name_of = [p for p in PAPERS[paper] if f"the {p} virtual chip" in text or len(PAPERS[paper]) == 1]
        (profile,) = name_of
        for name in fitted_parameters(text.splitlines()):
            assert _resolve(load_profile(profile), name) is not None, f"{path.name}: {name}"
            src = sources.of(profile, name)
            if name.startswith(("physics.", "power.")):
                assert src is not None and src.basis == "fitted", f"{path.name}: {name} {src}"


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
        "### Qualitative claims, condition by condition",
        "| claim | condition | measured | within |",
        "|---|---|---|---|",
        "| tuned | c | 1.2x | yes |",
    ]

    def basis(heading: str, row: str) -> str | None:
        assert heading in ("Fig. 1", "Qualitative claims, condition by condition")
        return fitted("physics.x") if "tuned" in row else None

    out = mark_tables(lines, basis)
    assert out[:5] == lines[:5]
    assert out[5:] == [
        "| claim | paper | measured | within | basis |",
        "|---|---|---|---|---|",
        "| tuned | 1 | 1 | yes | fitted: physics.x |",
        "| free | 2 | 2 | yes | predicted |",
        "| a point of a curve | (curve) | 3 | - | - |",
        "### Qualitative claims, condition by condition",
        "| claim | condition | measured | within | basis |",
        "|---|---|---|---|---|",
        "| tuned | c | 1.2x | yes | fitted: physics.x |",
    ]
    assert basis_counts(out) == (1, 2)  # the condition-by-condition list is not counted
    assert fitted_parameters(out) == {"physics.x"}


def test_fitted_to_reads_the_model_cards() -> None:
    sources = model_sources(REPO)
    mark = fitted_to(sources, "tlc-48l", r"Fig\. 14: 2 blocks")
    assert mark == fitted("power.mws_block_mA")
    assert fitted_to(sources, "tlc-48l", r"no such figure") is None
