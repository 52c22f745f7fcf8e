"""xdma:// and the board CPU: a bitstream with the CPU (CPU_CTRL.CPU_ID, from
hw/regs/nandlab_cpu_bar.rdl) gives the bench the `firmware` role over the user BAR,
one without it does not, and a campaign's loops come out the same either way.

The emulated design with the CPU runs the firmware's own C code (the bridge library
of `make -C firmware host-lib`) on the mailbox registers and the shared RAM window,
and passes its op programs to the sequencer only while CPU_CTRL.STREAM_CPU is set.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from nandlab.bench import Bench, MissingRole
from nandlab.campaign.runner import run_campaign
from nandlab.campaign.schema import Campaign
from nandlab.campaign.steps.onboard import PATTERNS, Loop
from nandlab.errors import TransportError
from nandlab.firmware import LoopDescriptor, LoopKind, Permit
from nandlab.firmware._cpu_regs import BAR_CPU_CTRL, BAR_SHARED_SIZE, CPU_CTRL
from nandlab.onfi import Chip
from nandlab.ops import pattern_bytes
from nandlab.regs import REG
from nandlab.rtlsim.sim_env import TB_PROFILE
from nandlab.transport.firmware_native import LIB_NAME
from nandlab.transport.xdma import XdmaTransport
from nandlab.transport.xdma_emulation import XdmaEmulation, emulated_bench

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
BOARD = "kcu105-fmc-nand"
SEED = 5


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> Path:
    build = tmp_path_factory.mktemp("fw-bridge")
    subprocess.run(["make", "-s", "-C", str(FIRMWARE), "host-lib", f"BUILD={build}"],
                   check=True, capture_output=True)
    return build / "host" / LIB_NAME


def _bench(lib: Path | None) -> tuple[XdmaTransport, XdmaEmulation]:
    return emulated_bench(BOARD, TB_PROFILE, seed=SEED, firmware=lib)


def _pe_rows(tmp: Path, lib: Path | None, monkeypatch: pytest.MonkeyPatch
             ) -> tuple[list[dict], XdmaEmulation]:
    # a ledger of its own: both runs start from a chip without history
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp / "data"))
    opened: list[XdmaEmulation] = []

    def opener(url: str) -> XdmaTransport:
        transport, emulation = _bench(lib)
        opened.append(emulation)
        return transport

    transport, _ = _bench(None)
    campaign = Campaign.model_validate({
        "name": "pe", "bench": transport.url, "blocks": [2],
        "steps": [{"pe_loop": {"cycles": 4, "pages": 2}}]})
    transport.close()
    rows = run_campaign(campaign, tmp / "runs", opener=opener).rows()
    return rows, opened[-1]


def test_pe_loop_step_on_the_cpu_gives_the_host_driven_rows(
        lib: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    on_cpu, emulation = _pe_rows(tmp_path / "cpu", lib, monkeypatch)
    host, plain = _pe_rows(tmp_path / "host", None, monkeypatch)
    assert [r["pec"] for r in on_cpu if r["operation"] == "rber"] == [1, 2, 3, 4]
    assert on_cpu == host  # every column: latencies, energy, error counts, chip, P/E count
    assert emulation.cpu is not None and plain.cpu is None
    # the CPU ran the loop (its heartbeat moved once a cycle at least) and gave the
    # streams back to H2C / C2H after it
    assert emulation.cpu.read32(REG["MBX_HEARTBEAT"].offset) >= 4
    assert not emulation.stream_cpu


def test_firmware_role_only_with_the_cpu(lib: Path) -> None:
    with_cpu, _ = _bench(lib)
    without, emulation = _bench(None)
    assert with_cpu.cpu and Bench(with_cpu).has("firmware")
    cpu = with_cpu.describe()["bitstream"]["cpu"]
    assert cpu["present"] and cpu["firmware"][0] == 1  # the firmware's mailbox protocol
    # the CPU-less top decodes 7 address bits: CPU_CTRL's offset reads its ID register
    assert without.read32(BAR_CPU_CTRL) == without.read_reg("ID")
    assert not without.cpu and without.describe()["bitstream"]["cpu"] == {"present": False}
    with pytest.raises(MissingRole, match="CPU"):
        Bench(without).firmware  # noqa: B018 - the access is the check
    with_cpu.close()
    without.close()


def test_streams_belong_to_the_cpu_only_during_a_loop(lib: Path) -> None:
    transport, emulation = _bench(lib)
    bench = Bench(transport)
    chip = Chip(transport)
    chip.identify()  # op programs down H2C: STREAM_CPU is clear
    ctrl = transport.read32(BAR_CPU_CTRL)
    assert CPU_CTRL.field("STREAM_CPU").get(ctrl) == 0
    assert CPU_CTRL.field("CPU_ID").get(ctrl) == CPU_CTRL.field("CPU_ID").reset
    loop = Loop(ce=0, block=3, pages=1, page_bytes=chip.geometry.page_bytes,
                pattern=PATTERNS["checker"], seed=1, chunk=32)
    mailbox = transport.mailbox
    assert mailbox is not None
    # without the handover the firmware's programs never reach the sequencer
    mailbox.session(Permit.ERASE | Permit.PROGRAM)
    with pytest.raises(TransportError, match="STREAM_CPU"):
        mailbox.run_loop(LoopDescriptor(kind=LoopKind.PE_CYCLE, **loop.params(chip, 1)))
    mailbox.end_session()
    # while the CPU has the streams, H2C is not drained: the driver times out
    transport.write32(BAR_CPU_CTRL, CPU_CTRL.field("STREAM_CPU").put(0, 1))
    with pytest.raises(TransportError, match="timed out"):
        chip.read_page(3, 0)
    transport.write32(BAR_CPU_CTRL, 0)
    rows = bench.firmware.run_loop("pe_cycle", loop.params(chip, 2))
    assert [r["cycle"] for r in rows] == [0, 1] and not emulation.stream_cpu
    # the host's streams again: the page the firmware's last cycle wrote
    data = chip.read_page(3, 0).data[:loop.page_bytes]  # the data area the loop wrote
    want = pattern_bytes(loop.pattern, loop.seed, len(data))
    flips = sum(bin(a ^ b).count("1") for a, b in zip(data, want, strict=True))
    assert flips < len(data) * 8 // 100, flips
    with pytest.raises(TransportError, match="window"):
        mailbox.ram.read_words(BAR_SHARED_SIZE - 4, 2)
    bench.close()
