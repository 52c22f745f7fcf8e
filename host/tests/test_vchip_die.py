"""VirtualDie: identification, features, status and the ONFI command state machine."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nandlab.onfi_spec import parampage
from nandlab.onfi_spec.opcodes import Cmd, Status
from nandlab.profiles import load_profile
from nandlab.vchip.die import VirtualDie

MS = 1_000_000_000  # generous wait_ready timeout (ns)


class Host:
    """Minimal host helpers over one die (the chip layer does this for real)."""

    def __init__(self, die: VirtualDie) -> None:
        self.die = die
        self.g = die.profile.geometry
        self.nbytes = self.g.page_bytes + self.g.spare_bytes

    def row(self, block: int, page: int) -> int:
        return block << self.g.page_address_bits | page

    def address(self, block: int, page: int, col: int = 0) -> None:
        for b in col.to_bytes(self.g.column_cycles, "little"):
            self.die.addr(b)
        self.row_address(block, page)

    def row_address(self, block: int, page: int) -> None:
        for b in self.row(block, page).to_bytes(self.g.row_cycles, "little"):
            self.die.addr(b)

    def status(self) -> int:
        self.die.cmd(Cmd.READ_STATUS)
        return self.die.read(1)[0]

    def read_page(self, block: int, page: int) -> bytes:
        self.die.cmd(Cmd.READ)
        self.address(block, page)
        self.die.cmd(Cmd.READ_CONFIRM)
        assert self.die.wait_ready(MS) is not None
        return self.die.read(self.nbytes)

    def program_page(self, block: int, page: int, data: bytes) -> int:
        self.die.cmd(Cmd.PROGRAM)
        self.address(block, page)
        self.die.write(data)
        self.die.cmd(Cmd.PROGRAM_CONFIRM)
        assert self.die.wait_ready(MS) is not None
        return self.status()

    def erase(self, block: int) -> int:
        self.die.cmd(Cmd.ERASE)
        self.row_address(block, 0)
        self.die.cmd(Cmd.ERASE_CONFIRM)
        assert self.die.wait_ready(MS) is not None
        return self.status()

    def get_feature(self, fa: int) -> bytes:
        self.die.cmd(Cmd.GET_FEATURES)
        self.die.addr(fa)
        self.die.wait_ready(MS)
        return self.die.read(4)

    def set_feature(self, fa: int, params: bytes) -> None:
        self.die.cmd(Cmd.SET_FEATURES)
        self.die.addr(fa)
        self.die.write(params)
        self.die.wait_ready(MS)

    def random_page(self, seed: int) -> bytes:
        return np.random.default_rng(seed).integers(0, 256, self.nbytes, dtype=np.uint8).tobytes()


def bit_errors(a: bytes, b: bytes) -> int:
    x = np.frombuffer(a, np.uint8) ^ np.frombuffer(b, np.uint8)
    return int(np.unpackbits(x).sum())


@pytest.fixture(scope="module")
def mlc():
    return load_profile("mlc-64l")


@pytest.fixture
def host(mlc) -> Host:
    return Host(VirtualDie(mlc, seed=3))


OK = Status.RDY | Status.ARDY | Status.WP_N


# ------------------------------------------------------------------ identification


def test_read_id_both_addresses(host):
    die = host.die
    die.cmd(Cmd.READ_ID)
    die.addr(0x00)
    ids = die.profile.identity.id_bytes
    assert die.read(8) == bytes(ids).ljust(8, b"\0")
    die.cmd(Cmd.READ_ID)
    die.addr(0x20)
    assert die.read(5) == b"ONFI\0"


def test_parameter_page_crc_and_geometry(host, mlc):
    die = host.die
    die.cmd(Cmd.READ_PARAMETER_PAGE)
    die.addr(0)
    assert not die.ready and die.read(1) == b"\xff"  # data out while busy
    busy = die.wait_ready(MS)
    assert busy is not None and 20_000 <= busy <= 30_000
    data = die.read(256 * 4)
    copies = [data[i * 256 : (i + 1) * 256] for i in range(4)]
    assert all(parampage.crc_ok(c) for c in copies)
    assert copies[0] == copies[1] == copies[2] == copies[3]  # copies repeat back to back
    f = parampage.parse(copies[0])
    g = mlc.geometry
    assert f["signature"] == b"ONFI"
    assert (f["page_bytes"], f["spare_bytes"]) == (g.page_bytes, g.spare_bytes)
    assert f["pages_per_block"] == g.pages_per_block == 512
    assert f["blocks_per_lun"] == g.blocks and f["luns"] == 1
    assert f["address_cycles"] == 0x23 and f["bits_per_cell"] == 2
    assert f["plane_address_bits"] == 1
    assert f["sdr_timing_modes"] == 0x3F
    assert f["t_r_us"] == 70  # MSB page: 10 + 2 x 30
    assert f["endurance_value"] * 10 ** f["endurance_multiplier"] == 10_000
    assert f["manufacturer"] == "NANDLAB" and f["model"] == "VIRT-MLC-64L"
    assert f["revision"] & parampage.ONFI_REVISION_BITS["4.0"]


def test_parameter_page_corrupt_copies_majority(mlc):
    die = VirtualDie(mlc, corrupt_param_copies={0, 1, 2})
    die.cmd(Cmd.READ_PARAMETER_PAGE)
    die.addr(0)
    die.wait_ready(MS)
    data = die.read(768)
    copies = [data[i * 256 : (i + 1) * 256] for i in range(3)]
    assert not any(parampage.crc_ok(c) for c in copies)
    good = parampage.majority(copies)
    assert parampage.crc_ok(good)
    assert parampage.parse(good)["page_bytes"] == mlc.geometry.page_bytes

    one_bad = VirtualDie(mlc, corrupt_param_copies={0: {80: 0x01}})
    one_bad.cmd(Cmd.READ_PARAMETER_PAGE)
    one_bad.addr(0)
    one_bad.wait_ready(MS)
    data = one_bad.read(512)
    assert not parampage.crc_ok(data[:256]) and parampage.crc_ok(data[256:])


def test_unique_id_complement_and_determinism(mlc):
    def uid(seed: int, chip: int) -> bytes:
        die = VirtualDie(mlc, seed=seed, chip=chip)
        die.cmd(Cmd.READ_UNIQUE_ID)
        die.addr(0)
        assert die.wait_ready(MS)
        return die.read(32 * 16)

    out = uid(3, 0)
    for k in range(16):
        copy = out[32 * k : 32 * (k + 1)]
        assert bytes(a ^ b for a, b in zip(copy[:16], copy[16:], strict=True)) == b"\xff" * 16
        assert copy == out[:32]
    assert uid(3, 0)[:16] == out[:16]
    assert uid(3, 1)[:16] != out[:16]
    assert uid(4, 0)[:16] != out[:16]


# ------------------------------------------------------------------ features and timing


def test_features_get_set_unknown_and_reset(host):
    assert host.get_feature(0xA1) == bytes(4)
    host.set_feature(0xA1, bytes([0x85, 1, 2, 3]))
    assert host.get_feature(0xA1) == bytes([0x85, 1, 2, 3])
    host.set_feature(0x5C, b"\x11\x22\x33\x44")  # not implemented: ignored, as silicon does
    assert host.get_feature(0x5C) == bytes(4)
    host.die.cmd(Cmd.RESET)
    assert not host.die.ready
    assert host.die.wait_ready(MS) == round(host.die.profile.timing.t_rst_us * 1000)
    assert host.get_feature(0xA1) == bytes(4)


def test_timing_mode_changes_bus_time(host):
    die = host.die
    t = die.now_ns
    die.cmd(Cmd.READ_STATUS)
    assert die.now_ns - t == 100  # mode 0: tWC 100 ns
    host.set_feature(0x01, bytes([5, 0, 0, 0]))
    assert die.timing_mode == 5
    t = die.now_ns
    die.cmd(Cmd.READ_STATUS)
    die.read(10)
    assert die.now_ns - t == 20 + 10 * 20
    host.set_feature(0x01, bytes([0x13, 0, 0, 0]))  # NV-DDR: ignored
    host.set_feature(0x01, bytes([9, 0, 0, 0]))  # no such SDR mode: ignored
    assert die.timing_mode == 5
    assert host.get_feature(0x01)[0] == 5
    die.cmd(Cmd.RESET)
    die.wait_ready(MS)
    assert die.timing_mode == 0


def test_unsupported_timing_mode_ignored(mlc):
    limited = mlc.model_copy(update={"timing": mlc.timing.model_copy(update={"sdr_modes": [0, 1]})})
    h = Host(VirtualDie(limited))
    h.set_feature(0x01, bytes([4, 0, 0, 0]))
    assert h.die.timing_mode == 0
    h.set_feature(0x01, bytes([1, 0, 0, 0]))
    assert h.die.timing_mode == 1


def test_state_dict_round_trip(host, mlc):
    host.set_feature(0xA2, bytes([0xF6, 0, 0, 0]))
    host.set_feature(0x01, bytes([3, 0, 0, 0]))
    host.die.cmd(mlc.vendor.slc_mode.enter_cmd)
    state = json.loads(json.dumps(host.die.state_dict()))
    other = VirtualDie(mlc, seed=3, array=host.die.array)
    other.load_state(state)
    assert other.timing_mode == 3 and other.slc_mode
    assert other.feature(0xA2) == bytes([0xF6, 0, 0, 0])


# ------------------------------------------------------------------ status


def test_status_rereadable_and_busy_bits(host):
    die = host.die
    assert host.status() == OK
    assert die.read(3) == bytes([OK] * 3)
    host.die.cmd(Cmd.READ)
    host.address(0, 1)
    die.cmd(Cmd.READ_CONFIRM)
    die.cmd(Cmd.READ_STATUS)
    assert die.read(1)[0] & (Status.RDY | Status.ARDY) == 0
    assert die.wait_ready(10) is None  # still busy at the timeout
    die.wait_ready(MS)
    assert die.read(1)[0] == OK
    die.cmd(Cmd.READ)  # 00h without address: back to data output
    assert die.read(4) == b"\xff" * 4  # erased page


def test_read_status_enhanced_per_plane(host, mlc):
    bad = next(b for b in range(mlc.geometry.blocks) if host.die.array.is_factory_bad(b))
    assert host.program_page(bad, 0, host.random_page(1)) & Status.FAIL
    host.die.cmd(Cmd.READ_STATUS_ENHANCED)
    host.row_address(bad, 0)
    assert host.die.read(1)[0] & Status.FAIL
    host.die.cmd(Cmd.READ_STATUS_ENHANCED)
    host.row_address(bad + 1, 0)  # the other plane did nothing
    assert not host.die.read(1)[0] & Status.FAIL


def test_unknown_command_ignored(host):
    die = host.die
    die.cmd(0x42)
    die.addr(0x12)
    die.write(b"\x00" * 4)
    assert die.read(2) == b"\xff\xff"
    assert host.status() == OK
    die.cmd(Cmd.READ_CONFIRM)  # a confirm with no open sequence
    die.cmd(Cmd.PROGRAM_CONFIRM)
    assert host.status() == OK
    assert host.read_page(0, 0) == b"\xff" * host.nbytes


def test_out_of_range_addresses(host, mlc):
    g = mlc.geometry
    host.die.cmd(Cmd.READ)
    host.address(0, 0)
    host.die.addr(0xFF)  # a fourth row cycle: ignored
    host.die.cmd(Cmd.READ_CONFIRM)
    host.die.wait_ready(MS)
    assert host.read_page(0, g.pages_per_block) == b"\xff" * host.nbytes  # carries: block 1
    host.die.cmd(Cmd.READ)
    for b in (0, 0, 0xFF, 0xFF, 0xFF):  # row past the last block, LUN bits set
        host.die.addr(b)
    host.die.cmd(Cmd.READ_CONFIRM)
    host.die.wait_ready(MS)
    assert host.die.read(16) == b"\xff" * 16
    # 2048 blocks fill the 11 block bits, so go past the page count in SLC mode instead
    host.die.cmd(mlc.vendor.slc_mode.enter_cmd)
    assert host.program_page(0, g.wls_per_block + 3, host.random_page(0)) & Status.FAIL
