"""Identification: READ ID, parameter page (CRC, majority, rules), READ UNIQUE ID.

An ONFI part answers READ ID 20h with "ONFI"; a part that does not but
answers 40h with "JEDEC" (Toggle DDR parts) is read through its JEDEC page
(`onfi.identify_jedec`), whose fields give the same geometry and timing keys.

Follows the rules of Linux's ONFI detection: the first of 3 parameter page
copies whose CRC passes is used; if none does, the bitwise majority of the
copies, whose CRC must then pass; the revision field must name ONFI 1.0-2.3
(bits 1-5), which every later part also sets. Where Linux would give up,
identification raises a typed error that says which field broke which rule
(`onfi_spec.onfi_rules`); rules a controller can work past are listed in
the decoded fields under "conformance". The legacy READ ID byte 2 is decoded
too (bits per cell), as controllers without ONFI read it.
"""

from __future__ import annotations

from typing import Any, Protocol

from nandlab.errors import ParameterPageCRCError
from nandlab.onfi import identify_jedec
from nandlab.onfi.address import ChipGeometry
from nandlab.onfi.errors import (
    NotOnfiChip,
    ParameterPageInvalid,
    ProfileMismatch,
    UniqueIdError,
)
from nandlab.onfi.results import Identification
from nandlab.onfi_spec import ext_parampage, legacy_id, onfi_rules, parampage
from nandlab.onfi_spec import jedec_parampage as jp
from nandlab.onfi_spec.opcodes import (
    ONFI_SIGNATURE,
    PARAMETER_PAGE_BYTES,
    PARAMETER_PAGE_COPIES,
    READ_ID_ONFI_ADDRESS,
    UNIQUE_ID_BYTES,
    UNIQUE_ID_COPIES,
)
from nandlab.profiles import Profile

JEDEC_ID_BYTES = 8  # read when the bench declares no profile
EXTENDED_PAGE_MAX_BYTES = 1024  # a length field beyond this is a damaged page, not a part


class IdentifyReads(Protocol):
    """The reads identification needs from a target (the chip layer's `Target` has them)."""

    ce: int

    def read_id(self, address: int, n: int) -> bytes: ...

    def read_parameter_pages(self, copies: int) -> bytes: ...

    def read_parameter_bytes(self, address: int, n: int) -> bytes: ...

    def read_unique_id_raw(self, copies: int) -> bytes: ...


def choose_parameter_page(raw: bytes, copies: int) -> tuple[bytes, int | None]:
    """(page, copy index) of the first copy whose CRC passes, else (majority, None).

    Raises ParameterPageCRCError when the majority fails its CRC too.
    """
    pages = [raw[i * PARAMETER_PAGE_BYTES : (i + 1) * PARAMETER_PAGE_BYTES] for i in range(copies)]
    for i, page in enumerate(pages):
        if parampage.crc_ok(page):
            return page, i
    voted = parampage.majority(pages)
    if parampage.crc_ok(voted):
        return voted, None
    raise ParameterPageCRCError(
        f"all {copies} parameter page copies failed their CRC-16, and so did their bitwise "
        "majority: the chip, the socket or the bus timing is faulty (try a slower timing mode)"
    )


def choose_unique_id(raw: bytes, copies: int) -> tuple[bytes, int]:
    """(16-byte id, copy index) of the first copy whose second half is its complement."""
    size = 2 * UNIQUE_ID_BYTES
    for i in range(copies):
        chunk = raw[i * size : (i + 1) * size]
        uid, inverse = chunk[:UNIQUE_ID_BYTES], chunk[UNIQUE_ID_BYTES:]
        if len(inverse) != UNIQUE_ID_BYTES:
            break
        if all(a ^ b == 0xFF for a, b in zip(uid, inverse, strict=True)):
            return bytes(uid), i
    raise UniqueIdError(f"none of the {copies} READ UNIQUE ID copies matched its complement")


def decode_parameter_page(page: bytes, id_bytes: bytes) -> dict[str, Any]:
    """The page's fields plus what a controller derives from them and from READ ID.

    Added keys: onfi_version (newest revision set), ecc_strength / ecc_step_bytes (bits
    per codeword and its bytes: byte 112 and 512, or None when byte 112 is FFh and the
    requirement is in the extended parameter page, see `read_extended_ecc`),
    id_bits_per_cell (READ ID byte 2, None when fewer bytes were read) and
    conformance (the non-fatal rule violations, as text). Raises ParameterPageInvalid
    for a fatal one.
    """
    violations = onfi_rules.check(page)
    fatal = [str(v) for v in violations if v.fatal]
    if fatal:
        raise ParameterPageInvalid(
            "the parameter page passed its CRC but breaks ONFI rules a controller cannot work "
            "past (Linux's ONFI detection gives up here too):\n  " + "\n  ".join(fatal)
        )
    fields = parampage.parse(page)
    legacy = legacy_id.decode(id_bytes)
    extended = fields["ecc_bits"] == parampage.ECC_SEE_EXTENDED_PAGE
    fields.update(
        standard="onfi",
        onfi_version=parampage.highest_revision(fields["revision"]),
        ecc_strength=None if extended else fields["ecc_bits"],
        ecc_step_bytes=None if extended else parampage.ECC_CODEWORD_BYTES,
        id_bits_per_cell=legacy.bits_per_cell if legacy is not None else None,
        conformance=[str(v) for v in violations],
    )
    return fields


