"""Conformance suite: every built-in profile's identification against the ONFI rules.

Each virtual die is read at its pins (command, address, data out; no nandlab
host code) and what it reports is checked three ways: by the rule table
(`onfi_spec.onfi_rules`, each failure naming the field and the rule), by an
independent detector written from Linux's ONFI rules (`linux_onfi`), and by
the host's own identification. docs/conformance.md carries the table of every
profile's values, checked here (regenerate with NANDLAB_UPDATE_DOCS=1).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from linux_onfi import NotOnfi, detect

from nandlab.onfi import Chip
from nandlab.onfi.errors import ParameterPageInvalid
from nandlab.onfi.identify import decode_parameter_page
from nandlab.onfi_spec import ext_parampage, legacy_id, onfi_rules, parampage
from nandlab.onfi_spec.opcodes import Cmd
from nandlab.profiles import Profile, builtin_names, load_profile
from nandlab.transport import open_bench
from nandlab.vchip import identity
from nandlab.vchip.die import VirtualDie

DOC = Path(__file__).resolve().parents[2] / "docs" / "conformance.md"
START, END = "<!-- conformance-table:start -->", "<!-- conformance-table:end -->"
MS = 1_000_000_000
# The ONFI parts; a JEDEC (Toggle) part's page is checked in test_jedec_identify.py
ONFI_NAMES = [n for n in builtin_names() if load_profile(n).identity.standard == "onfi"]


def read_at_pins(profile: Profile) -> tuple[bytes, bytes, bytes, bytes]:
    """(READ ID 00h x 8, READ ID 20h x 4, READ ID 40h x 5, the first 1 KiB of READ
    PARAMETER PAGE: 3 copies and what follows, the extended page if any)."""
    die = VirtualDie(profile)

    def read_id(address: int, n: int) -> bytes:
        die.cmd(Cmd.READ_ID)
        die.addr(address)
        return die.read(n)

    ids = read_id(0x00, 8), read_id(0x20, 4), read_id(0x40, 5)
    die.cmd(Cmd.READ_PARAMETER_PAGE)
    die.addr(0x00)
    assert die.wait_ready(MS) is not None
    return (*ids, die.read(4 * 256))


def violations(profile: Profile) -> list[str]:
    """Every rule the profile's identification breaks, as 'profile: field ...: rule'."""
    id00, _, _, pages = read_at_pins(profile)
    out = [f"{profile.name}: {v}" for v in onfi_rules.check(pages[:256])]
    ecc = extended_ecc(pages)
    if ecc is not None:
        fields = parampage.parse(pages[:256])
        out += [f"{profile.name}: {v}" for v in onfi_rules.check_extended(fields, ecc)]
    legacy = legacy_id.decode(id00)
    if legacy is None or legacy.bits_per_cell != profile.geometry.bits_per_cell:
        got = None if legacy is None else legacy.bits_per_cell
        out.append(
            f"{profile.name}: READ ID byte 2 bits 3:2 decode to {got} bits per cell, the part "
            f"stores {profile.geometry.bits_per_cell} (00b SLC, 01b MLC, 10b TLC, 11b QLC)"
        )
    if legacy is not None and legacy.manufacturer != profile.identity.jedec_id:
        out.append(f"{profile.name}: READ ID byte 0 must be the JEDEC manufacturer ID (byte 64)")
    return out


def extended_ecc(pages: bytes) -> ext_parampage.EccInfo | None:
    f = parampage.parse(pages[:256])
    if f["ecc_bits"] != parampage.ECC_SEE_EXTENDED_PAGE:
        return None
    start, length = f["param_pages"] * 256, f["ext_param_page_length"] * ext_parampage.UNIT
    return ext_parampage.parse(pages[start : start + length])


def ecc_of(profile: Profile) -> tuple[int, int]:
    return profile.identity.ecc_bits, profile.identity.ecc_codeword_bytes


@pytest.mark.parametrize("name", ONFI_NAMES)
def test_builtin_profile_follows_every_rule(name: str) -> None:
    assert violations(load_profile(name)) == []


