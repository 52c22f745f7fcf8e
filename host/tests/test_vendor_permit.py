"""The CoX-PM and Search-in-Memory vendor commands are gated like the test-mode operations:
each path (the scheme API on the part's logic and on the FPGA's read-stream matcher, a
campaign on sim:// and rtl://) refuses them without the permit, issuing nothing, and runs
them with it. The CLI's refusal is in test_cox_pm_cli.py."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from test_cox_pm_fpga import SimWithKernel

from nandlab.bench import Bench
from nandlab.campaign.preflight import preflight
from nandlab.campaign.schema import parse_campaign
from nandlab.campaign.steps.base import UnitError
from nandlab.campaign.yamlmarks import CampaignFileError
from nandlab.errors import RefusedOperation
from nandlab.onfi import Chip
from nandlab.onfi_spec import search as fmt
from nandlab.ops import Program
from nandlab.schemes.cox_pm import CoxPmScan
from nandlab.schemes.sim_search import SimSearch
from nandlab.transport.sim import SimTransport

PERMIT = r"nandlab search --allow-test-mode, or in a campaign .allow_test_mode: true."
PLANT = b"needle in flash"


def _recorded(chip: Chip, monkeypatch: pytest.MonkeyPatch) -> list[Program]:
    """Every op program that reaches the bench from now on."""
    issued: list[Program] = []
    run = chip.transport.run

    def record(program: Program) -> Any:
        issued.append(program)
        return run(program)

    monkeypatch.setattr(chip.transport, "run", record)
    return issued


def _refused(call: Callable[[], object], issued: list[Program]) -> None:
    before = len(issued)
    with pytest.raises(RefusedOperation, match=PERMIT):
        call()
    assert len(issued) == before, "a refused vendor command reached the bench"


@pytest.fixture
def coxpm_chip() -> Iterator[Chip]:
    with SimTransport("tlc-coxpm", seed=5, persist=False) as bench:
        chip = Chip(bench)
        chip.identify()
        yield chip


@pytest.fixture
def fpga_chip() -> Iterator[tuple[Chip, Bench]]:
    """A plain part behind a controller running the CoX-PM kernel (the FPGA path)."""
    with SimWithKernel("tlc-48l", seed=5, persist=False) as bench:
        chip = Chip(bench)
        chip.identify()
        yield chip, Bench(bench)


def _stored(scan: CoxPmScan) -> None:
    """Page 0 holds the plant, page 1 does not; storing is a plain program (no permit)."""
    size = scan.chip.geometry.page_bytes
    scan.chip.erase_block(4)
    scan.store(4, 0, (b"x" * 100 + PLANT).ljust(size, b"y"))
    scan.store(4, 1, b"z" * size)


def test_cox_pm_on_the_chip_needs_the_permit(
    coxpm_chip: Chip, monkeypatch: pytest.MonkeyPatch
) -> None:
    gated = CoxPmScan(coxpm_chip)
    _stored(gated)
    issued = _recorded(coxpm_chip, monkeypatch)
    _refused(lambda: gated.set_patterns([PLANT]), issued)
    _refused(lambda: gated.scan(4, [0, 1]), issued)
    _refused(lambda: gated.scan(4, [0, 1], cache=False), issued)
    allowed = CoxPmScan(coxpm_chip, allow_test_mode=True)
    allowed.set_patterns([PLANT])
    assert [(a.matched, a.path) for a in allowed.scan(4, [0, 1])] == [
        (True, "chip"), (False, "chip"),
    ]  # fmt: skip
    assert issued, "the permitted scan issued its commands"


def test_cox_pm_on_the_fpga_matcher_needs_the_permit(
    fpga_chip: tuple[Chip, Bench], monkeypatch: pytest.MonkeyPatch
) -> None:
    chip, bench = fpga_chip
    gated = CoxPmScan(chip, matcher=bench.matcher)
    _stored(gated)
    issued = _recorded(chip, monkeypatch)
    _refused(lambda: gated.set_patterns([PLANT]), issued)
    _refused(lambda: gated.scan(4, [0]), issued)
    allowed = CoxPmScan(chip, matcher=bench.matcher, allow_test_mode=True)
    allowed.set_patterns([PLANT])
    assert [(a.matched, a.path) for a in allowed.scan(4, [0, 1])] == [
        (True, "fpga"), (False, "fpga"),
    ]  # fmt: skip


def test_sim_search_needs_the_permit(monkeypatch: pytest.MonkeyPatch) -> None:
    with SimTransport("slc-search", seed=5, persist=False) as bench:
        chip = Chip(bench)
        chip.identify()
        chip.erase_block(6)
        gated = SimSearch(chip, max_age_s=None)
        gated.store(6, 0, [10, 11, 12])
        gated.store(6, 1, [20, 21, 22])
        issued = _recorded(chip, monkeypatch)
        _refused(lambda: gated.open(6, 0), issued)
        _refused(lambda: gated.search(6, 0, 11), issued)
        _refused(lambda: gated.gather(6, 0, [1]), issued)
        _refused(lambda: gated.slots_of(6, 1, [fmt.HEADER_SLOTS]), issued)
        _refused(lambda: gated.point_query((6, 0), (6, 1), 12), issued)
        # the full read is an ordinary READ: no permit needed
        data, _, _ = gated.read_verified(6, 0)
        first = fmt.HEADER_SLOTS * fmt.SLOT_BYTES
        assert data[first : first + 8] == (10).to_bytes(8, "big")
        allowed = SimSearch(chip, max_age_s=None, allow_test_mode=True)
        assert allowed.search(6, 0, 11).slots == [fmt.HEADER_SLOTS + 1]
        assert allowed.point_query((6, 0), (6, 1), 12) == 22


COX = """name: g
bench: {bench}
blocks: [40]
steps:
  - erase: {{}}
  - cox_store: {{pages: 3}}
  - cox_pm: {{{flag}}}
