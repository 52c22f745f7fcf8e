"""The rules a parameter page must follow, checked field by field.

Each rule names the field and says what the ONFI specification (or, where
marked, Linux's ONFI detection) requires, so a failing page is explained in
terms a datasheet reader can check. `fatal` rules are the ones a controller
cannot work past: Linux rejects the page, or the geometry is unusable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nandlab.onfi_spec import parampage as pp
from nandlab.onfi_spec.ext_parampage import EccInfo
from nandlab.onfi_spec.opcodes import ONFI_SIGNATURE, PARAMETER_PAGE_COPIES

# Revisions Linux's ONFI detection recognises (bits 1-5: ONFI 1.0 .. 2.3).
LINUX_REVISION_MASK = sum(pp.ONFI_REVISION_BITS[v] for v in ("1.0", "2.0", "2.1", "2.2", "2.3"))
BCH_SYMBOL_BITS = 13  # a 512-byte BCH codeword lives in GF(2^13): 13 parity bits per bit
RESERVED_RANGES = ((15, 32), (67, 80), (116, 128))


@dataclass(frozen=True)
class Violation:
    field: str
    rule: str
    value: Any
    fatal: bool = False

    def __str__(self) -> str:
        f = pp.BY_NAME.get(self.field)
        where = f" (byte {f.offset})" if f is not None else ""
        value = f"{self.value:#x}" if isinstance(self.value, int) else repr(self.value)
        return f"field '{self.field}'{where} = {value}: {self.rule}"


@dataclass(frozen=True)
class Rule:
    field: str
    text: str
    ok: Callable[[dict[str, Any], bytes], bool]
    fatal: bool = False


def _pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def _revision_contiguous(rev: int) -> bool:
    top = pp.highest_revision(rev)
    return top is not None and rev & pp.ONFI_REVISION_MASK == pp.revisions_through(top)


def _ascii(raw: bytes) -> bool:
    return all(0x20 <= b <= 0x7E for b in raw)


def _row_bits_needed(f: dict[str, Any]) -> int:
    return (
        sum(max(1, (int(n) - 1).bit_length()) for n in (f["pages_per_block"], f["blocks_per_lun"]))
        + (max(1, int(f["luns"])) - 1).bit_length()
    )


def bch_parity_bytes(page_bytes: int, bits: int, codeword_bytes: int) -> int:
    """Spare bytes a BCH code correcting `bits` per `codeword_bytes` needs for one page.

    Its field is GF(2^m) with 2^m above the codeword's bit count: m = 13 for 512
    bytes, 14 for 1 KiB; each corrected bit costs m parity bits."""
    m = BCH_SYMBOL_BITS + (codeword_bytes // pp.ECC_CODEWORD_BYTES).bit_length() - 1
    codewords = -(-page_bytes // codeword_bytes)
    return codewords * -(-m * bits // 8)


def ecc_parity_bytes(f: dict[str, Any]) -> int:
    """Spare bytes a BCH code of byte 112's strength (per 512 bytes) needs for one page."""
    return bch_parity_bytes(int(f["page_bytes"]), int(f["ecc_bits"]), pp.ECC_CODEWORD_BYTES)


def _str_raw(page: bytes, name: str) -> bytes:
    field = pp.BY_NAME[name]
    return page[field.offset : field.offset + field.size]


def _has(f: dict[str, Any], version: str) -> bool:
    return bool(f["revision"] & pp.ONFI_REVISION_BITS[version])


