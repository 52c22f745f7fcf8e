"""The dashboard in a real browser: Debian's chromium, driven by Playwright (pointed at the
system browser; nothing is downloaded).

A `nandlab serve` process over an empty data folder; from its page a campaign on a virtual
chip is refused without the confirmation box and started with it; the progress moves on the
page without a reload, the run is stopped and resumed from the page and completes with
every unit; plots and the ledger's heat map are drawn; a second server on a non-loopback
address refuses requests without its token and serves the browser that brings it.

Screenshots of each page go to $NANDLAB_SCREENSHOTS (`make screenshots` points it at
docs/img), else to the test's temporary folder.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

ENTRY = "from nandlab.cli.main import main; main()"
# 21 small units (well under a second each): enough to watch the count move and to stop
# the run part-way; 10000 P/E cycles and a bake give bit errors to plot
CAMPAIGN = """\
name: dash-live
description: small units on a virtual MLC, enough of them to watch the progress move
bench: sim://mlc-64l?seed=21
fresh: true
seed: 9
blocks: [200, 201]
steps:
  - cycle: {pec: {sweep: [1, 10000]}}
  - program: {wls: 0-1, pattern: random, scramble: true}
  - measure: {what: [rber], repeats: {sweep: [1, 2, 3, 4, 5, 6]}}
  - measure: {what: [vth], vth_wl: 0, code_step: 8}
  - bake: {retention: 1y@30C}
  - measure: {what: [rber]}