@pytest.mark.parametrize("name", ONFI_NAMES)
def test_linux_rules_accept_every_builtin_profile(name: str) -> None:
    profile = load_profile(name)
    g = profile.geometry
    _, id20, id40, pages = read_at_pins(profile)
    linux = detect(id20, pages)
    assert linux.copy_used == 0
    assert linux.version == 23  # a 4.x part also sets 1.0 .. 2.3
    assert linux.manufacturer == profile.identity.manufacturer
    assert linux.model == profile.identity.model
    assert (linux.page_bytes, linux.oob_bytes) == (g.page_bytes, g.spare_bytes)
    assert linux.planes == g.planes and linux.luns == 1
    assert linux.bits_per_cell == g.bits_per_cell
    assert (linux.ecc_strength, linux.ecc_step) == ecc_of(profile)
    assert linux.best_sdr_mode == max(profile.timing.sdr_modes)
    assert linux.set_get_features
    # MTD truncates to powers of two (tlc-48l's 576 pages per block become 512)
    assert linux.pages_per_block <= g.pages_per_block < 2 * linux.pages_per_block
    assert linux.truncated == (g.pages_per_block & (g.pages_per_block - 1) != 0)
    assert id40 != b"JEDEC"  # an ONFI part does not claim JEDEC identification too


@pytest.mark.parametrize("name", ONFI_NAMES)
def test_host_identification_agrees(name: str) -> None:
    profile = load_profile(name)
    with open_bench(f"sim://{name}?fresh=1") as bench:
        ident = Chip(bench).identify()
    f = ident.fields
    assert f["onfi_version"] == profile.identity.onfi_version
    assert f["revision"] == parampage.revisions_through(profile.identity.onfi_version)
    assert f["id_bits_per_cell"] == f["bits_per_cell"] == profile.geometry.bits_per_cell
    assert (f["ecc_strength"], f["ecc_step_bytes"]) == ecc_of(profile)
    assert f["conformance"] == []


def _broken(name: str, **identity_update: object) -> Profile:
    p = load_profile(name)
    return p.model_copy(update={"identity": p.identity.model_copy(update=identity_update)})


def test_a_profile_that_breaks_a_rule_is_named_with_field_and_rule() -> None:
    no_ecc = violations(_broken("mlc-64l", ecc_bits=0))
    assert no_ecc == [
        "mlc-64l: field 'ecc_bits' (byte 112) = 0x0: a multi-level cell part states its ECC "
        "requirement (0 means none)"
    ]
    assert violations(_broken("tlc-48l", ecc_bits=200)) == [
        "tlc-48l: field 'extended ECC bits' = 0xc8: a BCH code of 200 bits per 1024 bytes "
        "fits the spare bytes"
    ]
    too_much = violations(_broken("slc-search", ecc_bits=40))
    assert [v for v in too_much if "fits the spare bytes" in v] == [
        "slc-search: field 'ecc_bits' (byte 112) = 0x28: a BCH code of this strength per 512 "
        "bytes (13 parity bits per bit) fits the spare bytes"
    ]
    wrong_cell = violations(_broken("mlc-64l", id_bytes=[0xFA, 0x64, 0x08, 0x32]))
    assert wrong_cell == [
        "mlc-64l: READ ID byte 2 bits 3:2 decode to 3 bits per cell, the part stores 2 "
        "(00b SLC, 01b MLC, 10b TLC, 11b QLC)"
    ]


def test_a_page_linux_rejects_is_explained_by_the_host() -> None:
    """The old bug: only bit 9 (4.0) set. Linux: unsupported version; nandlab says why."""
    profile = load_profile("mlc-64l")
    values = identity.parameter_page_values(profile)
    page = parampage.build({**values, "revision": parampage.ONFI_REVISION_BITS["4.0"]})
    with pytest.raises(NotOnfi, match="unsupported ONFI version: 512"):
        detect(b"ONFI", page * 3)
    with pytest.raises(ParameterPageInvalid, match=r"'revision' \(byte 4\) = 0x200: must set"):
        decode_parameter_page(page, bytes(profile.identity.id_bytes))


# ---------------------------------------------------------------- docs/conformance.md

