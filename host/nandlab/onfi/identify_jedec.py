"""JEDEC identification (Toggle DDR parts): READ ID 40h "JEDEC" and the JEDEC parameter page.

Follows Linux's `nand_jedec_detect`: 3 copies of the 512-byte page at READ
PARAMETER PAGE address 40h, the first whose CRC passes is used (Linux stops
there; we also try the bitwise majority of the copies, as for ONFI, and say
so); the revision field must name JESD230 (bit 2) or a vendor revision (bit
1); the ECC need comes from the first ECC block and only when its codeword
is at least 512 bytes. Pages per block and blocks per LUN that are not
powers of two are noted under "conformance", since Linux rounds them down.

The decoded fields carry the JEDEC page's own names plus the keys the chip
layer reads from an ONFI page (`sdr_timing_modes`, the NV-DDR mode bytes as
zero, `ecc_strength`, `toggle_modes`, ...), so geometry, timeouts, planning
and negotiation work on either standard.
"""

from __future__ import annotations

from typing import Any

from nandlab.errors import ParameterPageCRCError
from nandlab.onfi.errors import ParameterPageInvalid
from nandlab.onfi_spec import jedec_parampage as jp
from nandlab.onfi_spec import parampage
from nandlab.onfi_spec.opcodes import PARAMETER_PAGE_BYTES

JEDEC_PAGE_COPIES = 3  # Linux reads 3 (JEDEC_PARAM_PAGES)


def split_copies(raw: bytes, copies: int) -> list[bytes]:
    return [raw[i * jp.PAGE_BYTES : (i + 1) * jp.PAGE_BYTES] for i in range(copies)]


def choose_jedec_page(raw: bytes, copies: int) -> tuple[bytes, int | None]:
    """(page, copy index) of the first copy whose CRC passes, else (majority, None).

    Raises ParameterPageCRCError when the majority fails its CRC too.
    """
    pages = split_copies(raw, copies)
    for i, page in enumerate(pages):
        if jp.crc_ok(page):
            return page, i
    # the majority works on ONFI-sized pieces: a JEDEC page is two of them
    voted = b"".join(
        parampage.majority([p[k : k + PARAMETER_PAGE_BYTES] for p in pages])
        for k in range(0, jp.PAGE_BYTES, PARAMETER_PAGE_BYTES)
    )
    if jp.crc_ok(voted):
        return voted, None
    raise ParameterPageCRCError(
        f"all {copies} JEDEC parameter page copies failed their CRC-16, and so did their "
        "bitwise majority: the chip, the socket or the bus timing is faulty"
    )


def _is_power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def decode_jedec_page(page: bytes) -> dict[str, Any]:
    """The JEDEC page's fields plus the keys the chip layer reads from an ONFI page.

    Raises ParameterPageInvalid when the signature or revision is not one Linux accepts.
    """
    fields = jp.parse(page)
    problems = []
    if fields["signature"] != jp.SIGNATURE:
        problems.append(f"bytes 0-3 read {fields['signature']!r}, not {jp.SIGNATURE!r}")
    revision = jp.revision_name(int(fields["revision"]))
    if revision is None:
        problems.append(
            f"revision field {int(fields['revision']):04X}h names neither JESD230 (bit 2) nor "
            "a vendor revision (bit 1)"
        )
    if problems:
        raise ParameterPageInvalid(
            "the JEDEC parameter page passed its CRC but Linux's JEDEC detection would reject "
            "it:\n  " + "\n  ".join(problems)
        )
    conformance = [
        f"{name} {fields[name]} is not a power of two (Linux rounds it down)"
        for name in ("pages_per_block", "blocks_per_lun")
        if not _is_power_of_two(int(fields[name]))
    ]
    log2 = int(fields["ecc0_codeword_log2"])
    ecc_ok = log2 >= jp.MIN_CODEWORD_LOG2
    if not ecc_ok:
        conformance.append(f"ECC block 0: codeword 2^{log2} bytes is under 512: ECC unknown")
    fields.update(
        standard="jedec",
        jedec_version=revision,
        onfi_version=None,
        jedec_id=fields["jedec_id"][0],
        sdr_timing_modes=int(fields["async_sdr_speed_grades"]) & 0x3F,
        toggle_modes=jp.grades(int(fields["toggle_ddr_speed_grades"])),
        nv_ddr2_timing_modes=0,
        nv_ddr2_timing_modes_high=0,
        nv_ddr3_timing_modes=0,
        nv_ddr23_features=0,
        ext_param_page_length=0,
        endurance_value=fields["ecc0_endurance_value"],
        endurance_multiplier=fields["ecc0_endurance_multiplier"],
        ecc_strength=int(fields["ecc0_bits"]) if ecc_ok else None,
        ecc_step_bytes=1 << log2 if ecc_ok else None,
        conformance=conformance,
    )
    return fields
