"""CoX-PM in simulated time: does the in-chip decode + match keep up with sensing?

On the virtual CoX-PM die (sim://tlc-coxpm), for the three pages of one WL
(lower / middle / upper: tR 40 / 45 / 40 us), prints as `name: value`:

- `coxpm_decode_over_tR_<page>`: the decode + match time per page over that
  page's sensing time (<= 1.0: hidden behind the next page's sensing);
- `coxpm_single_us_<page>`: R/B# busy of the single form (tR + decode);
- `coxpm_scan_us_per_page`: mean busy per page of a cache-form scan of 48
  pages (the decode of page n runs while page n + 1 is sensed);
- `coxpm_scan_cpu_ms_per_page`: host CPU per page of that scan (the die's
  bit-flipping decode of 16 sub-pages is most of it).

All times but the last are the die's virtual clock, so the machine's load does
not change them.

    .venv/bin/python bench/cox_pm.py
"""

from __future__ import annotations

import tempfile
import time

import numpy as np
from nandlab.onfi import Chip
from nandlab.onfi_spec import coxpm as fmt
from nandlab.sequences import coxpm as seq
from nandlab.transport import open_bench

BLOCK, PAGES = 9, 48
NAMES = ("lower", "middle", "upper")


def main() -> None:
    with tempfile.TemporaryDirectory() as state, open_bench(
        f"sim://tlc-coxpm?seed=1&fresh=1&state={state}"
    ) as bench:
        chip = Chip(bench)
        chip.identify()
        c = chip.profile.vendor.coxpm
        assert c is not None
        chip.erase_block(BLOCK)
        rng = np.random.default_rng(1)
        geo = chip.geometry
        for p in range(PAGES):
            data = rng.bytes(geo.page_bytes)
            stored = fmt.encode_page(BLOCK, p, data, geo.page_bytes, geo.spare_bytes)
            chip.program_page(BLOCK, p, stored, blank_check=False)
        chip.run(seq.set_pattern(chip.sdr, c, fmt.pattern_bytes([b"never"]), 10**6), "set")
        timeout = chip.timeouts.read
        for p, name in enumerate(NAMES):
            t_r = chip.read_page(BLOCK, p).busy_ns / 1000.0
            row = geo.row_bytes(BLOCK, p)
            busy = sum(chip.run(seq.read_when_matched(chip.sdr, c, row, timeout), "rwm").busy_ns)
            print(f"coxpm_decode_over_tR_{name}: {c.t_decode_match_us / t_r:.3f}")
            print(f"coxpm_single_us_{name}: {busy / 1000.0:.1f}")
        total_ns = 0
        cpu = time.process_time()
        for p in range(PAGES):
            row = geo.row_bytes(BLOCK, p)
            prog = seq.read_when_matched_cache(chip.sdr, c, row, timeout)
            total_ns += sum(chip.run(prog, "rwm cache").busy_ns)
        total_ns += sum(chip.run(seq.read_when_matched_last(chip.sdr, c, timeout), "last").busy_ns)
        cpu = time.process_time() - cpu
        print(f"coxpm_scan_us_per_page: {total_ns / 1000.0 / PAGES:.2f}")
        print(f"coxpm_scan_cpu_ms_per_page: {cpu * 1000.0 / PAGES:.1f}")


if __name__ == "__main__":
    main()
