"""The firmware ELF's BRAM image (nandlab.firmware.image) is the one objcopy gives the
simulation ($readmemh of `objcopy -O verilog --verilog-data-width=4`), word for word,
and its COE file carries the same words."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from nandlab.errors import UsageError
from nandlab.firmware.image import BRAM_BYTES, coe, load_elf, main, used_words

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("fw")
    subprocess.run(["make", "-s", "-C", str(FIRMWARE), f"BUILD={out}", f"{out}/nandlab.hex"],
                   check=True, capture_output=True)
    return out


def _readmemh(path: Path) -> list[int]:
    words, addr = [0] * (BRAM_BYTES // 4), 0
    for token in path.read_text().split():
        if token.startswith("@"):
            addr = int(token[1:], 16)
        else:
            words[addr] = int(token, 16)
            addr += 1
    return words


def test_image_is_objcopys(built: Path) -> None:
    image = load_elf((built / "nandlab.elf").read_bytes())
    assert image == _readmemh(built / "nandlab.hex")
    assert 1000 < used_words(image) < BRAM_BYTES // 4


def test_coe_file(built: Path, tmp_path: Path) -> None:
    out = tmp_path / "fw.coe"
    assert main(["coe", str(built / "nandlab.elf"), str(out)]) == 0
    text = out.read_text()
    assert text == coe(load_elf((built / "nandlab.elf").read_bytes()))
    head, vector = text.split("memory_initialization_vector=\n")
    assert head == "memory_initialization_radix=16;\n"
    assert [int(w, 16) for w in vector.rstrip(";\n").split(",\n")] == \
        _readmemh(built / "nandlab.hex")


def test_not_an_rv32_elf_is_refused(built: Path) -> None:
    elf = (built / "nandlab.elf").read_bytes()
    with pytest.raises(UsageError, match="not an ELF"):
        load_elf(b"\x7fELX" + elf[4:])
    with pytest.raises(UsageError, match="RISC-V"):
        load_elf(elf[:18] + b"\x3e\x00" + elf[20:])   # x86-64's machine number
    with pytest.raises(UsageError, match="does not fit"):
        load_elf(elf, size=1024)