"""
SIM = """name: g
bench: {bench}
blocks: [40]
steps:
  - erase: {{}}
  - sim_store: {{pairs: 1}}
  - sim_search: {{masks: 1, queries: 2{sep}{flag}}}
"""
CASES = [
    (COX, "sim://tlc-coxpm?seed=1", "cox_pm"),
    (COX, "rtl://tlc-coxpm?seed=1", "cox_pm"),
    (COX, "rtl://tlc-48l?seed=1", "cox_pm"),  # the FPGA kernel on a plain part
    (SIM, "sim://slc-search?seed=1", "sim_search"),
    (SIM, "rtl://slc-search?seed=1", "sim_search"),
]


def _campaign(form: str, bench: str, *, top: bool, step: bool) -> str:
    flag = "allow_test_mode: true" if step else ""
    text = form.format(bench=bench, flag=flag, sep=", " if step else "")
    return ("allow_test_mode: true\n" if top else "") + text


@pytest.mark.parametrize(("form", "bench", "kind"), CASES)
def test_campaign_steps_are_test_mode_steps(form: str, bench: str, kind: str) -> None:
    # without the top-level declaration the campaign is refused whole, whatever the step says
    for step in (True, False):
        text = _campaign(form, bench, top=False, step=step)
        with pytest.raises(CampaignFileError, match=rf"steps\[2\]\.{kind}: runs the part's vendor"):
            preflight(parse_campaign(text, "g.yaml"), None)
    # declared at the top, the step itself must still ask (as the MWS and ESP steps do)
    with pytest.raises(UnitError, match=f"{kind} runs the part's vendor commands: set allow_"):
        preflight(parse_campaign(_campaign(form, bench, top=True, step=False), "g.yaml"), None)
    plan = preflight(parse_campaign(_campaign(form, bench, top=True, step=True), "g.yaml"), None)
    assert plan is not None and plan.step_units[2] == 1
