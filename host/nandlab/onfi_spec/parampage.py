"""The ONFI parameter page: layout, CRC, build (for the virtual die) and parse (for the chip layer).

One table of fields serves both directions so the die and the host agree by
construction; the rules a page must follow are in `onfi_spec.onfi_rules`.
Offsets and widths follow the ONFI 4.x / 5.0 parameter page definition (the
same layout Linux's `struct nand_onfi_params` describes); multi-byte integers
are little-endian; strings are ASCII padded with spaces. Obsolete and
reserved ranges are not listed: `build` leaves them zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nandlab.onfi_spec.opcodes import ONFI_SIGNATURE, PARAMETER_PAGE_BYTES

CRC_POLY = 0x8005
CRC_INIT = 0x4F4E
CRC_SPAN = 254  # CRC covers bytes 0..253, stored little-endian at 254..255

# Bytes 4-5: a part sets the bit of every revision it complies with (bit 0 reserved).
ONFI_REVISION_BITS = {
    "1.0": 1 << 1,
    "2.0": 1 << 2,
    "2.1": 1 << 3,
    "2.2": 1 << 4,
    "2.3": 1 << 5,
    "3.0": 1 << 6,
    "3.1": 1 << 7,
    "3.2": 1 << 8,
    "4.0": 1 << 9,
    "4.1": 1 << 10,
    "4.2": 1 << 11,
    "5.0": 1 << 12,
}
ONFI_REVISION_MASK = sum(ONFI_REVISION_BITS.values())

# Bytes 6-7, features supported.
PP_FEATURE_16_BIT_BUS = 1 << 0
PP_FEATURE_MULTIPLE_LUN_OPS = 1 << 1
PP_FEATURE_NON_SEQUENTIAL_PROGRAM = 1 << 2
PP_FEATURE_MULTIPLANE_PROGRAM_ERASE = 1 << 3
PP_FEATURE_ODD_EVEN_COPYBACK = 1 << 4
PP_FEATURE_NV_DDR = 1 << 5
PP_FEATURE_MULTIPLANE_READ = 1 << 6
PP_FEATURE_EXT_PARAM_PAGE = 1 << 7
PP_FEATURE_NV_DDR2 = 1 << 10
PP_FEATURE_NV_DDR3 = 1 << 13

# Byte 158, NV-DDR2 / NV-DDR3 features.
PP_DDR_SELF_TERMINATION_ODT = 1 << 0  # bits 1-2: matrix termination, 30 ohm (not modelled)
PP_DDR_DIFFERENTIAL_RE = 1 << 3
PP_DDR_DIFFERENTIAL_DQS = 1 << 4

# Bytes 8-9, optional commands supported.
PP_OPT_CACHE_PROGRAM = 1 << 0
PP_OPT_CACHE_READ = 1 << 1
PP_OPT_FEATURES = 1 << 2
PP_OPT_STATUS_ENHANCED = 1 << 3
PP_OPT_COPYBACK = 1 << 4
PP_OPT_UNIQUE_ID = 1 << 5
PP_OPT_CHANGE_READ_COLUMN_ENHANCED = 1 << 6

ECC_SEE_EXTENDED_PAGE = 0xFF  # byte 112: the requirement is in the extended parameter page
ECC_CODEWORD_BYTES = 512  # byte 112 counts correctable bits per 512 data bytes


@dataclass(frozen=True)
class Field:
    name: str
    offset: int
    size: int
    kind: str = "int"  # "int" (little-endian unsigned), "str" (ASCII), "bytes"
    doc: str = ""


FIELDS: tuple[Field, ...] = (
    # revision information and features block
    Field("signature", 0, 4, "bytes", "'ONFI'"),
    Field("revision", 4, 2, "int", "ONFI revisions complied with (bit 1 = 1.0 .. bit 12 = 5.0)"),
    Field("features", 6, 2, "int", "features supported"),
    Field("optional_commands", 8, 2, "int", "optional commands supported"),
    Field("jtg_commands", 10, 2, "int", "ONFI-JEDEC JTG primary advanced commands"),
    Field("ext_param_page_length", 12, 2, "int", "extended parameter page length (16-byte units)"),
    Field("param_pages", 14, 1, "int", "number of parameter page copies"),
    # manufacturer information block
    Field("manufacturer", 32, 12, "str", "device manufacturer"),
    Field("model", 44, 20, "str", "device model"),
    Field("jedec_id", 64, 1, "int", "JEDEC manufacturer ID"),
    Field("date_code", 65, 2, "int", "date code"),
    # memory organization block
    Field("page_bytes", 80, 4, "int", "data bytes per page"),
    Field("spare_bytes", 84, 2, "int", "spare bytes per page"),
    Field("pages_per_block", 92, 4, "int", "pages per block"),
    Field("blocks_per_lun", 96, 4, "int", "blocks per LUN"),
    Field("luns", 100, 1, "int", "LUNs per chip enable"),
    Field("address_cycles", 101, 1, "int", "bits 3:0 row cycles, 7:4 column cycles"),
    Field("bits_per_cell", 102, 1, "int", "bits per cell"),
    Field("max_bad_blocks", 103, 2, "int", "bad blocks maximum per LUN"),
    Field("endurance_value", 105, 1, "int", "block endurance = value x 10^multiplier"),
    Field("endurance_multiplier", 106, 1, "int", ""),
    Field("guaranteed_good_blocks", 107, 1, "int", "guaranteed valid blocks at block 0"),
    Field("guaranteed_endurance_value", 108, 1, "int", "their endurance = value x 10^mult"),
    Field("guaranteed_endurance_multiplier", 109, 1, "int", ""),
    Field("programs_per_page", 110, 1, "int", "partial programs per page"),
    Field("ecc_bits", 112, 1, "int", "bits of ECC correctability per 512 bytes (FFh: extended)"),
    Field("plane_address_bits", 113, 1, "int", "multi-plane addressing: plane address bits"),
    Field("multiplane_attributes", 114, 1, "int", "multi-plane operation attributes"),
    Field("ez_nand", 115, 1, "int", "EZ NAND support"),
    # electrical parameters block
    Field("io_capacitance_max", 128, 1, "int", "I/O pin capacitance per CE, maximum (pF)"),
    Field("sdr_timing_modes", 129, 2, "int", "SDR timing modes supported (bit per mode)"),
    Field("t_prog_us", 133, 2, "int", "tPROG maximum page program time (us)"),
    Field("t_bers_us", 135, 2, "int", "tBERS maximum block erase time (us)"),
    Field("t_r_us", 137, 2, "int", "tR maximum page read time (us)"),
    Field("t_ccs_ns", 139, 2, "int", "tCCS minimum change column setup time (ns)"),
    Field("nv_ddr_timing_modes", 141, 1, "int", "NV-DDR timing modes supported"),
    Field("nv_ddr2_timing_modes", 142, 1, "int", "NV-DDR2 timing modes supported"),
    Field("nv_ddr_features", 143, 1, "int", "NV-DDR / NV-DDR2 features"),
    Field("driver_strength", 151, 1, "int", "driver strength support"),
    Field("t_r_multiplane_us", 152, 2, "int", "tR maximum multi-plane page read time (us)"),
    Field("t_adl_ns", 154, 2, "int", "tADL minimum program page register clear time (ns)"),
    Field("nv_ddr23_features", 158, 1, "int", "NV-DDR2 / NV-DDR3 features (ODT, differential)"),
    Field("nv_ddr23_warmup", 159, 1, "int", "warm-up cycle codes: 7:4 data input, 3:0 output"),
    Field("nv_ddr3_timing_modes", 160, 2, "int", "NV-DDR3 timing modes supported"),
    Field("nv_ddr2_timing_modes_high", 162, 1, "int", "NV-DDR2 timing modes 8..15 supported"),
    # vendor block
    Field("vendor_revision", 164, 2, "int", "vendor specific revision"),
    Field("vendor", 166, 88, "bytes", "vendor specific"),
    Field("crc", 254, 2, "int", "integrity CRC over bytes 0..253"),
)
BY_NAME = {f.name: f for f in FIELDS}


def revisions_through(version: str) -> int:
    """The revision field of a part that complies with `version` and every earlier one."""
    if version not in ONFI_REVISION_BITS:
        known = ", ".join(ONFI_REVISION_BITS)
        raise ValueError(f"unknown ONFI revision {version!r}: known {known}")
    limit = ONFI_REVISION_BITS[version]
    return sum(bit for bit in ONFI_REVISION_BITS.values() if bit <= limit)


def highest_revision(revision: int) -> str | None:
    """The newest ONFI revision whose bit is set, or None."""
    found = [v for v, bit in ONFI_REVISION_BITS.items() if revision & bit]
    return found[-1] if found else None


def crc16(data: bytes | bytearray | memoryview, init: int = CRC_INIT) -> int:
    """ONFI CRC-16 (polynomial 0x8005, initial 0x4F4E, MSB first, no reflection)."""
    crc = init
    for byte in bytes(data):
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ CRC_POLY) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def pack_fields(
    page: bytearray, by_name: dict[str, Field], values: dict[str, Any], what: str
) -> None:
    """Write field values into `page` (ONFI's and the JEDEC page share the layout rules:
    little-endian ints, space-padded ASCII, zero-padded bytes); signature and CRC are the
    builder's own, `what` names the page in errors."""
    for name, value in values.items():
        field = by_name[name]
        if name in ("signature", "crc"):
            raise ValueError(f"{what} field '{name}' is set by build() itself")
        if field.kind == "int":
            raw = int(value).to_bytes(field.size, "little")
        elif field.kind == "str":
            text = str(value).encode("ascii")
            if len(text) > field.size:
                raise ValueError(f"{what} field '{name}' holds at most {field.size} chars")
            raw = text.ljust(field.size, b" ")
        else:
            raw = bytes(value).ljust(field.size, b"\x00")
            if len(raw) > field.size:
                raise ValueError(f"{what} field '{name}' holds at most {field.size} bytes")
        page[field.offset : field.offset + field.size] = raw


