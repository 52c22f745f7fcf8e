"""Chip.identify on every built-in profile: READ ID, parameter page CRC / majority, unique ID."""

from __future__ import annotations

from pathlib import Path

import pytest

from nandlab.errors import ParameterPageCRCError
from nandlab.onfi import Chip, ChipGeometry, NotOnfiChip, ProfileMismatch, UniqueIdError
from nandlab.onfi.identify import choose_parameter_page, choose_unique_id
from nandlab.profiles import builtin_names, load_profile
from nandlab.transport import SimTransport, open_bench


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("name", builtin_names())
def test_identify_every_builtin_profile(name: str) -> None:
    profile = load_profile(name)
    with open_bench(f"sim://{name}?seed=2&fresh=1") as bench:
        chip = Chip(bench)
        ident = chip.identify()
        onfi = profile.identity.standard == "onfi"  # else a Toggle part: JEDEC, no "ONFI"
        assert ident.id_bytes == bytes(profile.identity.id_bytes)
        assert ident.onfi_signature == (b"ONFI" if onfi else bytes(4))
        assert ident.parameter_page_copy == 0 and not ident.majority
        assert ident.model == profile.identity.model
        assert ident.manufacturer == profile.identity.manufacturer
        assert ident.fields["t_r_us"] > 0 and ident.fields["t_bers_us"] > 0
        assert len(ident.unique_id) == 32 and ident.unique_id_copy == 0
        assert chip.geometry == ChipGeometry.from_profile(profile)
        assert ident.to_dict()["fields"]["signature"] == (b"ONFI" if onfi else b"JESD").hex()


@pytest.mark.parametrize(("corrupt", "copy"), [(1, 1), (2, 2), (3, None)])
@pytest.mark.parametrize("name", builtin_names())
def test_parameter_page_crc_and_majority(name: str, corrupt: int, copy: int | None) -> None:
    with open_bench(f"sim://{name}?corrupt_param={corrupt}&fresh=1") as bench:
        ident = Chip(bench).identify()
        assert ident.parameter_page_copy == copy
        assert ident.majority == (copy is None)
        bad = ident.parameter_page_copies[0]
        assert bad != ident.parameter_page
        assert ident.model == load_profile(name).identity.model


def test_all_copies_bad_in_the_same_bit_raise() -> None:
    with open_bench("sim://slc-search?fresh=1") as bench:
        raw = Chip(bench).read_parameter_pages(3)
    damaged = bytearray(raw)
    for k in range(3):
        damaged[k * 256 + 80] ^= 0x01
    with pytest.raises(ParameterPageCRCError, match="all 3 parameter page copies"):
        choose_parameter_page(bytes(damaged), 3)
    page, copy = choose_parameter_page(raw, 3)
    assert copy == 0 and page == raw[:256]


def test_unique_id_needs_a_matching_complement() -> None:
    good = bytes(range(16)) + bytes(255 - b for b in range(16))
    bad = bytes(32)
    assert choose_unique_id(bad + good, 2) == (bytes(range(16)), 1)
    with pytest.raises(UniqueIdError, match="none of the 2"):
        choose_unique_id(bad + bad, 2)


def test_not_onfi_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    with open_bench("sim://slc-search?fresh=1") as bench:
        chip = Chip(bench)
        real = chip.read_id
        monkeypatch.setattr(chip, "read_id", lambda a, n: b"\xff" * n if a == 0x20 else real(a, n))
        with pytest.raises(NotOnfiChip, match="READ ID 20h on CE 0"):
            chip.identify()


def test_profile_mismatch_names_both() -> None:
    with open_bench("sim://mlc-64l?fresh=1") as bench:
        assert isinstance(bench, SimTransport)
        bench._profile = load_profile("tlc-48l")  # the bench declares another part
        with pytest.raises(ProfileMismatch) as info:
            Chip(bench).identify()
    text = str(info.value)
    assert "tlc-48l" in text and "VIRT-MLC-64L" in text and "VIRT-TLC-48L" in text
    assert "geometry" in text


def test_geometry_on_first_use_identifies_without_reset() -> None:
    with open_bench("sim://mlc-64l?fresh=1") as bench:
        first = Chip(bench)
        first.identify()
        first.set_read_offset_code(0, 3)
        chip = Chip(bench)
        assert chip.geometry.planes == 2
        step = chip.profile.read_offsets.step_mV
        assert chip.read_offsets_mV()["VREF0"] == 3 * step  # no RESET cleared it
        chip.identify()
        assert chip.read_offsets_mV()["VREF0"] == 0.0
