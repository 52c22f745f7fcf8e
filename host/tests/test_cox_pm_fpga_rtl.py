"""`nandlab search --scheme cox-pm` on rtl:// with a plain part: the RTL controller under Icarus
reads the page over its ONFI pins and the CoX-PM kernel (hw/hls/coxpm, compiled natively) decodes
and matches it on the read stream.

Pin-level simulation costs wall time per simulated microsecond, so the part is tlc-48l with
2 KiB pages (2 sub-pages, a pattern straddling them), 16 blocks and 10x shorter ISPP loops
(tPROG ~60 us instead of ~340 us: the cells land where they did, only sooner), and the data
moves in SDR mode 5 (20 ns a byte, not mode 0's 100): commands, physics and the kernel are
as they are. About 25 s of simulator CPU (it was 37 s)."""

from __future__ import annotations

from pathlib import Path

import yaml

from nandlab.campaign.steps.cox_pm import page_text
from nandlab.onfi import Chip
from nandlab.onfi_spec.coxpm import SUBPAGE_BYTES, encode_page
from nandlab.profiles import builtin_names
from nandlab.schemes.cox_pm import CoxPmScan
from nandlab.transport.rtl import open_rtl

PROFILES = Path(__file__).resolve().parents[1] / "nandlab" / "profiles" / "builtin"
PATTERN = b"across the sub-page boundary"


def small_tlc(folder: Path) -> Path:
    assert "tlc-48l" in builtin_names()
    spec = yaml.safe_load((PROFILES / "tlc-48l.yaml").read_text())
    spec["name"] = "tlc-48l-2k"
    spec["geometry"].update(page_bytes=2048, spare_bytes=256, blocks_per_plane=16)
    spec["physics"]["ispp"].update(t_loop_us=2.0, t_verify_us=0.3)
    path = folder / "tlc-48l-2k.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def test_cox_pm_scan_on_a_plain_part_through_the_rtl_controller(tmp_path: Path) -> None:
    bench = open_rtl(f"rtl://?profile={small_tlc(tmp_path)}&seed=3&sim=icarus")
    try:
        assert bench.supports("fpga_coxpm") and not bench.supports("coxpm")
        chip = Chip(bench)
        chip.identify()
        chip.set_timing_mode(5)
        scan = CoxPmScan(chip, matcher=bench.roles.matcher, allow_test_mode=True)
        text = page_text(2, 3, 1, 2048)
        at = SUBPAGE_BYTES - 10
        text = text[:at] + PATTERN + text[at + len(PATTERN) :]
        # what scan.store writes, without its blank-check read: a fresh die's blocks are erased
        chip.program_page(3, 0, encode_page(3, 0, text, 2048, 256), blank_check=False)
        scan.set_patterns([b"never in the text", PATTERN])
        (answer,) = scan.scan(3, [0])
        assert (answer.matched, answer.path, answer.data) == (True, "fpga", text)
        assert answer.host_bytes == 2048
        assert answer.busy_us > 0 and answer.kernel_us >= 2 * (1152 + 72 + 1024) * 0.01
    finally:
        bench.close()
