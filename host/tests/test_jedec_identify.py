"""JEDEC (Toggle DDR) identification: the virtual Toggle die read at its pins and checked by
an independent detector written from Linux's nand_jedec.c rules (`linux_jedec`), and the
host's identification of the same part through the chip layer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from linux_jedec import PAGE, NotJedec, detect

from nandlab.cli.app import cli
from nandlab.errors import ParameterPageCRCError
from nandlab.onfi import Chip, ChipGeometry, NotOnfiChip
from nandlab.onfi.errors import ParameterPageInvalid
from nandlab.onfi.identify_jedec import choose_jedec_page, decode_jedec_page
from nandlab.onfi_spec import jedec_parampage as jp
from nandlab.onfi_spec.opcodes import Cmd
from nandlab.profiles import Profile, builtin_names, load_profile
from nandlab.transport import open_bench
from nandlab.vchip import identity_jedec
from nandlab.vchip.die import VirtualDie

MS = 1_000_000_000
JEDEC_NAMES = [n for n in builtin_names() if load_profile(n).identity.standard == "jedec"]


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path))
    return tmp_path


def read_at_pins(profile: Profile, corrupt: tuple[int, ...] = ()) -> tuple[bytes, bytes, bytes]:
    """(READ ID 20h x 4, READ ID 40h x 5, READ PARAMETER PAGE 40h x 3 copies) at the pins."""
    die = VirtualDie(profile, corrupt_param_copies=corrupt)

    def read_id(address: int, n: int) -> bytes:
        die.cmd(Cmd.READ_ID)
        die.addr(address)
        return die.read(n)

    id20, id40 = read_id(0x20, 4), read_id(0x40, 5)
    die.cmd(Cmd.READ_PARAMETER_PAGE)
    die.addr(0x40)
    assert die.wait_ready(MS) is not None
    return id20, id40, die.read(3 * PAGE)


def test_there_is_a_toggle_only_builtin_profile() -> None:
    assert JEDEC_NAMES == ["tlc-48l-toggle"]
    iface = load_profile("tlc-48l-toggle").interfaces
    assert iface.toggle_modes == list(range(8))
    assert not iface.nv_ddr2_modes and not iface.nv_ddr3_modes


@pytest.mark.parametrize("name", JEDEC_NAMES)
def test_linux_jedec_rules_accept_the_toggle_die(name: str) -> None:
    profile = load_profile(name)
    g = profile.geometry
    id20, id40, pages = read_at_pins(profile)
    assert id20 != b"ONFI" and id40 == b"JEDEC"
    linux = detect(id40, pages)
    assert (linux.copy_used, linux.version) == (0, 10)
    assert (linux.manufacturer, linux.model) == (profile.identity.manufacturer,
                                                 profile.identity.model)
    assert (linux.page_bytes, linux.oob_bytes) == (g.page_bytes, g.spare_bytes)
    assert (linux.planes, linux.luns, linux.bits_per_cell) == (g.planes, 1, g.bits_per_cell)
    assert (linux.ecc_strength, linux.ecc_step) == (profile.identity.ecc_bits,
                                                    profile.identity.ecc_codeword_bytes)
    assert linux.blocks_per_lun == g.blocks and not linux.bus16
    # MTD truncates to a power of two: 576 pages per block become 512
    assert linux.pages_per_block <= g.pages_per_block < 2 * linux.pages_per_block


@pytest.mark.parametrize("name", JEDEC_NAMES)
def test_host_identification_agrees_with_the_profile(name: str) -> None:
    profile = load_profile(name)
    with open_bench(f"sim://{name}?seed=2&fresh=1") as bench:
        chip = Chip(bench)
        ident = chip.identify()
        geometry = chip.geometry
    f = ident.fields
    assert ident.parameter_page[:4] == b"JESD" and len(ident.parameter_page) == 512
    assert (f["standard"], f["jedec_version"], ident.parameter_page_copy) == ("jedec", "JESD230", 0)
    assert geometry == ChipGeometry.from_profile(profile)
    assert f["toggle_modes"] == profile.interfaces.toggle_modes
    assert f["sdr_timing_modes"] == sum(1 << m for m in profile.timing.sdr_modes)
    assert (f["ecc_strength"], f["ecc_step_bytes"]) == (72, 1024)
    assert f["id_bits_per_cell"] == f["bits_per_cell"] == 3
    assert f["t_r_us"] > 0 and f["t_prog_us"] > f["t_r_us"] and f["t_bers_us"] > f["t_prog_us"]
    assert f["conformance"] == ["pages_per_block 576 is not a power of two (Linux rounds it down)"]


def test_a_damaged_copy_is_passed_over_as_linux_does() -> None:
    profile = load_profile("tlc-48l-toggle")
    _, id40, pages = read_at_pins(profile, corrupt=(0,))
    assert detect(id40, pages).copy_used == 1
    page, copy = choose_jedec_page(pages, 3)
    assert copy == 1 and page == pages[PAGE : 2 * PAGE]
    with open_bench("sim://tlc-48l-toggle?corrupt_param=1&fresh=1") as bench:
        assert Chip(bench).identify().parameter_page_copy == 1


def test_every_copy_damaged_linux_gives_up_the_host_votes() -> None:
    profile = load_profile("tlc-48l-toggle")
    _, id40, pages = read_at_pins(profile, corrupt=(0, 1, 2))
    with pytest.raises(NotJedec, match="Could not find valid JEDEC parameter page"):
        detect(id40, pages)
    page, copy = choose_jedec_page(pages, 3)
    assert copy is None and jp.crc_ok(page)
    same = bytearray(pages)
    for k in range(3):
        same[k * PAGE + 80] ^= 0x01  # the same bit in every copy: no majority either
    with pytest.raises(ParameterPageCRCError, match="all 3 JEDEC parameter page copies"):
        choose_jedec_page(bytes(same), 3)


@pytest.mark.parametrize(("revision", "linux_version"), [(0x0004, 10), (0x0002, 1), (0, None)])
def test_revision_rule(revision: int, linux_version: int | None) -> None:
    values = identity_jedec.page_values(load_profile("tlc-48l-toggle"), 3)
    page = jp.build({**values, "revision": revision})
    if linux_version is None:
        with pytest.raises(NotJedec, match="unsupported JEDEC version"):
            detect(b"JEDEC", page * 3)
        with pytest.raises(ParameterPageInvalid, match="neither JESD230"):
            decode_jedec_page(page)
        return
    assert detect(b"JEDEC", page * 3).version == linux_version
    assert decode_jedec_page(page)["jedec_version"] == ("JESD230" if revision == 4 else "vendor")


def test_a_short_codeword_leaves_the_ecc_unknown_in_both_readings() -> None:
    values = identity_jedec.page_values(load_profile("tlc-48l-toggle"), 3)
    page = jp.build({**values, "ecc0_codeword_log2": 8})
    assert detect(b"JEDEC", page * 3).ecc_strength is None
    fields = decode_jedec_page(page)
    assert fields["ecc_strength"] is None
    assert "codeword 2^8 bytes is under 512" in fields["conformance"][-1]


def test_a_part_answering_neither_signature_is_not_identified(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with open_bench("sim://tlc-48l-toggle?fresh=1") as bench:
        chip = Chip(bench)
        real = chip.read_id
        monkeypatch.setattr(chip, "read_id", lambda a, n: b"\xff" * n if a == 0x40 else real(a, n))
        with pytest.raises(NotOnfiChip, match="40h returned"):
            chip.identify()


def test_info_reports_the_jedec_page_and_toggle() -> None:
    result = CliRunner().invoke(cli, ["info", "sim://tlc-48l-toggle", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output[result.output.index("{") :])
    assert doc["fields"]["standard"] == "jedec"
    assert doc["fields"]["signature"] == b"JESD".hex()
    assert "toggle2 0-7" in doc["interfaces"]["offered"]
    assert doc["geometry"]["pages_per_block"] == 576
