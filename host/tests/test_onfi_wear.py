"""The chip layer counts every erase it runs, whichever operation built the program."""

from nandlab.onfi import Chip
from nandlab.onfi.address import ChipGeometry
from nandlab.onfi.power import erase_energy
from nandlab.onfi.wear import BlockCycles, erased_blocks
from nandlab.ops import Program
from nandlab.transport import open_bench


def _geometry() -> ChipGeometry:
    # 256 pages per block: 8 page-address bits in the row, block above them (ONFI row layout)
    return ChipGeometry(
        page_bytes=2048,
        spare_bytes=64,
        pages_per_block=256,
        blocks=4096,
        planes=2,
        bits_per_cell=2,
        column_cycles=2,
        row_cycles=3,
    )


def test_erases_are_found_by_their_onfi_commands() -> None:
    geo = _geometry()
    row = lambda block: ((block << 8) | 0).to_bytes(3, "little")  # noqa: E731
    # hand-built from the ONFI opcodes, not through the sequence library
    single = Program().cmd(0x60).addr(row(513)).cmd(0xD0).wait_rdy(10_000_000)
    multi = (
        Program()
        .cmd(0x60)
        .addr(row(6))
        .cmd(0xD1)
        .wait_rdy(1000)
        .cmd(0x60)
        .addr(row(7))
        .cmd(0xD0)
        .wait_rdy(10_000_000)
    )
    read = Program().cmd(0x00).addr(bytes(2) + row(9)).cmd(0x30).wait_rdy(1000).dout(4)
    aborted = Program().cmd(0x60).addr(row(11)).cmd(0xFF)  # RESET instead of a confirm
    assert erased_blocks(single, geo) == [513]
    assert erased_blocks(multi, geo) == [6, 7]
    assert erased_blocks(read, geo) == []
    assert erased_blocks(aborted, geo) == []


def test_target_tally_sees_every_path_to_an_erase() -> None:
    with open_bench("sim://mlc-64l?seed=3&fresh=1") as bench:
        chip = Chip(bench)
        chip.identify()
        assert chip.wear.take() == {}
        chip.erase_block(10)
        chip.erase_block(10)
        chip.erase_multiplane([12, 13])
        erase_energy(chip, 14)
        chip.program_page(10, 0, b"\x00" * 16)
        chip.read_page(10, 0)
        chip.wear.fast_forwarded(15, 99)
        taken = chip.wear.take()
        die = bench.dies[0].array  # type: ignore[attr-defined]
        assert {b: die.pec(b) for b in (10, 12, 13, 14)} == {10: 2, 12: 1, 13: 1, 14: 1}
    assert taken == {
        10: BlockCycles(2),
        12: BlockCycles(1),
        13: BlockCycles(1),
        14: BlockCycles(1),
        15: BlockCycles(99, 99),
    }
    assert chip.wear.take() == {}
