"""Die images are verified before use: a damaged file is named, never a fresh die; a save
writes only the blocks that changed; dies a process saved itself under a lock it still
holds come back from memory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nandlab.errors import DamagedFileError, RangeError
from nandlab.locks import acquire
from nandlab.ops import Program
from nandlab.transport import image as image_module
from nandlab.transport import open_bench

URL = "sim://slc-search?seed=8"


def _folder(state_dir: Path) -> Path:
    return state_dir / "sim" / "slc-search-seed8"


@pytest.fixture
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("NANDLAB_DATA_DIR", str(tmp_path))
    with open_bench(URL + "&fresh=1") as bench:
        bench.run(Program().ce(0).delay(1000))
        bench.fast_forward_wear(0, 3, 1)  # one block holds state: a block file
    return tmp_path


def test_manifest_names_every_file_with_its_sha256(state_dir: Path) -> None:
    folder = _folder(state_dir)
    manifest = json.loads((folder / "manifest.json").read_text())
    for name, digest in image_module.image_files(manifest):
        assert image_module.sha256_file(folder / name) == digest
    manifest["now_ns"] += 1  # an edit the self-checksum catches
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(DamagedFileError, match="manifest.json fails its checksum.*--fresh"):
        open_bench(URL)


@pytest.mark.parametrize("pattern", ["die0.b*.npz", "die0.b*.json", "die0.g*.json"])
def test_a_damaged_die_file_is_named_and_kept(state_dir: Path, pattern: str) -> None:
    (path,) = _folder(state_dir).glob(pattern)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(DamagedFileError, match=f"{path.name} fails its sha256"):
        open_bench(URL)
    assert path.read_bytes() == bytes(data)  # not replaced by a fresh die
    with open_bench(URL + "&fresh=1") as bench:  # the way out the message gives
        assert bench.now_ns == 0


def test_a_reopen_under_the_same_hold_reads_nothing(
    state_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read: list[str] = []
    real = image_module.sha256_file

    def counting(path: Path) -> str:
        read.append(path.name)
        return real(path)

    monkeypatch.setattr(image_module, "sha256_file", counting)
    folder = _folder(state_dir)
    with acquire(folder / "lock", "chip"):
        first = open_bench(URL)  # saved by a hold that ended: verified
        assert any(n.endswith(".npz") for n in read)
        dies = first.dies
        first.close()
        read.clear()
        with open_bench(URL) as again:
            assert read == [] and again.dies[0].array is dies[0].array
    read.clear()
    open_bench(URL).close()  # a new hold: everything is verified again
    assert any(n.endswith(".npz") for n in read)


def _files(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir() if p.name.startswith("die")}


def test_a_save_writes_only_the_blocks_that_changed(state_dir: Path) -> None:
    folder = _folder(state_dir)
    with open_bench(URL + "&dies=2") as bench:
        for block in (3, 4, 5):
            bench.fast_forward_wear(1, block, 2)
    before = _files(folder)
    with open_bench(URL + "&dies=2") as bench:
        bench.fast_forward_wear(1, 4, 1)
    after = _files(folder)
    # die 1's block 4 (cells and history) and the two die documents are new; every other
    # block file stays
    new = sorted(after - before)
    assert sorted(n.split(".g")[0] + "." + n.rsplit(".", 1)[1] for n in new) == [
        "die0.json", "die1.b4.json", "die1.b4.npz", "die1.json"
    ]
    assert {n for n in before if ".b" in n} - after == {
        n for n in before if n.startswith("die1.b4.")
    }
    manifest = json.loads((folder / "manifest.json").read_text())
    assert sorted(manifest["dies"][1]["blocks"]) == ["3", "4", "5"]


def test_a_read_writes_the_block_history_not_its_cells(state_dir: Path) -> None:
    import numpy as np

    from nandlab.transport.sim import SimTransport

    folder = _folder(state_dir)
    with open_bench(URL) as bench:
        assert isinstance(bench, SimTransport)
        geo = bench.profile.geometry
        page = np.zeros(geo.page_bytes + geo.spare_bytes, np.uint8)
        bench.dies[0].array.program(6, 0, {0: page}, True)
    before = _files(folder)
    with open_bench(URL) as bench:
        assert isinstance(bench, SimTransport)
        bench.dies[0].array.sense(6, 0, 1000.0, True)
    new = sorted(n.split(".g")[0] + "." + n.rsplit(".", 1)[1] for n in _files(folder) - before)
    assert new == ["die0.b6.json", "die0.json"]


def test_an_image_reloaded_from_disk_equals_the_die_saved(
    state_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Saved after every operation of a seeded mix (program, read, erase, wear, bake), the
    image read back cold holds exactly the die in memory: no change escapes the block
    fingerprints."""
    import numpy as np

    from nandlab.transport.sim import SimTransport

    rng = np.random.default_rng(3)
    url = "sim://slc-search?seed=12&fresh=1"
    bench = open_bench(url)
    assert isinstance(bench, SimTransport)
    for step in range(40):
        array = bench.dies[0].array
        op, block = int(rng.integers(5)), int(rng.integers(4))
        nbytes = bench.profile.geometry.page_bytes + bench.profile.geometry.spare_bytes
        if op == 0:
            wl = int(rng.integers(4))
            if not array.wl_programmed(block, wl):
                array.program(block, wl, {0: rng.integers(0, 256, nbytes, np.uint8)}, True)
        elif op == 1:
            array.sense(block, int(rng.integers(4)), 1000.0, True)
        elif op == 2:
            array.erase(block)
        elif op == 3:
            array.add_wear(block, int(rng.integers(1, 50)))
        else:
            array.bake(85.0, 0.5)
        bench.close()
        image_module._saved_here.clear()  # read back cold: from the files alone
        bench = open_bench(url.replace("&fresh=1", ""))
        assert isinstance(bench, SimTransport)
        got = bench.dies[0].array.image()
        want = array.image()
        assert (got.age_h, got.noise_state) == (want.age_h, want.noise_state), step
        assert set(got.blocks) == set(want.blocks), step
        for b, blk in want.blocks.items():
            other = got.blocks[b]
            assert (other.pec, other.slc, other.mlc, other.reads, other.own_reads) == (
                blk.pec, blk.slc, blk.mlc, blk.reads, blk.own_reads
            ), (step, b)
            assert set(other.wls) == set(blk.wls), (step, b)
            for wl, w in blk.wls.items():
                v = other.wls[wl]
                assert np.array_equal(v.vth, w.vth) and np.array_equal(v.level, w.level)
                assert (v.pages, v.programs, v.age_h, v.reads_base) == (
                    w.pages, w.programs, w.age_h, w.reads_base
                )
        url = url.replace("&fresh=1", "")
    bench.close()


def test_fewer_dies_than_the_image_holds_is_refused(state_dir: Path) -> None:
    with open_bench("sim://slc-search?seed=9&dies=2") as bench:
        bench.run(Program().ce(1).delay(1000))
    with pytest.raises(RangeError, match="holds 2 dies: open it with dies=2"):
        open_bench("sim://slc-search?seed=9")  # saving one die would lose the other
    with open_bench("sim://slc-search?seed=9&dies=2") as bench:
        assert bench.now_ns == 1000


def test_a_session_lets_go_of_the_dies_it_kept(state_dir: Path) -> None:
    from nandlab.campaign.bench_session import BenchSession

    session = BenchSession(URL, [0], state_dir / "run")
    session.open()
    session.checkpoint("u00000")  # saved, then reopened from memory
    session.close_bench()  # saved; kept for a reopen while the session holds the lock
    assert _folder(state_dir).resolve() in image_module._saved_here
    session.close()  # the run's end: its lock goes, and the dies kept for it
    assert _folder(state_dir).resolve() not in image_module._saved_here
