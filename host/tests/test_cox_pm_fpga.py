"""CoX-PM on an ordinary chip: the kernel hw/hls/coxpm (compiled natively) on the bench's read
stream gives the answers of the in-chip path and of a full read + host match; patterns that
straddle two sub-pages match (the paper's PM reads a page as one stream), patterns that straddle
two pages match neither (a page is matched when it contains a pattern); and every transport
declares what it offers, so the scheme refuses a bench that cannot with what to use instead.

The scheme tests swap only the lowest layer: a sim bench that declares `fpga_coxpm` and hands
out the same `FpgaCoxPm` role rtl:// does (test_cox_pm_fpga_rtl.py runs it on the RTL)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np
import pytest

from nandlab.bench import Bench
from nandlab.campaign.steps.cox_pm import page_text
from nandlab.errors import UnsupportedCapability
from nandlab.onfi import Chip
from nandlab.onfi_spec.coxpm import SUBPAGE_BYTES, Outcome, encode_page, page_stream
from nandlab.schemes.cox_pm import CoxPmScan, PageAnswer
from nandlab.schemes.sim_search import SimSearch
from nandlab.transport.fpga_coxpm import FpgaCoxPm, build_library, kernel_page
from nandlab.transport.ftdi.transport import FtdiTransport
from nandlab.transport.roles import Roles
from nandlab.transport.rtl import RtlTransport
from nandlab.transport.sim import SimTransport
from nandlab.transport.xdma import XdmaTransport
from nandlab.transport.xdma_emulation import emulated_bench
from nandlab.vusb.bench import virtual_ftdi_bench

PATTERNS = [b"special requests", b"green almond"]
PAGES = 6
STRADDLE = b"straddling sub-pages"
SPLIT = b"split over two pages"


class SimWithKernel(SimTransport):
    """A sim bench whose controller runs the CoX-PM kernel on its read stream, as rtl:// does."""

    bench_capabilities = SimTransport.bench_capabilities | {"fpga_coxpm"}

    def __init__(self, profile: str, **kw: object) -> None:
        super().__init__(profile, **kw)  # type: ignore[arg-type]
        self._matcher = FpgaCoxPm(self, clock_ns=10.0)

    @property
    def roles(self) -> Roles:
        return Roles(**{**super().roles.__dict__, "matcher": self._matcher})


def texts(block: int, page_bytes: int) -> dict[int, bytes]:
    """Seeded text pages; page 1 holds STRADDLE across its first sub-page boundary, pages 4
    and 5 hold SPLIT across theirs (its head ends page 4, its tail starts page 5)."""
    out = {p: page_text(1, block, p, page_bytes) for p in range(PAGES)}
    at = SUBPAGE_BYTES - 7
    out[1] = out[1][:at] + STRADDLE + out[1][at + len(STRADDLE) :]
    head, tail = SPLIT[:9], SPLIT[9:]
    out[4] = out[4][: page_bytes - len(head)] + head
    out[5] = tail + out[5][len(tail) :]
    return out


def scan_all(scan: CoxPmScan, block: int, data: dict[int, bytes]) -> list[PageAnswer]:
    for p, text in data.items():
        scan.store(block, p, text)
    scan.set_patterns([*PATTERNS, STRADDLE, SPLIT])
    return scan.scan(block, range(PAGES))


def host_truth(data: dict[int, bytes]) -> list[bool]:
    """A full read + host match: a regular-expression search of each page's data written."""
    rx = re.compile(b"|".join(re.escape(p) for p in [*PATTERNS, STRADDLE, SPLIT]))
    return [rx.search(data[p]) is not None for p in range(PAGES)]


@pytest.fixture(scope="module")
def fpga() -> Iterator[tuple[Chip, Bench]]:
    with SimWithKernel("tlc-48l", seed=3, persist=False) as bench:
        chip = Chip(bench)
        chip.identify()
        yield chip, Bench(bench)


def test_fpga_path_answers_as_the_chip_and_the_host(fpga: tuple[Chip, Bench]) -> None:
    chip, bench = fpga
    data = texts(4, chip.geometry.page_bytes)
    want = host_truth(data)
    assert want == [True, True, False, True, False, False]  # the split pattern matches no page
    got = scan_all(CoxPmScan(chip, matcher=bench.matcher, allow_test_mode=True), 4, data)
    with SimTransport("tlc-coxpm", seed=3, persist=False) as sim:
        die = Chip(sim)
        die.identify()
        in_chip = scan_all(CoxPmScan(die, allow_test_mode=True), 4, data)
    assert [a.matched for a in got] == [a.matched for a in in_chip] == want
    assert [a.path for a in got] == ["fpga"] * PAGES and [a.path for a in in_chip] == ["chip"] * 6
    for a in got:
        assert a.data == (data[a.page] if a.matched else None)
        # the page stays on the board unless it matched: 0 bytes, or the plain data area
        assert a.host_bytes == (chip.geometry.page_bytes if a.matched else 0)
        # 16 sub-pages of at least stream-in + syndrome + match clocks at 10 ns
        assert a.kernel_us >= 16 * (1152 + 72 + 1024) * 0.01
    assert got[1].data is not None and STRADDLE in got[1].data


