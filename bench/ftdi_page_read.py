"""USB cost of a 16 KiB page read and program on an FT2232H bench (MCU host bus fast path).

Runs READ (00h-30h), WAIT_RDY and DOUT 16384 on the bench, once with R/B#
sampled in the stream (busy=sample, the default: tR measured) and once with the
chip waiting on R/B# alone (busy=wait), and prints `name: value` lines per mode:
USB round trips (times the host waits for the chip) and bulk writes per page,
command bytes sent per data byte (goal <= 2.01), reply bytes per data byte, the
measured tR and the bus-level figure of the published FT2232H NAND readers for
comparison (2 command bytes per byte read, and one extra round trip per R/B#
poll). Then, per mode, a session's command bytes per data byte for reads and for
programs (the chip layer's page program, blank check off), RESET included: one
RESET (planned from ONFI's idle tRST) and `--reads` pages, and the RESET's own bytes. Without --url the bench is a virtual FT2232H plugged in as a pyusb backend
(pyftdi runs unchanged); with --url (or NANDLAB_FTDI_URL) it is a real one (its
busy= option is replaced by each mode). Wall time is printed for information
only: on the virtual device it is Python time, not USB time.

    python bench/ftdi_page_read.py [--url ftdi://ftdi:2232h/1?board=...&profile=...] [--reads N]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import time
from collections.abc import Iterator
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from nandlab.onfi import Chip
from nandlab.ops import Program
from nandlab.transport import open_bench
from nandlab.transport.ftdi import FtdiTransport
from nandlab.transport.ftdi.options import BUSY_MODES
from nandlab.vusb.bench import virtual_ftdi_bench

PAGE = 16384
BLOCK = 9  # a block the page reads and programs of the session figures use
PUBLISHED_CMD_PER_BYTE = 2.0  # READ_SHORT 90h + address per byte read (DumpFlash, NandTool)


@contextlib.contextmanager
def bench_at(url: str | None, busy: str) -> Iterator[FtdiTransport]:
    if url:
        parts = urlsplit(url)
        query = [(k, v) for k, v in parse_qsl(parts.query) if k != "busy"] + [("busy", busy)]
        bench = open_bench(urlunsplit(parts._replace(query=urlencode(query))))
        assert isinstance(bench, FtdiTransport), "--url must be an ftdi:// bench"
        with bench:
            yield bench
        return
    with virtual_ftdi_bench("ft2232h-bga", "mlc-64l", busy=busy) as (virtual, device):
        yield virtual
        assert device.bus.violations == [], device.bus.violations


def page_read(row: int, timeout_ns: int) -> Program:
    """A page read as the chip layer issues it: WAIT_RDY's timeout is 4 x the declared tR,
    and the FT2232H samples R/B# over 1.25 x that declared tR."""
    return (Program().ce(0).cmd(0x00).addr(bytes(2) + row.to_bytes(3, "little")).cmd(0x30)
            .delay(200).wait_rdy(timeout_ns).delay(120).dout(PAGE))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default=os.environ.get("NANDLAB_FTDI_URL"))
    ap.add_argument("--reads", type=int, default=8)
    args = ap.parse_args()
    print(f"bench: {'real ' + args.url if args.url else 'virtual FT2232H (vusb)'}")
    print(f"page_bytes: {PAGE}")
    print(f"published_readers_command_bytes_per_data_byte: {PUBLISHED_CMD_PER_BYTE:g}")
    for busy in BUSY_MODES:
        with bench_at(args.url, busy) as bench:
            if busy == BUSY_MODES[0]:
                print("published_readers_round_trips_per_page: 1 per R/B# poll + "
                      f"{-(-PAGE // bench.ctrl.reply_chunk_bytes)} for the data")
            chip = Chip(bench)
            chip.identify()
            timeout = chip.timeouts.read
            bench.run(page_read(0, timeout)).raise_for_errors()  # warm up (JIT, caches)
            bench.stats.reset()
            busy_ns: list[int] = []
            t0 = time.perf_counter()
            for i in range(args.reads):
                results = bench.run(page_read(i, timeout))
                results.raise_for_errors()
                busy_ns += results.busy_ns
            wall = time.perf_counter() - t0
            s = bench.stats
            n = args.reads
            print(f"[busy={busy}] usb_round_trips_per_page: {s.round_trips / n:g}")
            print(f"[busy={busy}] usb_bulk_writes_per_page: {s.usb_writes / n:g}")
            print(f"[busy={busy}] command_bytes_per_data_byte: {s.bytes_sent / (n * PAGE):.4f}")
            print(f"[busy={busy}] reply_bytes_per_data_byte: {s.bytes_received / (n * PAGE):.4f}")
            print(f"[busy={busy}] rb_waits_in_stream: {n}")
            print(f"[busy={busy}] busy_ns_mean: {sum(busy_ns) / len(busy_ns):.0f}")
            print(f"[busy={busy}] busy_source: {bench.busy_source}")
            print(f"[busy={busy}] wall_ms_per_page: {1000 * wall / n:.2f}")
            session_costs(bench, chip, busy, n)


def session_costs(bench: FtdiTransport, chip: Chip, busy: str, n: int) -> None:
    """Command bytes per data byte of a RESET and `n` page reads, and of a RESET and `n`
    page programs (SLC, on an erased block)."""
    s = bench.stats
    s.reset()
    chip.reset()
    reset_bytes = s.bytes_sent
    print(f"[busy={busy}] reset_command_bytes: {reset_bytes}")
    for i in range(n):
        chip.read_page(BLOCK, i, slc=True)
    print(f"[busy={busy}] read_command_bytes_per_data_byte_reset_included: "
          f"{s.bytes_sent / s.data_bytes:.4f}")  # data: the pages' bytes, spare included
    chip.erase_block(BLOCK)
    data = bytes(range(256)) * (chip.geometry.total_bytes // 256)
    s.reset()
    chip.reset()
    for i in range(n):
        chip.program_page(BLOCK, i, data[: chip.geometry.total_bytes], slc=True,
                          blank_check=False)
    print(f"[busy={busy}] program_command_bytes_per_data_byte_reset_included: "
          f"{s.bytes_sent / (n * chip.geometry.total_bytes):.4f}")


if __name__ == "__main__":
    main()