"""
UNITS = 21
# how long a wait may take before the test fails: generous, since the suites share two
# cores (a wait ends as soon as its condition holds)
TIMEOUT_MS = 120_000
START_POLLS = 1200  # tenths of a second for `nandlab serve` to print its address
expect.set_options(timeout=TIMEOUT_MS)


class Server:
    """A `nandlab serve` process; `url` is the address it printed. Its output goes to a
    file (a pipe nobody reads could fill and stall it), shown by `log()`."""

    def __init__(self, out: Path, env: dict[str, str], log: Path, *args: str) -> None:
        self.log_path = log
        with log.open("wb") as sink:
            self.process = subprocess.Popen(
                [sys.executable, "-c", ENTRY, "serve", "--port", "0", "--out", str(out), *args],
                stdout=sink,
                stderr=subprocess.STDOUT,
                env=env,
            )
        found = None
        for _ in range(START_POLLS):
            found = re.search(r"(http://\S+)", self.log())
            if found or self.process.poll() is not None:
                break
            time.sleep(0.1)
        assert found, f"nandlab serve printed no address: {self.log()!r}"
        self.url = found.group(1)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    chromium = shutil.which("chromium")
    assert chromium, "Debian's chromium is missing: make setup installs it"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, headless=True)
        yield b
        b.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("NANDLAB_SCREENSHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _units_done(page: Page) -> int:
    return int(page.inner_text("#units-done"))


def _get(url: str, host: str | None = None) -> int:
    """The HTTP status of GET `url` (with `host` as the Host header)."""
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_dashboard_in_browser(
    browser: Browser, tmp_path: Path, data_dir: Path, shots: Path
) -> None:
    out = tmp_path / "runs"
    campaign = tmp_path / "dash-live.yaml"
    campaign.write_text(CAMPAIGN)
    env = {**os.environ, "NANDLAB_DATA_DIR": str(data_dir)}
    server = Server(out, env, tmp_path / "serve.log")
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(TIMEOUT_MS)
        script_errors: list[str] = []
        page.on("pageerror", lambda exc: script_errors.append(str(exc)))
        page.goto(server.url)
        expect(page.locator("h1")).to_contain_text("Runs in")

        # a campaign that programs and erases is refused until the box is ticked
        page.fill("#campaign-file", str(campaign))
        page.click("#start")
        expect(page.locator("#start-error")).to_contain_text("confirmation box")
        assert not out.exists() or not any(out.glob("*/run.json"))
        page.check("#confirm")
        page.click("#start")
        page.wait_for_url(re.compile(r"/runs/dash-live-"))
        run_id = page.url.rsplit("/", 1)[1]
        # a marker the page would lose on a reload: every update below comes by events
        page.evaluate("window.notReloaded = true")

        # the count moves while the run goes, then it is stopped part-way
        page.wait_for_function("Number(document.querySelector('#units-done').textContent) >= 2")
        expect(page.locator("#units-total")).to_have_text(str(UNITS))
        expect(page.locator("#status")).to_have_text("running")
        page.click("#stop")
        expect(page.locator("#status")).to_have_text("interrupted")
        stopped_at = _units_done(page)
        assert 2 <= stopped_at < UNITS
        meta = json.loads((out / run_id / "run.json").read_text())
        assert meta["status"] == "interrupted"

        # resumed from the page, it completes with every unit once
        page.click("#resume")
        expect(page.locator("#status")).to_have_text("complete")
        expect(page.locator("#units-done")).to_have_text(str(UNITS))
        assert page.evaluate("window.notReloaded") is True
        table = pq.read_table(out / run_id / "measurements.parquet")
        units = set(table.column("unit_idx").to_pylist())
        assert units == set(range(UNITS))
        rows_shown = int(page.inner_text("#rows"))
        assert rows_shown == table.num_rows

        # plots: drawn by plotly.js from the server's figure JSON
        page.click("button[data-figure='rber-pec']")
        for name in ("fresh LSB", "fresh MSB", "1y@30C LSB", "1y@30C MSB"):
            # waits for plotly.js to draw the legend, which may come a frame after the axes
            expect(page.locator("#plot .legendtext", has_text=re.compile(f"^{name}$"))) \
                .to_have_count(1)
        page.screenshot(path=str(shots / "run-rber.png"), full_page=True)
        page.click("button[data-figure='vth']")
        expect(page.locator("#plot .legendtext").first).to_contain_text("P/E 1, fresh")
        expect(page.locator("#campaign")).to_have_text("dash-live")
        # the bench as run.json recorded it
        expect(page.locator("#bench")).to_contain_text("sim://mlc-64l?seed=21")
        expect(page.locator("#bench")).to_contain_text("power instrument")
        expect(page.locator("#bench")).to_contain_text("1 time(s)")  # the resume
        page.screenshot(path=str(shots / "run.png"), full_page=True)

        # the catalogue lists the run and filters it away by status
        page.goto(server.url)
        expect(page.locator("#runs tbody tr")).to_have_count(1)
        expect(page.locator("#runs tbody")).to_contain_text("complete")
        page.screenshot(path=str(shots / "catalogue.png"), full_page=True)
        page.goto(server.url + "?status=interrupted")
        expect(page.locator("#runs tbody tr")).to_have_count(0)
        # on loopback, a request naming another host (DNS rebinding) is refused
        assert _get(server.url) == 200
        assert _get(server.url, host="rebound.example") == 400

        # the chip ledger: the two cycled blocks carry the wear the rows were measured at
        page.goto(server.url)
        page.locator("#runs tbody a[href^='/ledger/']").first.click()
        expect(page.locator("h1")).to_contain_text("Chip ledger")
        expect(page.locator("#heatmap .main-svg").first).to_be_visible()
        heat = page.evaluate("document.getElementById('heatmap').data[0].z")
        wear = {b: max(p for blk, p in zip(table.column("block").to_pylist(),
                                            table.column("pec").to_pylist(), strict=True)
                       if blk == b and p is not None) for b in (200, 201)}
        assert sorted(wear.values()) == [1, 10000]  # the campaign's sweep, one value per block
        assert {b: heat[b // 64][b % 64] for b in wear} == wear
        assert sum(v is not None for row in heat for v in row) == 2  # no other block worn
        assert len(heat) == 2048 // 64  # every block of the chip (2 planes x 1024)
        expect(page.locator("#ledger-runs")).to_contain_text(run_id)
        page.screenshot(path=str(shots / "ledger.png"), full_page=True)
        assert script_errors == []  # no uncaught error in the pages' scripts
    finally:
        server.close()
        print(server.log())  # pytest shows it when the test fails
        for log in (out / ".dashboard").glob("*.log"):
            print(f"{log.name}:\n{log.read_text(errors='replace')}")

    # on a non-loopback address the token is required
    guarded = Server(out, env, tmp_path / "serve-guarded.log", "--host", "0.0.0.0")
    try:
        # the printed address names this host; the token applies to loopback clients too
        printed = re.fullmatch(r"http://[^/]+:(\d+)/\?token=(\S+)", guarded.url)
        assert printed, guarded.url
        bare = f"http://127.0.0.1:{printed.group(1)}/"
        token_url = f"{bare}?token={printed.group(2)}"
        assert _get(bare) == 401
        assert _get(bare + f"api/runs/{run_id}/progress") == 401
        assert _get(bare + "?token=wrong-token-of-some-length") == 401
        page = browser.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        refused = page.goto(bare)
        assert refused is not None and refused.status == 401
        page.goto(token_url)
        expect(page.locator("#runs tbody tr")).to_have_count(1)
        # later requests (pages, events, figures) carry the token as a cookie
        page.click(f"a[href='/runs/{run_id}']")
        expect(page.locator("#status")).to_have_text("complete")
        # the bench panel is filled from the progress events only: they got through
        expect(page.locator("#bench")).to_contain_text("sim://mlc-64l")
        page.click("button[data-figure='latency']")
        expect(page.locator("#plot .legendtext").first).to_contain_text("read")
        page.click("button[data-figure='energy']")
        expect(page.locator("#plot .legendtext").first).to_contain_text("(estimate)")
    finally:
        guarded.close()
        print(guarded.log())