def test_worn_pages_fall_back_and_stay_right(fpga: tuple[Chip, Bench]) -> None:
    """10K P/E + 3 years at 30 °C: the board's 17-pass decoder fails every page here and the
    controller's min-sum path answers, the sub-page straddle included."""
    chip, bench = fpga
    data = texts(8, chip.geometry.page_bytes)
    bench.wear.fast_forward_wear(0, 8, 10_000)
    scan = CoxPmScan(chip, matcher=bench.matcher, allow_test_mode=True)
    for p, text in data.items():
        scan.store(8, p, text)
    bench.oven.bake(30.0, 3 * 8766.0)
    scan.set_patterns([*PATTERNS, STRADDLE, SPLIT])
    got = scan.scan(8, range(PAGES))
    assert [a.path for a in got] == ["fallback"] * PAGES
    assert [a.matched for a in got] == host_truth(data)
    assert all(a.bit_errors is not None and a.bit_errors > 72 for a in got)
    assert got[1].data is not None and STRADDLE in got[1].data


def test_kernel_matches_across_sub_pages_not_pages() -> None:
    """The compiled kernel alone, on error-free pages of 2 sub-pages: a pattern ending in the
    second sub-page but starting in the first matches; the window starts empty per page."""
    build_library()
    rng = np.random.default_rng(5)
    letters = np.frombuffer(b"abcdefghijklmnopqrstuvwy ", dtype=np.uint8)
    for at in (0, 1000, 1016, 1023, 2048 - 32):
        plain = bytearray(letters[rng.integers(0, letters.size, 2048)].tobytes())
        pat = b"xz" * 16  # 32 bytes: 'x' and 'z' occur nowhere else
        plain[at : at + 32] = pat
        stored = encode_page(3, 1, bytes(plain), 2048, 256)
        outcome, match, out, passes = kernel_page(stored, 2048, page_stream(3, 1, 2048), [pat], 17)
        assert (outcome, match, out, passes) == (Outcome.MATCHED, 1, bytes(plain), (0, 0)), at
    # the pattern's tail at the start of a page: no carry from anything before it
    tail = b"z" + bytes(letters[rng.integers(0, letters.size, 2047)].tobytes())
    stored = encode_page(3, 2, tail, 2048, 256)
    got = kernel_page(stored, 2048, page_stream(3, 2, 2048), [b"xz"], 17)
    assert got[:2] == (Outcome.NOT_MATCHED, 0)


# ------------------------------------------------------------- what each bench declares


def test_each_transport_declares_search_coxpm_and_fpga_coxpm() -> None:
    for cls in (SimTransport, RtlTransport, FtdiTransport, XdmaTransport):
        assert {"search", "coxpm"} <= set(cls.vendor_capabilities), cls.__name__
    assert "fpga_coxpm" in RtlTransport.bench_capabilities
    for cls in (SimTransport, FtdiTransport, XdmaTransport):
        assert "fpga_coxpm" not in cls.bench_capabilities
        assert "rtl://" in cls.lacks["fpga_coxpm"], cls.__name__


def test_xdma_drives_a_coxpm_part_and_refuses_a_plain_one() -> None:
    bench, _ = emulated_bench("kcu105-fmc-nand", "tlc-coxpm", seed=2)
    with bench:
        chip = Chip(bench)
        chip.identify()
        assert bench.supports("coxpm") and not bench.supports("fpga_coxpm")
        data = texts(6, chip.geometry.page_bytes)
        got = scan_all(CoxPmScan(chip, allow_test_mode=True), 6, data)
        assert [a.matched for a in got] == host_truth(data)
    plain, _ = emulated_bench("kcu105-fmc-nand", "tlc-48l")
    with plain, pytest.raises(UnsupportedCapability) as err:
        CoxPmScan(Chip(plain))
    msg = str(err.value)
    assert "cannot do 'fpga_coxpm'" in msg and "use rtl://PROFILE" in msg and "XDMA" in msg


def test_ftdi_drives_a_search_part_and_refuses_cox_pm_on_a_plain_one() -> None:
    with virtual_ftdi_bench("ft2232h-bga", "slc-search", seed=4) as (bench, _):
        chip = Chip(bench)
        chip.identify()
        chip.erase_block(2)
        search = SimSearch(chip, allow_test_mode=True)
        search.store(2, 0, list(range(100, 604)))
        answer = search.search(2, 0, 357)
        assert answer.path == "chip" and np.flatnonzero(answer.matches).tolist() == [8 + 257]
        with pytest.raises(UnsupportedCapability) as err:
            CoxPmScan(chip)
        assert "vendor.coxpm; slc-search has none" in str(err.value)
        assert "FT2232H has no logic on its read stream" in str(err.value)