def read_extended_ecc(chip: IdentifyReads, fields: dict[str, Any]) -> None:
    """Fill ecc_strength / ecc_step_bytes from the extended parameter page (byte 112 = FFh).

    The extended page follows the parameter page copies in the READ PARAMETER PAGE
    stream; its copies are tried in turn. A page that cannot be read leaves both None
    and a note under "conformance", as Linux warns and goes on.
    """
    ext_bytes = int(fields["ext_param_page_length"]) * ext_parampage.UNIT
    if fields["ecc_strength"] is not None or not ext_bytes:
        return
    if ext_bytes > EXTENDED_PAGE_MAX_BYTES:
        fields["conformance"].append(
            f"extended parameter page: {ext_bytes} bytes long (bytes 12-13), more than any "
            f"part's {EXTENDED_PAGE_MAX_BYTES}: not read, ECC unknown"
        )
        return
    start = max(int(fields["param_pages"]), PARAMETER_PAGE_COPIES) * PARAMETER_PAGE_BYTES
    tries = PARAMETER_PAGE_COPIES
    pages = -(-(start + tries * ext_bytes) // PARAMETER_PAGE_BYTES)
    raw = chip.read_parameter_pages(pages)
    problems = []
    for k in range(tries):
        try:
            ecc = ext_parampage.parse(raw[start + k * ext_bytes : start + (k + 1) * ext_bytes])
        except ext_parampage.ExtendedPageError as exc:
            problems.append(str(exc))
            continue
        fields.update(ecc_strength=ecc.bits, ecc_step_bytes=ecc.codeword_bytes)
        return
    fields["conformance"].append(
        f"extended parameter page: no copy readable ({'; '.join(problems)}): ECC unknown"
    )


def check_against_profile(
    ident_fields: dict[str, object], id_bytes: bytes, geometry: ChipGeometry, profile: Profile
) -> None:
    """Raise ProfileMismatch naming both sides when the chip is not the declared part."""
    expected = ChipGeometry.from_profile(profile)
    problems: list[str] = []
    if geometry != expected:
        problems.append(f"geometry: chip {geometry.describe()}; profile {expected.describe()}")
    for key in ("manufacturer", "model"):
        declared = getattr(profile.identity, key)
        if ident_fields.get(key) != declared:
            problems.append(f"{key}: chip '{ident_fields.get(key)}', profile '{declared}'")
    declared_id = bytes(profile.identity.id_bytes)
    if id_bytes[: len(declared_id)] != declared_id:
        problems.append(f"READ ID: chip {id_bytes.hex(' ')}, profile {declared_id.hex(' ')}")
    if problems:
        raise ProfileMismatch(
            f"the chip does not match profile {profile.name}:\n  " + "\n  ".join(problems)
        )


def _read_pages(
    chip: IdentifyReads, id_bytes: bytes, signature: bytes
) -> tuple[bytes, tuple[bytes, ...], int | None, dict[str, Any]]:
    """(page, copies, copy index, fields) of the ONFI page, or of the JEDEC page when READ
    ID 20h is not "ONFI" but 40h is "JEDEC"; NotOnfiChip when neither answers."""
    if signature == ONFI_SIGNATURE:
        copies = PARAMETER_PAGE_COPIES
        raw = chip.read_parameter_pages(copies)
        page, copy = choose_parameter_page(raw, copies)
        fields = decode_parameter_page(page, id_bytes)
        read_extended_ecc(chip, fields)
        pages = tuple(
            raw[i * PARAMETER_PAGE_BYTES : (i + 1) * PARAMETER_PAGE_BYTES] for i in range(copies)
        )
        return page, pages, copy, fields
    jedec = chip.read_id(jp.READ_ID_JEDEC_ADDRESS, len(jp.JEDEC_ID_SIGNATURE))
    if jedec != jp.JEDEC_ID_SIGNATURE:
        raise NotOnfiChip(
            f"READ ID 20h on CE {chip.ce} returned {signature!r}, not {ONFI_SIGNATURE!r}, and "
            f"40h returned {jedec!r}, not {jp.JEDEC_ID_SIGNATURE!r}: no ONFI or JEDEC target "
            "answers there (empty socket, wrong chip enable, or bus fault)"
        )
    copies = identify_jedec.JEDEC_PAGE_COPIES
    raw = chip.read_parameter_bytes(jp.PARAMETER_PAGE_ADDRESS, copies * jp.PAGE_BYTES)
    page, copy = identify_jedec.choose_jedec_page(raw, copies)
    fields = identify_jedec.decode_jedec_page(page)
    legacy = legacy_id.decode(id_bytes)
    fields["id_bits_per_cell"] = legacy.bits_per_cell if legacy is not None else None
    return page, tuple(identify_jedec.split_copies(raw, copies)), copy, fields


def identify_target(
    chip: IdentifyReads, profile: Profile | None
) -> tuple[Identification, ChipGeometry]:
    """Run the identification sequence through `chip`'s primitive reads."""
    n_id = len(profile.identity.id_bytes) if profile is not None else JEDEC_ID_BYTES
    id_bytes = chip.read_id(0x00, n_id)
    signature = chip.read_id(READ_ID_ONFI_ADDRESS, len(ONFI_SIGNATURE))
    page, pages, copy, fields = _read_pages(chip, id_bytes, signature)
    geometry = ChipGeometry.from_parameter_page(fields)
    if profile is not None:
        check_against_profile(fields, id_bytes, geometry, profile)
    uid, uid_copy = choose_unique_id(chip.read_unique_id_raw(UNIQUE_ID_COPIES), UNIQUE_ID_COPIES)
    ident = Identification(
        id_bytes=id_bytes,
        onfi_signature=signature,
        parameter_page=page,
        parameter_page_copies=pages,
        parameter_page_copy=copy,
        majority=copy is None,
        fields=fields,
        unique_id=uid.hex(),
        unique_id_copy=uid_copy,
    )
    return ident, geometry
