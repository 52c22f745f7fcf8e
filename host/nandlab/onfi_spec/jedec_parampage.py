"""The JEDEC parameter page (JESD230) of a Toggle DDR part: layout, CRC, build and parse.

How a JEDEC (Toggle) part identifies, as Linux's `nand_jedec.c` reads it
(drivers/mtd/nand/raw/nand_jedec.c, include/linux/mtd/jedec.h):

- READ ID (90h) at address 40h returns the 5 ASCII bytes "JEDEC" (an ONFI
  part answers "ONFI" at 20h instead; a Toggle-only part has no ONFI page).
- READ PARAMETER PAGE (ECh) at address 40h returns 512-byte pages, at least
  3 copies back to back. A copy starts with "JESD"; bytes 510-511 hold,
  little-endian, the CRC-16 of bytes 0..509 with ONFI's polynomial 8005h and
  seed 4F4Eh. Linux takes the first copy whose CRC passes (no majority) and
  gives up when none does.
- Revision (bytes 4-5): bit 2 = JESD230 1.0, bit 1 = a vendor-specific
  revision; Linux rejects a page with neither.
- Memory organisation as ONFI's at the same offsets (80 page bytes, 84 spare,
  92 pages per block, 96 blocks per LUN, 100 LUNs, 101 address cycles, 102
  bits per cell), but the plane count is 2 ^ byte 104 and the ECC need is in
  four 8-byte blocks from byte 211 (bits, log2 of the codeword bytes, bad
  blocks per LUN, endurance); Linux uses the first and only when its
  codeword is 2^9 bytes or more. Linux rounds pages per block and blocks
  per LUN down to a power of two.
- Electrical block: speed grades of the asynchronous SDR (bytes 144-145),
  Toggle DDR (146-147) and synchronous DDR (148-149) interfaces, one bit per
  grade; tPROG / tBERS / tR / multi-plane tR in us (153..160), tCCS and tADL
  in ns (161, 170). Linux does not read these. We index the SDR grades as
  ONFI's SDR modes 0-5 and the Toggle grades as the Toggle rows of
  `nvddr_timing` (the cycle times of NV-DDR2 modes 0-7, 66-400 MT/s): our
  reading of JESD230's harmonised tables, not checked against a public copy
  of them (the corpora we searched hold none).
- Optional commands (bytes 8-10) follow ONFI's bit order for bits 0-5
  (page cache program, read cache, GET / SET FEATURES, READ STATUS
  ENHANCED, copyback, READ UNIQUE ID); Linux names bit 1 (read cache).

The Toggle DDR data interface against NV-DDR2: no CLK (commands and
addresses are latched on WE_n edges as in SDR), a bidirectional DQS that the
host drives on data in and the die on data out, RE_n toggled by the host to
pace data out, complementary RE_c / DQS_c in Toggle 2.0, preambles and
postambles around each burst (tWPRE / tWPST, tRPRE / tRPST). A Toggle part
is DDR from power-on at whatever speed grade the host runs: there is no
feature 01h to select the interface, so a host "negotiates" only by choosing
a grade the part's page lists. The AC limits per grade are
`nvddr_timing.DDR_MODES["toggle2"]`.
"""

from __future__ import annotations

from typing import Any

from nandlab.onfi_spec.parampage import Field, crc16, pack_fields, unpack_fields

READ_ID_JEDEC_ADDRESS = 0x40
JEDEC_ID_SIGNATURE = b"JEDEC"
PARAMETER_PAGE_ADDRESS = 0x40  # READ PARAMETER PAGE address of the JEDEC page
SIGNATURE = b"JESD"
PAGE_BYTES = 512
CRC_SPAN = 510  # CRC over bytes 0..509, stored little-endian at 510..511

REVISION_VENDOR = 1 << 1
REVISION_JESD230 = 1 << 2

MIN_CODEWORD_LOG2 = 9  # Linux ignores an ECC block whose codeword is under 512 bytes
ECC_BLOCKS = 4
ECC_BLOCK_OFFSET = 211
ECC_BLOCK_BYTES = 8

# Bytes 8-10, optional commands (ONFI's order; bit 1 as Linux's JEDEC_OPT_CMD_READ_CACHE).
OPT_CACHE_PROGRAM = 1 << 0
OPT_CACHE_READ = 1 << 1
OPT_FEATURES = 1 << 2
OPT_STATUS_ENHANCED = 1 << 3
OPT_COPYBACK = 1 << 4
OPT_UNIQUE_ID = 1 << 5

FEATURE_16_BIT_BUS = 1 << 0


def _ecc_fields() -> tuple[Field, ...]:
    out: list[Field] = []
    for k in range(ECC_BLOCKS):
        base = ECC_BLOCK_OFFSET + k * ECC_BLOCK_BYTES
        out += [
            Field(f"ecc{k}_bits", base, 1, "int", "ECC bits correctable per codeword"),
            Field(f"ecc{k}_codeword_log2", base + 1, 1, "int", "codeword = 2^n bytes"),
            Field(f"ecc{k}_bad_blocks", base + 2, 2, "int", "bad blocks maximum per LUN"),
            Field(f"ecc{k}_endurance_value", base + 4, 1, "int", "endurance value x 10^mult"),
            Field(f"ecc{k}_endurance_multiplier", base + 5, 1, "int", ""),
        ]
    return tuple(out)


