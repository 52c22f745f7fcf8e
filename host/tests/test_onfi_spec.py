"""ONFI definitions: parameter page CRC, build/parse round trip, majority vote, SDR table."""

import pytest

from nandlab.onfi_spec import parampage
from nandlab.onfi_spec.sdr_timing import SDR_MODES, sdr


def _page() -> bytes:
    return parampage.build(
        {"manufacturer": "NANDLAB", "model": "VIRT-MLC-64L", "page_bytes": 16384,
         "spare_bytes": 1952, "pages_per_block": 512, "blocks_per_lun": 2048, "bits_per_cell": 2}
    )


def test_crc_remainder_property() -> None:
    # For a non-reflected CRC without final XOR, appending the CRC MSB-first leaves remainder 0.
    page = _page()
    crc = parampage.crc16(page[:254])
    assert parampage.crc16(page[:254] + crc.to_bytes(2, "big")) == 0
    assert parampage.crc_ok(page)


def test_crc_detects_a_flipped_bit() -> None:
    page = bytearray(_page())
    page[81] ^= 0x04
    assert not parampage.crc_ok(bytes(page))


def test_build_parse_round_trip() -> None:
    fields = parampage.parse(_page())
    assert fields["signature"] == b"ONFI"
    assert fields["manufacturer"] == "NANDLAB" and fields["model"] == "VIRT-MLC-64L"
    assert fields["page_bytes"] == 16384 and fields["blocks_per_lun"] == 2048


def test_majority_repairs_copies_that_all_fail_crc() -> None:
    good = _page()
    copies = []
    for k in range(3):
        c = bytearray(good)
        c[40 + 10 * k] ^= 0xFF
        copies.append(bytes(c))
    assert not any(parampage.crc_ok(c) for c in copies)
    assert parampage.majority(copies) == good


def test_build_rejects_long_strings() -> None:
    with pytest.raises(ValueError, match="at most 12"):
        parampage.build({"manufacturer": "A" * 13})


def test_sdr_table_is_monotonic_and_checked() -> None:
    assert [m.tRC for m in SDR_MODES] == [100, 50, 35, 30, 25, 20]
    assert all(a.tWC >= b.tWC for a, b in zip(SDR_MODES, SDR_MODES[1:], strict=False))
    with pytest.raises(ValueError, match="0..5"):
        sdr(6)
