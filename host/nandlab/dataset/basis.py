"""Fitted or predicted: the basis every row of a reproduction report carries.

A virtual chip is calibrated to some published figures and should then predict the others.
A row is *fitted* when a model parameter was tuned so that the row lands (the mark names
the parameter: a physics field, a power or timing figure of the profile), *predicted* when
no parameter was tuned to it. The analyses under `characterization/` give each claim table
a `basis` column with `mark_tables` and count the marks with `basis_counts`.

Which parameter was fitted to which figure is recorded once, in the model cards' sources
table (docs/model-cards/sources.yaml, `nandlab.profiles.cards`): an analysis maps each of
its rows to the figure it reproduces and `fitted_to` names the parameters whose source says
they were fitted to it. Only those labels are read, never a profile's values. The
condition-by-condition lists of qualitative claims (under a "Qualitative claims" heading)
are marked too but not counted: each repeats one claim over the conditions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

from nandlab.profiles.cards import SOURCES, Sources, load_sources

PREDICTED = "predicted"
FITTED = "fitted: "
VERDICTS = ("within tolerance", "within", "as the paper")
"""Last header cell of a claim table: a table that states a paper's figure and a verdict."""

Basis = Callable[[str, str], str | None]
"""basis(heading, row): the mark of a claim-table row (its text, `| a | b |`) under the
last `#` heading above it: `fitted(...)` or None for predicted."""


LISTS = "Qualitative claims"
"""Heading of a report's condition-by-condition claim list (marked, not counted)."""


def fitted(*parameters: str) -> str:
    """The mark of a row a parameter was tuned to land on (name each parameter)."""
    return FITTED + ", ".join(parameters)


def model_sources(repo: Path) -> Sources:
    """The model cards' sources table of the repository at `repo`."""
    return load_sources(repo / "docs" / "model-cards" / SOURCES)


def fitted_to(sources: Sources, profile: str, figure: str) -> str | None:
    """The mark of a row reproducing `figure` (a regular expression over the sources' text,
    e.g. `r"Fig\\. 11: slope"`): every parameter of `profile` the cards say was fitted to it;
    None (predicted) when none was."""
    paths = sorted({*sources.defaults, *sources.profiles.get(profile, {})})
    names = [
        path
        for path in paths
        if (src := sources.of(profile, path)) is not None
        and src.basis == "fitted"
        and re.search(figure, src.source)
    ]
    return fitted(*names) if names else None


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def mark_tables(lines: Sequence[str], basis: Basis) -> list[str]:
    """`lines` with a `basis` column added to every claim table (see VERDICTS)."""
    out: list[str] = []
    heading = ""
    in_claims = False
    for line in lines:
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        if not line.startswith("|"):
            in_claims = False
            out.append(line)
            continue
        cells = _cells(line)
        if not in_claims and cells[-1] in VERDICTS:
            in_claims = True
            out.append(line.rstrip() + " basis |")
        elif in_claims and set("".join(cells)) <= set("-"):
            out.append(line.rstrip() + "---|")
        elif in_claims and cells[-1] == "-":  # a point of a curve, no claim of the paper
            out.append(line.rstrip() + " - |")
        elif in_claims:
            out.append(line.rstrip() + f" {basis(heading, line) or PREDICTED} |")
        else:
            out.append(line)
    return out


def basis_counts(lines: Sequence[str]) -> tuple[int, int]:
    """(predicted rows, marked rows) of a report's claim tables, the qualitative claim lists
    aside."""
    predicted = marked = 0
    listed = False
    for line in lines:
        if line.startswith("#"):
            listed = line.lstrip("#").strip().startswith(LISTS)
        if listed or not line.startswith("|"):
            continue
        mark = _cells(line)[-1]
        if mark == PREDICTED or mark.startswith(FITTED):
            marked += 1
            predicted += mark == PREDICTED
    return predicted, marked


def fitted_parameters(lines: Sequence[str]) -> set[str]:
    """Every parameter a report's rows name as fitted."""
    names: set[str] = set()
    for line in lines:
        if line.startswith("|"):
            mark = _cells(line)[-1]
            if mark.startswith(FITTED):
                names |= {n.strip() for n in re.split(r",", mark[len(FITTED) :]) if n.strip()}
    return names


def basis_line(lines: Sequence[str]) -> str:
    """One sentence for a report's head: how many rows are predicted, how many fitted."""
    predicted, marked = basis_counts(lines)
    return (
        f"Basis: {predicted} of {marked} rows predicted (no model parameter was tuned to "
        f"them), {marked - predicted} fitted (the parameters tuned to land them are named, "
        "as docs/model-cards/ lists them); the condition-by-condition claim lists are marked "
        "the same way and not counted."
    )