FIELDS: tuple[Field, ...] = (
    Field("signature", 0, 4, "bytes", "'JESD'"),
    Field("revision", 4, 2, "int", "bit 2 JESD230 1.0, bit 1 vendor specific"),
    Field("features", 6, 2, "int", "features supported (bit 0: 16-bit bus)"),
    Field("optional_commands", 8, 3, "int", "optional commands supported"),
    Field("secondary_commands", 11, 2, "int", "secondary commands supported"),
    Field("param_pages", 13, 1, "int", "number of parameter page copies"),
    Field("manufacturer", 32, 12, "str", "device manufacturer"),
    Field("model", 44, 20, "str", "device model"),
    Field("jedec_id", 64, 6, "bytes", "JEDEC manufacturer ID (with continuation codes)"),
    Field("page_bytes", 80, 4, "int", "data bytes per page"),
    Field("spare_bytes", 84, 2, "int", "spare bytes per page"),
    Field("pages_per_block", 92, 4, "int", "pages per block"),
    Field("blocks_per_lun", 96, 4, "int", "blocks per LUN"),
    Field("luns", 100, 1, "int", "LUNs per chip enable"),
    Field("address_cycles", 101, 1, "int", "bits 3:0 row cycles, 7:4 column cycles"),
    Field("bits_per_cell", 102, 1, "int", "bits per cell"),
    Field("programs_per_page", 103, 1, "int", "partial programs per page"),
    Field("plane_address_bits", 104, 1, "int", "multi-plane addressing: planes = 2^n"),
    Field("multiplane_attributes", 105, 1, "int", "multi-plane operation attributes"),
    Field("async_sdr_speed_grades", 144, 2, "int", "asynchronous SDR speed grades (bit each)"),
    Field("toggle_ddr_speed_grades", 146, 2, "int", "Toggle DDR speed grades (bit each)"),
    Field("sync_ddr_speed_grades", 148, 2, "int", "synchronous DDR speed grades (bit each)"),
    Field("async_sdr_features", 150, 1, "int", "asynchronous SDR features"),
    Field("toggle_ddr_features", 151, 1, "int", "Toggle DDR features"),
    Field("sync_ddr_features", 152, 1, "int", "synchronous DDR features"),
    Field("t_prog_us", 153, 2, "int", "tPROG maximum page program time (us)"),
    Field("t_bers_us", 155, 2, "int", "tBERS maximum block erase time (us)"),
    Field("t_r_us", 157, 2, "int", "tR maximum page read time (us)"),
    Field("t_r_multiplane_us", 159, 2, "int", "tR maximum multi-plane page read time (us)"),
    Field("t_ccs_ns", 161, 2, "int", "tCCS minimum change column setup time (ns)"),
    Field("io_capacitance_typ", 163, 2, "int", "I/O pin capacitance, typical"),
    Field("input_capacitance_typ", 165, 2, "int", "input pin capacitance, typical"),
    Field("clk_capacitance_typ", 167, 2, "int", "CLK pin capacitance, typical"),
    Field("driver_strength", 169, 1, "int", "driver strength support"),
    Field("t_adl_ns", 170, 2, "int", "tADL minimum (ns)"),
    Field("guaranteed_good_blocks", 208, 1, "int", "guaranteed valid blocks at block 0"),
    Field("guaranteed_endurance_value", 209, 1, "int", "their endurance = value x 10^mult"),
    Field("guaranteed_endurance_multiplier", 210, 1, "int", ""),
    *_ecc_fields(),
    Field("vendor_revision", 420, 2, "int", "vendor specific revision"),
    Field("vendor", 422, 88, "bytes", "vendor specific"),
    Field("crc", 510, 2, "int", "integrity CRC over bytes 0..509"),
)
BY_NAME = {f.name: f for f in FIELDS}


def build(values: dict[str, Any]) -> bytes:
    """Assemble one 512-byte JEDEC parameter page; signature and CRC are set here."""
    page = bytearray(PAGE_BYTES)
    page[0:4] = SIGNATURE
    pack_fields(page, BY_NAME, values, "JEDEC parameter page")
    page[CRC_SPAN:PAGE_BYTES] = crc16(page[:CRC_SPAN]).to_bytes(2, "little")
    return bytes(page)


def crc_ok(page: bytes) -> bool:
    return len(page) >= PAGE_BYTES and crc16(page[:CRC_SPAN]) == int.from_bytes(
        page[CRC_SPAN:PAGE_BYTES], "little"
    )


def parse(page: bytes) -> dict[str, Any]:
    """Decode the fields of one JEDEC parameter page (CRC not checked here; see `crc_ok`)."""
    if len(page) < PAGE_BYTES:
        raise ValueError(f"a JEDEC parameter page is {PAGE_BYTES} bytes, got {len(page)}")
    return unpack_fields(page, FIELDS)


def revision_name(revision: int) -> str | None:
    """'JESD230' or 'vendor' for the revision field (Linux's test), None when neither."""
    if revision & REVISION_JESD230:
        return "JESD230"
    if revision & REVISION_VENDOR:
        return "vendor"
    return None


def grades(bits: int) -> list[int]:
    """The speed grade indices set in a speed grade field."""
    return [k for k in range(16) if bits >> k & 1]
