"""The Bench: declared roles handed out by name, a typed error naming the role and the URL
when a bench lacks one, and the snapshot every run records (sim, virtual FT2232H, emulated
XDMA)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nandlab.bench import ROLE_NAMES, Bench, MissingRole
from nandlab.boards import load_board
from nandlab.errors import RangeError, TransportError, UnsupportedCapability
from nandlab.ops import Program
from nandlab.ops._generated import SPEC_VERSION
from nandlab.regs import ID_MAGIC
from nandlab.transport import SimTransport
from nandlab.transport.xdma_emulation import emulated_bench
from nandlab.vusb.bench import virtual_ftdi_bench

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def sim() -> Bench:
    return Bench(SimTransport("mlc-64l", seed=3, dies=2, persist=False))


def test_sim_roles_are_declared(sim: Bench) -> None:
    assert [r for r in ROLE_NAMES if sim.has(r)] == ["power", "clock", "faults", "wear", "oven"]
    before = sim.clock.now_ns
    ns = sim.wear.fast_forward_wear(1, 10, 100)
    assert ns > 0 and sim.clock.now_ns == before + ns == sim.chip_time_ns()
    sim.oven.bake(85.0, 1.0)
    assert sim.clock.now_ns == before + ns  # a bake takes no chip time


@pytest.mark.parametrize(
    ("role", "words"),
    [
        ("thermal", "no temperature controller (role thermal): declare the board's temperature"),
        ("firmware", "no firmware loops (role firmware)"),
    ],
)
def test_missing_role_names_role_and_url(sim: Bench, role: str, words: str) -> None:
    with pytest.raises(MissingRole) as info:
        getattr(sim, role)
    assert isinstance(info.value, UnsupportedCapability)
    assert info.value.role == role and info.value.url == sim.url
    assert str(info.value).startswith(f"bench {sim.url} has ") and words in str(info.value)


def test_virtual_only_roles_are_missing_on_hardware_benches() -> None:
    with virtual_ftdi_bench() as (transport, _device):
        bench = Bench(transport)
        for role in ("clock", "wear", "oven", "faults", "power", "thermal"):
            assert not bench.has(role)
            with pytest.raises(MissingRole, match=f"role {role}"):
                getattr(bench, role)
        assert bench.chip_time_ns() == 0


def test_sim_fault_injector_breaks_the_link_on_the_armed_program(sim: Bench) -> None:
    status = Program().ce(0).cmd(0x70).delay(120).dout(1)
    assert sim.faults.faults == ("link_lost",)
    sim.faults.inject("link_lost", after_programs=1)
    sim.transport.run(status)
    with pytest.raises(TransportError, match="link lost"):
        sim.transport.run(status)
    sim.transport.run(status)  # the fault happens once
    with pytest.raises(RangeError, match="unknown"):
        sim.faults.inject("meteor")


def test_sim_snapshot(sim: Bench) -> None:
    snap = sim.snapshot()
    assert snap["url"] == "sim://mlc-64l?seed=3&dies=2" and snap["transport"] == "sim"
    assert snap["profile"] == "mlc-64l" and snap["targets"] == 2
    assert snap["seed"] == 3 and snap["dies"] == 2 and snap["die_image"] == "not persisted"
    assert snap["roles"] == ["power", "clock", "faults", "wear", "oven"]
    assert snap["instruments"]["power"]["kind"] == "virtual"
    assert "thermal" not in snap["instruments"]
    assert sim.transport.profile is not None
    ambient = sim.transport.profile.environment.ambient_temp_C
    assert snap["temperatures_C"] == {"ambient": ambient, "measured": None}
    assert snap["busy_source"].startswith("stream:virtual die")


def test_ftdi_snapshot_names_board_file_and_bus() -> None:
    with virtual_ftdi_bench() as (transport, _device):
        snap = Bench(transport).snapshot()
    assert snap["transport"] == "ftdi" and snap["profile"] == "mlc-64l"
    assert snap["board"] == {
        "name": "ft2232h-bga",
        "file": str(REPO / "boards" / "ft2232h-bga.yaml"),
        "controller": "ft2232h",
    }
    assert snap["bus_mode"] == "mcu" and snap["device_url"] == "ftdi://ftdi:2232h/1"
    assert snap["ftdi"] == {"ic": "ft2232h", "serial": "NLV00001"}
    assert snap["roles"] == [] and snap["instruments"] == {}
    assert snap["busy_source"].startswith("stream:in-stream R/B#")


def test_xdma_snapshot_reads_the_bitstream_words() -> None:
    transport, emulation = emulated_bench(load_board("kcu105-fmc-nand"), num_ce=2)
    with Bench(transport) as bench:
        snap = bench.snapshot()
        assert bench.has("power") and not bench.has("clock")
    assert snap["transport"] == "xdma" and snap["targets"] == 2
    assert snap["board"]["name"] == "kcu105-fmc-nand" and snap["board"]["controller"] == "fpga"
    assert snap["board"]["file"] == str(REPO / "boards" / "kcu105-fmc-nand.yaml")
    bitstream = snap["bitstream"]
    assert bitstream["id"] == f"0x{ID_MAGIC:08X}" and bitstream["ops_spec"] == SPEC_VERSION
    assert bitstream["regs"] == "1.0" and bitstream["num_ce"] == 2
    assert bitstream["clk_period_ps"] == emulation.CLK_PERIOD_PS
    assert snap["instruments"]["power"]["sampled_by"] == "FPGA sequencer POWER windows"