ROWS: tuple[tuple[str, str, str], ...] = (
    ("revision (4-5)", "every revision complied with; one of bits 1-5 (Linux)", "revision"),
    ("features (6-7)", "multi-plane bits need plane address bits", "features"),
    ("optional commands (8-9)", "bit 2: GET / SET FEATURES", "optional_commands"),
    ("parameter pages (14)", ">= 3 from ONFI 2.1", "param_pages"),
    ("JEDEC ID (64)", "= READ ID byte 0", "jedec_id"),
    ("page + spare bytes (80, 84)", "page a power of two", "geometry"),
    ("pages per block (92)", "Linux keeps the largest power of two", "pages_per_block"),
    ("blocks per LUN (96)", ">= 1", "blocks_per_lun"),
    ("address cycles (101)", "row cycles hold page + block + LUN bits", "address_cycles"),
    ("bits per cell (102)", "1-4; = READ ID byte 2 bits 3:2 + 1", "bits_per_cell"),
    ("bad blocks max (103)", "<= blocks per LUN", "max_bad_blocks"),
    ("endurance (105-106)", "value x 10^multiplier", "endurance"),
    ("ECC bits (112)", "FFh: see the extended page (features bit 7)", "ecc_bits"),
    ("ECC bits / codeword", "> 0 for MLC / TLC; BCH parity fits the spare", "ecc"),
    ("plane address bits (113)", "planes = 2^n", "plane_address_bits"),
    ("SDR timing modes (129)", "bit 0 set, bits 6-15 clear", "sdr_timing_modes"),
    ("NV-DDR2 modes (142, 162)", "features bit 10 set exactly when listed", "nv_ddr2"),
    ("NV-DDR3 modes (160-161)", "features bit 13 set exactly when listed (ONFI 4.0)",
     "nv_ddr3_timing_modes"),
    ("NV-DDR2/3 features, warm-up (158, 159)", "0 on an SDR-only part", "ddr_features"),
    ("tR / tPROG / tBERS max (137, 133, 135)", "non-zero (us)", "latency"),
    ("READ ID 00h byte 2", "bits 3:2 = cell type", "id_byte2"),
)


def _cell(id00: bytes, pages: bytes, key: str) -> str:
    f = parampage.parse(pages[:256])
    if key == "ecc":
        ecc = extended_ecc(pages)
        return f"{f['ecc_bits']} / 512 B" if ecc is None else f"{ecc.bits} / {ecc.codeword_bytes} B"
    if key == "geometry":
        return f"{f['page_bytes']} + {f['spare_bytes']}"
    if key == "endurance":
        return f"{f['endurance_value']} x 10^{f['endurance_multiplier']}"
    if key == "latency":
        return f"{f['t_r_us']} / {f['t_prog_us']} / {f['t_bers_us']}"
    if key == "nv_ddr2":
        return f"{f['nv_ddr2_timing_modes'] | f['nv_ddr2_timing_modes_high'] << 8:04X}h"
    if key == "ddr_features":
        return f"{f['nv_ddr23_features']:02X}h, {f['nv_ddr23_warmup']:02X}h"
    if key == "id_byte2":
        return f"{id00[2]:02X}h"
    if key in ("jedec_id", "ecc_bits"):
        return f"{f[key]:02X}h"
    if key == "address_cycles":
        return f"{f[key]:02X}h"
    if key in ("revision", "features", "optional_commands", "sdr_timing_modes",
               "nv_ddr3_timing_modes"):
        return f"{f[key]:04X}h"
    return str(f[key])


def conformance_table() -> str:
    names = ONFI_NAMES
    read = [read_at_pins(load_profile(n)) for n in names]
    decoded = [(id00, pages) for id00, _, _, pages in read]
    head = "| field (byte) | spec rule | " + " | ".join(names) + " |"
    sep = "|" + "---|" * (2 + len(names))
    rows = [
        f"| {label} | {rule} | " + " | ".join(_cell(i, f, key) for i, f in decoded) + " |"
        for label, rule, key in ROWS
    ]
    return "\n".join([head, sep, *rows])


def test_docs_table_is_current() -> None:
    text = DOC.read_text()
    before, rest = text.split(START)
    _, after = rest.split(END)
    fresh = f"{before}{START}\n{conformance_table()}\n{END}{after}"
    if os.environ.get("NANDLAB_UPDATE_DOCS"):
        DOC.write_text(fresh)
        text = fresh
    assert text == fresh, "docs/conformance.md is stale: rerun with NANDLAB_UPDATE_DOCS=1"