def unpack_fields(page: bytes, fields: Sequence[Field]) -> dict[str, Any]:
    """Decode `fields` from `page` by the same rules as `pack_fields`."""
    out: dict[str, Any] = {}
    for f in fields:
        raw = page[f.offset : f.offset + f.size]
        if f.kind == "int":
            out[f.name] = int.from_bytes(raw, "little")
        elif f.kind == "str":
            out[f.name] = raw.decode("ascii", errors="replace").rstrip(" ")
        else:
            out[f.name] = bytes(raw)
    return out


def build(values: dict[str, Any]) -> bytes:
    """Assemble one 256-byte parameter page from field values; the CRC is computed here."""
    page = bytearray(PARAMETER_PAGE_BYTES)
    page[0:4] = ONFI_SIGNATURE
    pack_fields(page, BY_NAME, values, "parameter page")
    page[254:256] = crc16(page[:CRC_SPAN]).to_bytes(2, "little")
    return bytes(page)


def crc_ok(page: bytes) -> bool:
    return len(page) >= PARAMETER_PAGE_BYTES and crc16(page[:CRC_SPAN]) == int.from_bytes(
        page[254:256], "little"
    )


def majority(copies: Sequence[bytes]) -> bytes:
    """Bitwise majority of an odd number (>= 3) of parameter page copies (Linux does the same)."""
    if len(copies) < 3:
        raise ValueError("a bitwise majority needs at least 3 copies")
    out = bytearray(PARAMETER_PAGE_BYTES)
    need = len(copies) // 2 + 1
    for i in range(PARAMETER_PAGE_BYTES):
        byte = 0
        for bit in range(8):
            votes = sum((c[i] >> bit) & 1 for c in copies)
            if votes >= need:
                byte |= 1 << bit
        out[i] = byte
    return bytes(out)


def parse(page: bytes) -> dict[str, Any]:
    """Decode the fields of one parameter page (CRC not checked here; see `crc_ok`)."""
    if len(page) < PARAMETER_PAGE_BYTES:
        raise ValueError(f"a parameter page is {PARAMETER_PAGE_BYTES} bytes, got {len(page)}")
    return unpack_fields(page, FIELDS)