RULES: tuple[Rule, ...] = (
    Rule("signature", "must read 'ONFI'", lambda f, p: f["signature"] == ONFI_SIGNATURE, True),
    Rule(
        "revision",
        "must set one of bits 1-5 (ONFI 1.0-2.3): Linux rejects the page otherwise",
        lambda f, p: bool(f["revision"] & LINUX_REVISION_MASK),
        True,
    ),
    Rule(
        "revision",
        "bit 0 and bits 13-15 are reserved (0)",
        lambda f, p: not f["revision"] & ~pp.ONFI_REVISION_MASK & 0xFFFF,
    ),
    Rule(
        "revision",
        "a part sets the bit of every revision up to the newest it complies with",
        lambda f, p: _revision_contiguous(f["revision"]),
    ),
    Rule(
        "param_pages",
        "ONFI 2.1 and later: at least 3 parameter page copies",
        lambda f, p: not _has(f, "2.1") or f["param_pages"] >= PARAMETER_PAGE_COPIES,
    ),
    Rule(
        "ext_param_page_length",
        "non-zero exactly when features bit 7 (extended parameter page) is set",
        lambda f, p: (
            (f["ext_param_page_length"] > 0) == bool(f["features"] & pp.PP_FEATURE_EXT_PARAM_PAGE)
        ),
    ),
    Rule(
        "nv_ddr_timing_modes",
        "0 unless features bit 5 (NV-DDR) is set",
        lambda f, p: bool(f["features"] & pp.PP_FEATURE_NV_DDR) or f["nv_ddr_timing_modes"] == 0,
    ),
    Rule(
        "nv_ddr2_timing_modes",
        "0 unless features bit 10 (NV-DDR2) is set",
        lambda f, p: bool(f["features"] & pp.PP_FEATURE_NV_DDR2) or f["nv_ddr2_timing_modes"] == 0,
    ),
    Rule(
        "features",
        "multi-plane bits (3, 6) need plane address bits (byte 113) > 0",
        lambda f, p: (
            f["plane_address_bits"] > 0
            or not f["features"]
            & (pp.PP_FEATURE_MULTIPLANE_PROGRAM_ERASE | pp.PP_FEATURE_MULTIPLANE_READ)
        ),
    ),
    Rule(
        "manufacturer",
        "12 printable ASCII characters, padded with spaces",
        lambda f, p: _ascii(_str_raw(p, "manufacturer")),
    ),
    Rule(
        "model",
        "20 printable ASCII characters, padded with spaces",
        lambda f, p: _ascii(_str_raw(p, "model")),
    ),
    Rule("page_bytes", "a power of two", lambda f, p: _pow2(f["page_bytes"]), True),
    Rule("pages_per_block", "at least 1", lambda f, p: f["pages_per_block"] > 0, True),
    Rule("blocks_per_lun", "at least 1", lambda f, p: f["blocks_per_lun"] > 0, True),
    Rule("luns", "at least 1", lambda f, p: f["luns"] > 0, True),
    Rule("bits_per_cell", "1 to 4", lambda f, p: 1 <= f["bits_per_cell"] <= 4, True),
    Rule(
        "address_cycles",
        "1-4 column and row cycles; the row cycles hold the page, block and LUN bits",
        lambda f, p: (
            1 <= f["address_cycles"] >> 4 <= 4
            and 1 <= f["address_cycles"] & 0x0F <= 4
            and (f["address_cycles"] & 0x0F) * 8 >= _row_bits_needed(f)
        ),
        True,
    ),
    Rule(
        "max_bad_blocks",
        "at most blocks_per_lun",
        lambda f, p: f["max_bad_blocks"] <= f["blocks_per_lun"],
    ),
    Rule(
        "endurance_value",
        "non-zero (endurance = value x 10^multiplier)",
        lambda f, p: f["endurance_value"] > 0,
    ),
    Rule(
        "guaranteed_good_blocks",
        "at least 1 (block 0 is valid when shipped)",
        lambda f, p: f["guaranteed_good_blocks"] >= 1,
    ),
    Rule("programs_per_page", "at least 1", lambda f, p: f["programs_per_page"] >= 1),
    Rule(
        "ecc_bits",
        "a multi-level cell part states its ECC requirement (0 means none)",
        lambda f, p: f["bits_per_cell"] == 1 or f["ecc_bits"] > 0,
    ),
    Rule(
        "ecc_bits",
        "FFh (see the extended parameter page) needs features bit 7 and ONFI 2.1 or later",
        lambda f, p: (
            f["ecc_bits"] != pp.ECC_SEE_EXTENDED_PAGE
            or (bool(f["features"] & pp.PP_FEATURE_EXT_PARAM_PAGE) and _has(f, "2.1"))
        ),
    ),
    Rule(
        "ecc_bits",
        "a BCH code of this strength per 512 bytes (13 parity bits per bit) fits the spare bytes",
        lambda f, p: (
            f["ecc_bits"] == pp.ECC_SEE_EXTENDED_PAGE or ecc_parity_bytes(f) <= f["spare_bytes"]
        ),
    ),
    Rule(
        "sdr_timing_modes",
        "bit 0 set: every part supports SDR mode 0",
        lambda f, p: bool(f["sdr_timing_modes"] & 1),
        True,
    ),
    Rule(
        "sdr_timing_modes",
        "bits 6-15 reserved (SDR modes are 0-5)",
        lambda f, p: not f["sdr_timing_modes"] >> 6,
    ),
    Rule(
        "features",
        "bit 10 (NV-DDR2) set exactly when bytes 142 / 162 list NV-DDR2 modes",
        lambda f, p: bool(f["features"] & pp.PP_FEATURE_NV_DDR2)
        == bool(f["nv_ddr2_timing_modes"] or f["nv_ddr2_timing_modes_high"]),
    ),
    Rule(
        "features",
        "bit 13 (NV-DDR3, ONFI 4.0) set exactly when bytes 160-161 list NV-DDR3 modes",
        lambda f, p: bool(f["features"] & pp.PP_FEATURE_NV_DDR3)
        == bool(f["nv_ddr3_timing_modes"]) and (not f["nv_ddr3_timing_modes"] or _has(f, "4.0")),
    ),
    Rule(
        "nv_ddr23_features",
        "NV-DDR2 / NV-DDR3 features and warm-up bytes (158-159) are 0 on a part without them",
        lambda f, p: bool(f["features"] & (pp.PP_FEATURE_NV_DDR2 | pp.PP_FEATURE_NV_DDR3))
        or not (f["nv_ddr23_features"] or f["nv_ddr23_warmup"]),
    ),
    Rule("t_prog_us", "non-zero", lambda f, p: f["t_prog_us"] > 0),
    Rule("t_bers_us", "non-zero", lambda f, p: f["t_bers_us"] > 0),
    Rule("t_r_us", "non-zero", lambda f, p: f["t_r_us"] > 0),
    Rule("t_ccs_ns", "non-zero", lambda f, p: f["t_ccs_ns"] > 0),
    Rule(
        "reserved",
        "reserved bytes 15-31, 67-79 and 116-127 are 0",
        lambda f, p: not any(any(p[a:b]) for a, b in RESERVED_RANGES),
    ),
)


def check(page: bytes) -> list[Violation]:
    """Every rule `page` (one 256-byte copy) breaks, in table order (CRC not checked here)."""
    fields = pp.parse(page)
    return [
        Violation(r.field, r.text, fields.get(r.field, None), r.fatal)
        for r in RULES
        if not r.ok(fields, page)
    ]


def check_extended(f: dict[str, Any], ecc: EccInfo) -> list[Violation]:
    """The rules the extended page's ECC section must follow (`f`: the parameter page fields)."""
    out = []
    if bch_parity_bytes(f["page_bytes"], ecc.bits, ecc.codeword_bytes) > f["spare_bytes"]:
        rule = f"a BCH code of {ecc.bits} bits per {ecc.codeword_bytes} bytes fits the spare bytes"
        out.append(Violation("extended ECC bits", rule, ecc.bits))
    if ecc.bits == 0 and f["bits_per_cell"] > 1:
        out.append(Violation("extended ECC bits", "a multi-level cell part states it", 0))
    if ecc.max_bad_blocks != f["max_bad_blocks"]:
        out.append(Violation("extended bad blocks max", "equals byte 103-104", ecc.max_bad_blocks))
    return out
