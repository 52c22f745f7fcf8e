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

CoX-PM on an ordinary chip (sim://tlc-48l; the board runs the kernel hw/hls/coxpm on its
read stream, `nandlab.transport.fpga_coxpm`):

- `coxpm_fpga_kernel_us_per_page`: the kernel's decode + match of one 16 KiB page at a
  100 MHz board clock (rtl://'s controller clock), fresh pages;
- `coxpm_fpga_kernel_over_bus_mode<m>`: that over the page's transfer (data + spare, one
  byte per tRC) in SDR mode 0 and 5 (<= 1.0: the board keeps up with the bus when it
  decodes page n while page n + 1 streams in);
- `coxpm_fpga_kernel_host_MBps`: the compiled kernel on this host, plain data per second
  of process CPU (one core; ldpc_decode.py gives the Python decoders' MB/s);
- `coxpm_rtl_s_per_page`, `coxpm_rtl_sim_us_per_page`: one scan of one page on rtl:// (the
  RTL under Icarus, tlc-48l with 2 KiB pages as in host/tests/test_cox_pm_fpga_rtl.py):
  wall seconds, and the simulated busy + kernel time.

All times but the CPU, wall and MB/s lines are virtual clocks, so the machine's load does
not change them.

    .venv/bin/python bench/cox_pm.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np
import yaml
from nandlab.onfi import Chip
from nandlab.onfi_spec import coxpm as fmt
from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.ops import Program
from nandlab.schemes.cox_pm import CoxPmScan
from nandlab.sequences import core
from nandlab.sequences import coxpm as seq
from nandlab.transport import open_bench
from nandlab.transport.fpga_coxpm import FpgaCoxPm, kernel_page
from nandlab.transport.rtl import open_rtl

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
    fpga_kernel()
    rtl_scan()


def fpga_kernel() -> None:
    with tempfile.TemporaryDirectory() as state, open_bench(
        f"sim://tlc-48l?seed=1&fresh=1&state={state}"
    ) as bench:
        chip = Chip(bench)
        chip.identify()
        geo = chip.geometry
        chip.erase_block(BLOCK)
        rng = np.random.default_rng(2)
        matcher = FpgaCoxPm(bench, clock_ns=10.0)
        matcher.set_patterns([b"never"])
        kernel_ns, raws = [], []
        for p in range(6):
            data = rng.bytes(geo.page_bytes)
            chip.program_page(BLOCK, p, fmt.encode_page(BLOCK, p, data, geo.page_bytes,
                                                        geo.spare_bytes), blank_check=False)
            body = core.page_read(chip.sdr, geo.full_address(BLOCK, p), geo.total_bytes,
                                  chip.timeouts.read)
            got = matcher.run_matched(Program().ce(0) + body, BLOCK, p, geo.page_bytes)
            kernel_ns.append(got.kernel_ns)
            raws.append(chip.read_page(BLOCK, p).data)
        us = float(np.mean(kernel_ns)) / 1000.0
        print(f"coxpm_fpga_kernel_us_per_page: {us:.1f}")
        for mode in (0, 5):
            bus_us = geo.total_bytes * sdr(mode).tRC / 1000.0
            print(f"coxpm_fpga_kernel_over_bus_mode{mode}: {us / bus_us:.3f}")
        keys = [fmt.page_stream(BLOCK, p, geo.page_bytes) for p in range(len(raws))]
        cpu = time.process_time()
        for _ in range(5):
            for raw, key in zip(raws, keys, strict=True):
                kernel_page(raw, geo.page_bytes, key, [b"never"], 17)
        cpu = time.process_time() - cpu
        print(f"coxpm_fpga_kernel_host_MBps: {5 * len(raws) * geo.page_bytes / cpu / 1e6:.1f}")


def rtl_scan() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        spec = yaml.safe_load(
            (Path(__file__).resolve().parents[1] / "host/nandlab/profiles/builtin/tlc-48l.yaml")
            .read_text()
        )
        spec["name"] = "tlc-48l-2k"
        spec["geometry"].update(page_bytes=2048, spare_bytes=256, blocks_per_plane=16)
        path = Path(tmp) / "tlc-48l-2k.yaml"
        path.write_text(yaml.safe_dump(spec, sort_keys=False))
        bench = open_rtl(f"rtl://?profile={path}&seed=1&sim=icarus")
        try:
            chip = Chip(bench)
            chip.identify()
            text = b"words and more words " * 97
            chip.program_page(3, 0, fmt.encode_page(3, 0, text, 2048, 256), blank_check=False)
            scan = CoxPmScan(chip, matcher=bench.roles.matcher, allow_test_mode=True)
            scan.set_patterns([b"more words"])
            wall = time.monotonic()
            (answer,) = scan.scan(3, [0])
            wall = time.monotonic() - wall
            assert answer.matched and answer.path == "fpga"
            print(f"coxpm_rtl_s_per_page: {wall:.1f}")
            print(f"coxpm_rtl_sim_us_per_page: {answer.busy_us + answer.kernel_us:.1f}")
        finally:
            bench.close()


if __name__ == "__main__":
    main()
