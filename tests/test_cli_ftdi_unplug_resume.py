"""An FT2232H bench unplugged mid-campaign: the run stops cleanly, `nandlab resume` finishes it.

The bench is the virtual FT2232H plugged in as a pyusb backend (pyftdi and
everything above it unchanged); the cable is pulled after a number of USB
transfers that lands inside the campaign, then plugged back in.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from click.testing import Result
from nandlab.boards import load_board
from nandlab.campaign.runner import read_meta
from nandlab.dataset.store import RunStore
from nandlab.profiles import load_profile
from nandlab.vchip.die import VirtualDie
from nandlab.vusb import plugged
from nandlab.vusb.ft2232h import VirtualFt2232h

CAMPAIGN = """\
name: unplug
bench: ftdi://ftdi:2232h/1?board=ft2232h-bga&profile=mlc-64l
seed: 2
blocks: [10, 11]
steps:
  - cycle: {pec: 1}
  - program: {wls: 0-1, mode: slc}
  - measure: {what: [rber]}
"""
UNITS = 6  # (cycle, program, measure) x 2 blocks


def _device(seed: int) -> VirtualFt2232h:
    """A board with a fresh die (its own unique ID per seed, so the chip ledgers differ)."""
    return VirtualFt2232h(load_board("ft2232h-bga"), VirtualDie(load_profile("mlc-64l"), seed, 0))


def _units(run_dir: Path) -> list[str]:
    store = RunStore(run_dir)
    try:
        return [row["unit"] for row in store.rows()]
    finally:
        store.close()


def test_unplugged_mid_campaign_stops_cleanly_and_resume_completes(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    (tmp_path / "c.yaml").write_text(CAMPAIGN)
    with plugged(_device(1)):
        result = run("run", "--yes", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "runs"),
                     "--run-id", "ref", "--no-progress")
        assert result.exit_code == 0, result.output
    reference = _units(tmp_path / "runs" / "ref")

    device = _device(0)
    run_dir = tmp_path / "runs" / "u"
    with plugged(device):
        device.unplug_after_transfers = 100  # a full run takes about 200
        result = run("run", "--yes", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "runs"),
                     "--run-id", "u", "--no-progress")
        assert result.exit_code == 1, result.output
        assert "nandlab resume" in result.stderr and "gone" in result.stderr
        meta = read_meta(run_dir)
        assert meta["status"] == "stopped"
        done = _units(run_dir)
        assert 0 < len(set(done)) < UNITS and meta["failed_unit"] not in done

        device.plugged, device.unplug_after_transfers = True, None  # cable back in
        result = run("resume", "--yes", str(run_dir), "--json", "--no-progress")
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["status"] == "complete"
    units = _units(run_dir)
    assert units[: len(done)] == done, "rows committed before the fault are kept as they were"
    assert len(set(units)) == UNITS
    assert Counter(units) == Counter(reference), "no row lost or duplicated"
