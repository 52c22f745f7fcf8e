"""The firmware ELF as the board CPU's 64 KiB BRAM image.

The cross-built `nandlab.elf` (firmware/Makefile) is a little-endian ELF32 for
RISC-V whose loadable segments sit in the BRAM at 0: code and read-only data
from 0, the initial values of .data after them (picolibc's crt0 copies them to
RAM at boot). The image is every PT_LOAD segment's file bytes at its physical
address (ELF32 program header: p_offset, p_paddr, p_filesz), zeros elsewhere,
as 32-bit little-endian words: what `objcopy -O verilog --verilog-data-width=4`
gives the simulation and what a Vivado COE file gives the bitstream.

`Mailbox.load_firmware` sends the used part of the image through the mailbox (LOAD);
`python -m nandlab.firmware.image coe ELF OUT.coe` writes the image as a COE file (a
Vivado memory IP's init format; the KCU105 build itself reads firmware/build/nandlab.hex,
hw/vivado/kcu105/cpu.tcl).
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

from nandlab.errors import UsageError

BRAM_BYTES = 64 * 1024
"""The CPU's code and data BRAM at address 0 (firmware/Makefile's BRAM_BYTES)."""
EM_RISCV = 0xF3
PT_LOAD = 1


def load_elf(data: bytes, size: int = BRAM_BYTES) -> list[int]:
    """The BRAM image of an ELF32 RISC-V file: `size` / 4 words. UsageError when it is
    not such a file or a segment falls outside the BRAM."""
    if data[:4] != b"\x7fELF" or len(data) < 52:
        raise UsageError("not an ELF file")
    if data[4] != 1 or data[5] != 1:
        raise UsageError("not a 32-bit little-endian ELF (the board CPU is rv32)")
    machine, = struct.unpack_from("<H", data, 18)
    if machine != EM_RISCV:
        raise UsageError(f"ELF machine {machine:#x} is not RISC-V ({EM_RISCV:#x})")
    phoff, = struct.unpack_from("<I", data, 28)
    phentsize, phnum = struct.unpack_from("<HH", data, 42)
    image = bytearray(size)
    for i in range(phnum):
        p_type, p_offset, _vaddr, p_paddr, p_filesz, _memsz, _flags, _align = \
            struct.unpack_from("<8I", data, phoff + i * phentsize)
        if p_type != PT_LOAD or p_filesz == 0:
            continue
        if p_paddr + p_filesz > size or p_offset + p_filesz > len(data):
            raise UsageError(f"ELF segment {i} ({p_filesz} bytes at {p_paddr:#x}) does not "
                              f"fit the {size}-byte BRAM")
        image[p_paddr:p_paddr + p_filesz] = data[p_offset:p_offset + p_filesz]
    return list(struct.unpack(f"<{size // 4}I", image))


def used_words(image: list[int]) -> int:
    """Words up to the last non-zero one: what a loader must write."""
    n = len(image)
    while n and image[n - 1] == 0:
        n -= 1
    return n


def image_sum(words: list[int]) -> int:
    """The LOAD command's checksum (firmware/src/server.c fw_image_sum): for each word,
    sum = rotl(sum, 1) + word, mod 2^32."""
    s = 0
    for w in words:
        s = (((s << 1) | (s >> 31)) + w) & 0xFFFFFFFF
    return s


def readmemh(image: list[int]) -> str:
    """The image as a Verilog $readmemh file of 32-bit words (the harness's BRAM)."""
    return "@00000000\n" + "\n".join(f"{w:08X}" for w in image[:used_words(image)]) + "\n"


def coe(image: list[int]) -> str:
    """A Vivado COE file of 32-bit words (blk_mem_gen's Coe_File)."""
    body = ",\n".join(f"{w:08x}" for w in image)
    return f"memory_initialization_radix=16;\nmemory_initialization_vector=\n{body};\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 3 or args[0] != "coe":
        print("usage: python -m nandlab.firmware.image coe ELF OUT.coe", file=sys.stderr)
        return 2
    Path(args[2]).write_text(coe(load_elf(Path(args[1]).read_bytes())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
